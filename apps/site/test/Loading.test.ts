/**
 * How the main page loads, in Chromium on the real server with fake upstreams (docs/api.md "The site"):
 * one `/cell` request for a shared link, then the eight neighbours warmed with `prefetch=1` at
 * least 1.1 s apart; a reload revalidates (304s) and draws from the stored copy; with the API cut
 * the page says "offline" and still shows the data; no inline script is needed (no CSP violation).
 */
import { describe, expect, layer } from "@effect/vitest"
import { TestServer } from "@climate-grade/server/test/TestServer"
import { backends, Chromium, DayEdges } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import type { Page, Response } from "playwright-core"
import { siteWorld } from "./support/SiteWorld.js"

interface Seen {
  readonly path: string
  readonly query: URLSearchParams
  readonly at: number
  readonly ifNoneMatch: string | undefined
  status?: number
}

/** Every request the page makes to the API, with when it started and how it was answered. */
const watchApi = (page: Page) => {
  const seen: Array<Seen> = []
  page.on("request", (request) => {
    const url = new URL(request.url())
    if (!url.pathname.includes("/api/v2/")) return
    const entry: Seen = {
      path: url.pathname.replace(/^.*\/api\/v2/, ""),
      query: url.searchParams,
      at: Date.now(),
      ifNoneMatch: request.headers()["if-none-match"]
    }
    seen.push(entry)
    request.response().then(
      (r) => {
        if (r !== null) entry.status = r.status()
      },
      () => undefined
    )
  })
  return seen
}

const waitForGrades = (page: Page) => page.locator(".grade-card").nth(2).waitFor({ timeout: 30_000 })

/** Polls (cheaply) until `ok` holds, so a test waits only as long as the page needs. */
const until = (ok: () => boolean, timeoutMs: number, what: string) =>
  Effect.promise(async () => {
    const end = Date.now() + timeoutMs
    while (!ok()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  })

let counter = 0
/** A cell no other test here touches. */
const freshPlace = () => {
  counter++
  return { lat: (-20 - counter * 1.5 + 0.1).toFixed(2), lon: (100 + counter * 2.75).toFixed(2) }
}

/** The server's access log: one line per answer, "… CLIENT METHOD /path STATUS DURATIONms …" (LOG_FORMAT=pretty). */
const logs: Array<string> = []
const answered = (from: number) =>
  logs
    .slice(from)
    .map((line) => / (GET|HEAD) (\S+) (\d{3}) [\d.]+ms /.exec(line))
    .filter((m) => m !== null)
    .map((m) => ({ path: m[2]!.replace(/\?.*$/, ""), status: Number(m[3]) }))

for (const backend of backends) {
  layer(siteWorld({}, { logs, backend }), { timeout: 180_000 })(`loading the main page on ${backend.name}`, (it) => {
    describe("a shared link", () => {
      it.scoped(
        "makes exactly one /cell request, then warms the eight neighbours with prefetch=1, 1.1 s or more apart",
        () =>
          Effect.gen(function* () {
            const { url } = yield* TestServer
            const browser = yield* Chromium.Chromium
            const { lat, lon } = freshPlace()
            const { log, page } = yield* Chromium.scopedPage(browser)
            const seen = watchApi(page)
            yield* Effect.promise(async () => {
              await page.goto(url(`/?lat=${lat}&lon=${lon}`))
              await waitForGrades(page)
              // Every section drawn, as a reader scrolling down draws them (the trend's data comes with its section).
              await Chromium.drawWholePage(page)
            })
            const prefetches = () => seen.filter((s) => s.path === "/cell" && s.query.get("prefetch") === "1")
            yield* until(() => prefetches().length >= 8, 30_000, "eight prefetch requests")
            // Nothing more is asked for: a short grace for a stray ninth.
            yield* Effect.promise(() => page.waitForTimeout(300))
            // The climate context's and the spells' data come once their chunks are in: waited for, then counted.
            yield* until(() => seen.some((s) => s.path === "/trend") && seen.some((s) => s.path === "/spells"), 30_000, "the trend and spells requests")
            yield* Effect.promise(() => page.waitForTimeout(300))
            const data = seen.filter((s) => s.path !== "/places")
            // The climate context asks for /trend once, when drawn (ClimateContext.test holds that it is after the grades).
            expect(data.filter((s) => s.path === "/trend")).toHaveLength(1)
            // So does the spells section, once (Spells.test holds that it comes after the grades).
            expect(data.filter((s) => s.path === "/spells")).toHaveLength(1)
            const first = data.filter((s) => s.query.get("prefetch") !== "1" && s.path !== "/trend" && s.path !== "/spells")
            expect(first.map((s) => s.path)).toEqual(["/cell"])
            expect(Number(first[0]!.query.get("lat"))).toBe(Math.round(Number(lat) * 4) / 4)
            expect(prefetches()).toHaveLength(8)
            // The eight neighbours of the cell, each once.
            const cellLat = Math.round(Number(lat) * 4) / 4
            const cellLon = Math.round(Number(lon) * 4) / 4
            const neighbours = prefetches().map((s) => {
              const dLat = Math.round((Number(s.query.get("lat")) - cellLat) * 4)
              const dLon = Math.round((Number(s.query.get("lon")) - cellLon) * 4)
              return `${dLat},${dLon}`
            })
            expect(new Set(neighbours)).toEqual(new Set(["-1,-1", "-1,0", "-1,1", "0,-1", "0,1", "1,-1", "1,0", "1,1"]))
            // The spacing by the page's own clock (Resource Timing: when each fetch started), not by
            // when this process heard of it, which a loaded machine delays by any amount.
            const started = yield* Effect.promise(() =>
              page.evaluate(() =>
                performance
                  .getEntriesByType("resource")
                  .filter((e) => new URL(e.name).pathname.endsWith("/cell"))
                  .map((e) => ({ prefetch: new URL(e.name).searchParams.get("prefetch") === "1", at: e.startTime }))
              )
            )
            expect(started.map((e) => e.prefetch)).toEqual([false, ...Array(8).fill(true)])
            for (let i = 1; i < started.length; i++) {
              expect(started[i]!.at - started[i - 1]!.at, `request ${i}`).toBeGreaterThanOrEqual(1_100)
            }
            expect(Chromium.cspViolations(log)).toEqual([])
            expect(log.errors).toEqual([])
          })
      )

      it.scoped("a reload revalidates the page, its assets and the data (304s) and draws the stored copy", () =>
        Effect.gen(function* () {
          // The cell's day holds from the first load to the reload (else: a new ETag, new grades).
          yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 60_000)
          const { url } = yield* TestServer
          const browser = yield* Chromium.Chromium
          const { lat, lon } = freshPlace()
          const { page } = yield* Chromium.scopedPage(browser)
          yield* Effect.promise(async () => {
            await page.goto(url(`/?lat=${lat}&lon=${lon}`))
            await waitForGrades(page)
            // Everything the page fetches after the grades (its later parts, the map outlines) is in too.
            await page.locator(".map-land").first().waitFor()
            await Chromium.drawWholePage(page)
            await page.getByRole("grid").waitFor()
            // And the service worker has kept the site: a visitor's next load goes through it.
            await page.waitForFunction(() => navigator.serviceWorker.controller?.state === "activated", null, { timeout: 30_000 })
            // The page's head names the place once the server holds it, so the first page was another
            // page: one reload fetches this place's, which the measured reload then revalidates.
            await page.reload()
            await waitForGrades(page)
          })
          const headline = yield* Effect.promise(() => page.locator(".grade-card").first().textContent())
          const seen = watchApi(page)
          const responses: Array<Response> = []
          page.on("response", (r) => responses.push(r))
          const mark = logs.length
          yield* Effect.promise(async () => {
            await page.reload()
            await waitForGrades(page)
            await page.locator(".map-land").first().waitFor()
            await Chromium.drawWholePage(page)
            await page.getByRole("grid").waitFor()
          })
          expect(yield* Effect.promise(() => page.locator(".grade-card").first().textContent())).toBe(headline)
          yield* until(() => seen.some((s) => s.path === "/cell" && s.status !== undefined), 10_000, "the /cell answer")
          const cell = seen.find((s) => s.path === "/cell" && s.query.get("prefetch") !== "1")!
          expect(cell.ifNoneMatch).toMatch(/^W\/"/)
          expect(cell.status).toBe(304)
          // The page, its scripts and styles and the map, as the server answered them: all revalidated,
          // all 304 (the worker fetches them from the network first, through the browser's HTTP cache).
          const site = answered(mark).filter((a) => !a.path.startsWith("/api/"))
          const loaded = responses.filter((r) => !r.url().includes("/api/v2/")).map((r) => new URL(r.url()).pathname)
          expect(site.map((a) => a.path)).toEqual(expect.arrayContaining(["/", ...loaded.filter((p) => /\.(js|css|json)$/.test(p))]))
          expect(site.some((a) => a.path.endsWith(".js"))).toBe(true)
          for (const a of site) expect(a.status, a.path).toBe(304)
        }),
        // A minute at most waiting out the cell's midnight, then the test.
        120_000
      )

      it.scoped("with the API cut, a reload says 'offline' and still shows the stored data", () =>
        Effect.gen(function* () {
          // The cell's day holds from the first load to the reload (else: a new ETag, new grades).
          yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 60_000)
          const { url } = yield* TestServer
          const browser = yield* Chromium.Chromium
          const { lat, lon } = freshPlace()
          const { page } = yield* Chromium.scopedPage(browser)
          yield* Effect.promise(async () => {
            await page.goto(url(`/?lat=${lat}&lon=${lon}`))
            await waitForGrades(page)
          })
          const cards = yield* Effect.promise(() => page.locator(".grade-card").allTextContents())
          expect(yield* Effect.promise(() => page.getByText(/offline/i).count())).toBe(0)
          yield* Effect.promise(async () => {
            await page.route("**/api/v2/**", (route) => route.abort("internetdisconnected"))
            await page.reload()
            await page.getByText(/offline/i).first().waitFor({ timeout: 20_000 })
          })
          expect(yield* Effect.promise(() => page.getByText(/offline/i).first().isVisible())).toBe(true)
          expect(yield* Effect.promise(() => page.locator(".grade-card").allTextContents())).toEqual(cards)
          expect(yield* Effect.promise(() => page.getByRole("heading", { level: 1 }).textContent())).toBe("Testville, TL")
        }),
        // A minute at most waiting out the cell's midnight, then the test.
        120_000
      )
    })
  })
}
