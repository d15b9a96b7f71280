/**
 * A real browser for page tests: Debian's Chromium (`/usr/bin/chromium`, installed by `.ci/run`)
 * driven by `playwright-core`, which downloads no browser of its own. One browser per test file
 * (launching costs ~0.5 s; a fresh context per test keeps tests apart), closed with the file.
 *
 * In tests: `layer(Chromium.layer)(...)` from `@effect/vitest`, then `yield* Chromium.Chromium`; or
 * `launch()` in a `beforeAll` and `close()` in an `afterAll`.
 */
import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Skips from "./Skips.js"

/** Where the browser is; `CHROMIUM_PATH` overrides it (e.g. a Chrome on a laptop). */
export const executablePath = (): string => process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

export const available = (): boolean =>
  Skips.unless(
    existsSync(executablePath()),
    "the page tests that need a browser",
    `no Chromium at ${executablePath()} (Debian's chromium, or CHROMIUM_PATH)`
  )

/**
 * Launches a headless Chromium. `--no-sandbox`: CI runs as root, where Chromium's sandbox refuses
 * to start; the pages under test are our own. `--disable-dev-shm-usage`: containers often have a
 * tiny /dev/shm, which crashes renderers under load.
 */
export const launch = (): Promise<Browser> =>
  chromium.launch({
    executablePath: executablePath(),
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", "--lang=en-GB"],
    timeout: 60_000
  })

export class Chromium extends Context.Tag("@climate-grade/testing/Chromium")<Chromium, Browser>() {}

/** One browser for the life of the layer (a test file), closed with it. */
export const layer: Layer.Layer<Chromium> = Layer.scoped(
  Chromium,
  Effect.acquireRelease(Effect.promise(launch), (browser) => Effect.promise(() => browser.close()))
)

/** What a page said that a test may want to refuse: console errors (CSP violations land there) and uncaught errors. */
export interface PageLog {
  readonly errors: Array<string>
  readonly console: Array<string>
}

export interface OpenedPage {
  readonly context: BrowserContext
  readonly page: Page
  readonly log: PageLog
}

/**
 * A fresh context (its own cookies, storage and cache) and one page in it, at a given width.
 * `locale` defaults to en-GB so that pages choosing units from the locale are deterministic.
 */
export const openPage = async (browser: Browser, options: BrowserContextOptions & { readonly width?: number } = {}): Promise<OpenedPage> => {
  const { width, ...contextOptions } = options
  const context = await browser.newContext({
    locale: "en-GB",
    timezoneId: "UTC",
    viewport: { width: width ?? 1280, height: 900 },
    ...contextOptions
  })
  const page = await context.newPage()
  const log: PageLog = { errors: [], console: [] }
  page.on("pageerror", (error) => log.errors.push(String(error)))
  page.on("console", (message) => {
    const line = `${message.type()}: ${message.text()}`
    log.console.push(line)
    if (message.type() === "error") log.errors.push(line)
  })
  return { context, page, log }
}

/** `openPage` in a test's scope: the context (cookies, storage, cache) is closed with the scope. */
export const scopedPage = (browser: Browser, options: BrowserContextOptions & { readonly width?: number } = {}) =>
  Effect.acquireRelease(Effect.promise(() => openPage(browser, options)), ({ context }) => Effect.promise(() => context.close()))

/**
 * Scrolls the main page's sections below the grades into view one after another until none is left
 * waiting (`.section-pending` stands in for a section until it comes near the screen and is drawn),
 * so a test can look at every section as a reader who scrolled down would. The page is left scrolled
 * to the last one drawn.
 */
export const drawWholePage = async (page: Page): Promise<void> => {
  // The sections' stand-ins come with the place's details, a chunk that can arrive after the grades:
  // until the last one (#about) is there, "nothing pending" would only mean "nothing drawn yet".
  await page.locator("#about").waitFor({ state: "attached", timeout: 30_000 })
  for (;;) {
    const pending = await page.evaluate(() => {
      const all = document.querySelectorAll(".section-pending")
      all[0]?.scrollIntoView()
      return all.length
    })
    if (pending === 0) return
    // Scrolled to again at each poll: a section above that grows as it is drawn (a chart's chunk
    // arriving) can push the one waiting back out of reach before its observer looked.
    await page.waitForFunction(
      (before) => {
        const all = document.querySelectorAll(".section-pending")
        if (all.length < before) return true
        all[0]?.scrollIntoView()
        return false
      },
      pending,
      { timeout: 20_000, polling: 100 }
    )
  }
}

/** Console errors about the Content-Security-Policy: a page that needs inline script shows them. */
export const cspViolations = (log: PageLog): ReadonlyArray<string> => log.errors.filter((e) => /Content.Security.Policy/i.test(e))

export interface AxeViolation {
  readonly id: string
  readonly impact: string | null | undefined
  readonly help: string
  readonly targets: ReadonlyArray<string>
}

let axeSource: string | undefined

/**
 * Runs axe-core on the page as it stands and returns the violations of at least `minimum` impact.
 * axe is evaluated through the DevTools protocol, which a page's CSP does not govern, and run in the
 * page directly: on the main page (~1,500 elements) that takes ~1.5 s, where @axe-core/playwright's
 * partial-results round trip took ~30 s.
 */
export const axe = async (page: Page, minimum: "minor" | "moderate" | "serious" | "critical" = "serious"): Promise<ReadonlyArray<AxeViolation>> => {
  const order = ["minor", "moderate", "serious", "critical"]
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    interface Found {
      readonly id: string
      readonly impact?: string | null
      readonly help: string
      readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<unknown> }>
    }
    const runner = (globalThis as unknown as { axe: { run: (ctx: unknown, o: unknown) => Promise<{ violations: Array<Found> }> } }).axe
    const results = await runner.run(document, { resultTypes: ["violations"] })
    return results.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      targets: v.nodes.map((n) => n.target.map(String).join(" "))
    }))
  })
  return violations.filter((v) => order.indexOf(v.impact ?? "minor") >= order.indexOf(minimum))
}

