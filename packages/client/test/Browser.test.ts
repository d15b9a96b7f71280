/**
 * The client in a real browser (Chromium): the browser bundle, the real IndexedDB, the browser's
 * fetch. The page is served at the API's origin (by the browser context's routing), so its calls
 * reach the real server as a same-origin page's would; "offline" is the browser's own switch.
 */
import { backends, Chromium } from "@climate-grade/testing"
import { build } from "esbuild"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startWorld, type World } from "./support/World.js"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")
let world: World
let browser: Browser
let bundle: string

beforeAll(async () => {
  if (!Chromium.available()) return
  const built = await build({
    entryPoints: [join(packageDir, "src/index.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["source"],
    write: false,
    logLevel: "warning"
  })
  bundle = built.outputFiles[0]!.text
  browser = await Chromium.launch()
}, 180_000)
afterAll(async () => {
  await browser?.close()
})

for (const backend of backends) describe(`on ${backend.name}`, () => {
  beforeAll(async () => {
    if (!Chromium.available()) return
    world = await startWorld(backend)
  }, 180_000)
  afterAll(() => world?.stop())

  it.skipIf(!Chromium.available())("in Chromium: IndexedDB keeps copies across page loads; revalidated online, stale offline", async () => {
    const origin = new URL(world.baseUrl).origin
    const context = await browser.newContext()
    await context.route(`${origin}/__client/**`, (route) => {
      const path = new URL(route.request().url()).pathname
      return path.endsWith(".js")
        ? route.fulfill({ status: 200, contentType: "text/javascript", body: bundle })
        : route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>client</title>" })
    })
    const wire: Array<[string, number]> = []
    context.on("response", (r) => {
      const url = new URL(r.url())
      if (url.pathname.startsWith("/api/v2/")) wire.push([url.pathname, r.status()])
    })
    const page = await context.newPage()
    await page.goto(`${origin}/__client/`)
    type Run = { sources: Array<string>; label: string | null; error?: string }
    // A string, not a function: vitest would rewrite a function's `import()` for Node.
    const run = (step: "first" | "again" | "offline") =>
      page.evaluate(`(async () => {
      const m = await import("/__client/index.js")
      const client = m.createClient({ baseUrl: ${JSON.stringify(world.baseUrl)}, store: m.indexedDbStore("browser-test") })
      try {
        if (${JSON.stringify(step)} === "first") {
          const loaded = await client.load(59.33, 18.06)
          client.cancelWarmUp()
          return { sources: [loaded.grade.source, loaded.day.source], label: loaded.cell.label }
        }
        const grade = await client.view("grade", 59.33, 18.06)
        const day = await client.view("day", 59.33, 18.06)
        return { sources: [grade.source, day.source], label: grade.data.cell.label }
      } catch (e) {
        return { sources: [], label: null, error: String(e) }
      } finally {
        await client.close()
      }
    })()`) as Promise<Run>

    expect(await run("first")).toEqual({ sources: ["network", "network"], label: "Testville, TL" })
    // A reload: a new page, the same IndexedDB.
    await page.reload()
    expect(await run("again")).toEqual({ sources: ["revalidated", "revalidated"], label: "Testville, TL" })
    expect(wire).toEqual([
      ["/api/v2/cell", 200],
      ["/api/v2/grade", 304],
      ["/api/v2/day", 304]
    ])
    await context.setOffline(true)
    expect(await run("offline")).toEqual({ sources: ["stale", "stale"], label: "Testville, TL" })
    await context.close()
  }, 180_000)
})
