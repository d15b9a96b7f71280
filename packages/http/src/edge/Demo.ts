/**
 * A service whose weather is made up (`pnpm demo`: fake upstreams on loopback) says so wherever it
 * shows weather: a notice on every page and in a shared link's head, and the pages' credit of the
 * data's source names the demo instead (the page reads `data-demo` on `<html>`).
 * Off by default; `DEMO_DATA=on` turns it on.
 */
import * as Context from "effect/Context"
import type { Site } from "./Site.js"
import { fileOf } from "./Site.js"

/** Whether the weather this service serves is made up. */
export class DemoData extends Context.Reference<DemoData>()("climate-grade/DemoData", { defaultValue: () => false }) {}

export const NOTICE = "Demo: the weather on this site is made up on this computer, not measured."
/** For a head's title and description. */
export const SHORT = "Demo data, not real weather"

const BANNER = `<p class="demo-notice" role="note"><strong>Demo.</strong> The weather on this site is made up on this computer, not measured: do not plan by it.</p>`

/** A built page with the notice: `data-demo` on `<html>`, the banner first in `<body>`. */
export const markPage = (html: string): string =>
  html.replace(/<html\b/i, '<html data-demo="1"').replace(/<body\b[^>]*>/i, (body) => `${body}\n${BANNER}`)

/** The site with every page marked (assets unchanged). */
export const markSite = (site: Site): Site => {
  const files = new Map(site.files)
  for (const [path, file] of site.files) {
    if (!file.contentType.startsWith("text/html")) continue
    files.set(path, fileOf("page.html", new TextEncoder().encode(markPage(new TextDecoder().decode(file.body)))))
  }
  return { ...site, files }
}
