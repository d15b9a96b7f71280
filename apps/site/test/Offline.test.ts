/**
 * Offline and installable (docs/api.md "The site"), in Chromium against the real server, which these tests
 * stop and start again on the same port: with the server stopped, a reload and a new tab of a stored
 * place show it with the "offline" notice, and `{BASE_PATH}/` alone reopens the last place shown
 * (online it stays the welcome page);
 * after a new build is served, the next load uses it (pages and assets from the network first, the
 * old build's cache deleted); the manifest and its icons are served and valid, and Chromium finds the
 * site installable.
 */
import * as BuiltServer from "@climate-grade/server/test/BuiltServer"
import { inflateSync } from "node:zlib"
import { describe, expect, layer } from "@effect/vitest"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { type Backend, backends, Chromium, DayEdges, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import type { Page } from "playwright-core"
import { buildSite } from "./support/SiteWorld.js"

class Upstreams extends Context.Tag("offline-test/Upstreams")<Upstreams, Readonly<Record<string, string>>>() {}

const world = Layer.mergeAll(
  Layer.scoped(
    Upstreams,
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      return { ...FakeEnv.upstreams(weather, geocoder), HISTORY_START: "1980-01-01" }
    })
  ),
  Chromium.layer
)

/** A port free now, so a server can be stopped and started again at the same origin. */
const freePort = Effect.promise(BuiltServer.freePort)

/**
 * The real server serving `site` on `port`, until the returned `stop`. Each start has a database of
 * its own: what the page shows offline is what the browser kept.
 */
const startServer = (port: number, site: string, basePath: string, backend: Backend) =>
  Effect.gen(function* () {
    const env = yield* Upstreams
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      testServerLayer({ ...env, PORT: String(port), ...(basePath === "" ? {} : { BASE_PATH: basePath }) }, backend.layer, {
        siteDirectory: site
      }),
      scope
    )
    return { server: Context.get(context, TestServer), stop: Scope.close(scope, Exit.void) }
  })

const waitForGrades = (page: Page) => page.locator(".grade-card").nth(2).waitFor({ timeout: 30_000 })

/** The page is controlled by an active service worker (installed: every file of its build kept). */
const controlled = (page: Page) =>
  page.waitForFunction(() => navigator.serviceWorker.controller?.state === "activated", null, { timeout: 30_000 })

const mainScript = (page: Page) => page.evaluate(() => document.querySelector<HTMLScriptElement>("script[type=module]")!.src)

const offlineNotice = (page: Page) => page.getByText(/offline/i).first()

const place = { lat: "47.61", lon: "-122.33" }

/** A PNG's width and height from its IHDR chunk, after checking its signature and that it decodes. */
const pngSize = (bytes: Uint8Array) => {
  expect([...bytes.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  const view = new DataView(bytes.buffer, bytes.byteOffset)
  expect(new TextDecoder().decode(bytes.slice(12, 16))).toBe("IHDR")
  // The image data inflates (zlib) to one filter byte and 4 bytes per pixel per row.
  const chunks: Array<Uint8Array> = []
  for (let at = 8; at < bytes.length; ) {
    const length = view.getUint32(at)
    if (new TextDecoder().decode(bytes.slice(at + 4, at + 8)) === "IDAT") chunks.push(bytes.slice(at + 8, at + 8 + length))
    at += 12 + length
  }
  const width = view.getUint32(16)
  const height = view.getUint32(20)
  const pixels = inflateSync(Buffer.concat(chunks))
  expect(pixels.length).toBe(height * (1 + width * 4))
  return { width, height }
}

layer(world, { timeout: 240_000 })("offline and installable", (it) => {
  for (const backend of backends) describe(`on ${backend.name}`, () => {
    for (const basePath of ["", "/climate"]) {
      describe(basePath === "" ? "at the root" : `under BASE_PATH=${basePath}`, () => {
        it.scoped(
          "with the server stopped, a reload and a new tab of a stored place show it with 'offline', and the site's root alone reopens it",
          () =>
            Effect.gen(function* () {
              // The cell's day holds from the first load to the last (else the stored copy is a day old).
              yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 90_000)
              const browser = yield* Chromium.Chromium
              const port = yield* freePort
              const { server, stop } = yield* startServer(port, yield* buildSite(), basePath, backend)
              // A US browser in Berlin: its own way of writing a moment ("11/28/2026, 3:05:28 AM") must not show.
              const { context, page, log } = yield* Chromium.scopedPage(browser, { locale: "en-US", timezoneId: "Europe/Berlin" })
              const address = server.url(`${basePath}/?lat=${place.lat}&lon=${place.lon}`)
              yield* Effect.promise(async () => {
                await page.goto(address)
                await waitForGrades(page)
                await controlled(page)
              })
              const cards = yield* Effect.promise(() => page.locator(".grade-card").allTextContents())
              expect(yield* Effect.promise(() => offlineNotice(page).count())).toBe(0)
              const scope = yield* Effect.promise(() => page.evaluate(() => navigator.serviceWorker.controller!.scriptURL))
              expect(scope).toBe(server.url(`${basePath}/sw.js`))
              // Online, the site's root is still the welcome page: the address holds the state.
              const online = yield* Effect.promise(() => context.newPage())
              yield* Effect.promise(async () => {
                await online.goto(server.url(`${basePath}/`))
                await online.getByRole("heading", { level: 1, name: "How unusual is today's weather?" }).waitFor()
              })
              expect(new URL(online.url()).search).toBe("")
              yield* Effect.promise(() => online.close())
              yield* stop

              // A reload: the page and its scripts from the worker, the data from the browser's store.
              yield* Effect.promise(async () => {
                await page.reload()
                await waitForGrades(page)
                await offlineNotice(page).waitFor({ timeout: 20_000 })
              })
              expect(yield* Effect.promise(() => page.locator(".grade-card").allTextContents())).toEqual(cards)
              expect(yield* Effect.promise(() => page.getByRole("heading", { level: 1 }).textContent())).toBe("Testville, TL")
              // The copy's moment as the page writes dates, on a 24-hour clock, with its zone.
              expect(yield* Effect.promise(() => offlineNotice(page).textContent())).toMatch(
                /stored copy from (Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]+ \d{4}, \d{2}:\d{2} (CET|CEST)\. /
              )
              // What loads after the grades is there too: the sections below them, the calendar, the map.
              yield* Effect.promise(async () => {
                await Chromium.drawWholePage(page)
                await page.getByRole("grid").waitFor({ timeout: 20_000 })
                await page.locator(".map-land").first().waitFor({ timeout: 20_000 })
              })

              // A new tab of the place's address.
              const tab = yield* Effect.promise(() => context.newPage())
              yield* Effect.promise(async () => {
                await tab.goto(address)
                await waitForGrades(tab)
                await offlineNotice(tab).waitFor({ timeout: 20_000 })
              })
              expect(yield* Effect.promise(() => tab.locator(".grade-card").allTextContents())).toEqual(cards)

              // The site's root alone: the last place shown, its address in the bar.
              const home = yield* Effect.promise(() => context.newPage())
              yield* Effect.promise(async () => {
                await home.goto(server.url(`${basePath}/`))
                await waitForGrades(home)
                await offlineNotice(home).waitFor({ timeout: 20_000 })
              })
              const reopened = new URL(home.url())
              expect(reopened.pathname).toBe(`${basePath}/`)
              expect([reopened.searchParams.get("lat"), reopened.searchParams.get("lon")]).toEqual(["47.5", "-122.25"])
              expect(yield* Effect.promise(() => home.locator(".grade-card").allTextContents())).toEqual(cards)
              expect(Chromium.cspViolations(log)).toEqual([])
            }),
          // A minute and a half at most waiting out the cell's midnight, then the test.
          210_000
        )
      })
    }

    it.scoped("after a new build is served, the next load uses it, and the old build's cache is gone", () =>
      Effect.gen(function* () {
        const browser = yield* Chromium.Chromium
        const port = yield* freePort
        const first = yield* startServer(port, yield* buildSite("one"), "", backend)
        const { page, log } = yield* Chromium.scopedPage(browser)
        const address = first.server.url(`/?lat=${place.lat}&lon=${place.lon}`)
        yield* Effect.promise(async () => {
          await page.goto(address)
          await waitForGrades(page)
          await controlled(page)
        })
        const before = yield* Effect.promise(() => mainScript(page))
        yield* first.stop
        const second = yield* startServer(port, yield* buildSite("two"), "", backend)
        yield* Effect.promise(async () => {
          await page.reload()
          await waitForGrades(page)
        })
        const after = yield* Effect.promise(() => mainScript(page))
        expect(after).not.toBe(before)
        expect(yield* Effect.promise(() => offlineNotice(page).count())).toBe(0)
        // The new build's worker takes over and keeps only its own build: one cache, holding the new
        // build and not the old. (Until the new worker is installed, the old worker's one cache holds
        // both, as it keeps what the reloaded page fetches; waiting on "no cache holds the old script"
        // alone could pass then, before the new worker's cache appears.)
        yield* Effect.promise(() =>
          page.waitForFunction(
            async ([now, old]) => {
              const names = await caches.keys()
              if (names.length !== 1) return false
              const options = { cacheName: names[0]!, ignoreVary: true }
              return (await caches.match(now, options)) !== undefined && (await caches.match(old, options)) === undefined
            },
            [after, before] as const,
            { timeout: 30_000 }
          )
        )
        expect((yield* Effect.promise(() => page.evaluate(() => caches.keys()))).length).toBe(1)
        yield* Effect.promise(async () => {
          await page.reload()
          await waitForGrades(page)
        })
        expect(yield* Effect.promise(() => mainScript(page))).toBe(after)
        // No script error. Requests made while no server ran (the neighbour warm-up) failed on the
        // network, as they should (refused, or failed through the worker).
        expect(log.errors.filter((e) => !/Failed to load resource: net::ERR_(CONNECTION_REFUSED|FAILED)/.test(e))).toEqual([])
        yield* second.stop
      }),
      120_000
    )

    it.scoped("the manifest, linked from both pages, names the app, its start and its icons, which are valid PNGs; Chromium finds it installable", () =>
      Effect.gen(function* () {
        const browser = yield* Chromium.Chromium
        const port = yield* freePort
        const { server, stop } = yield* startServer(port, yield* buildSite(), "/climate", backend)
        const { context, page } = yield* Chromium.scopedPage(browser)
        for (const path of ["/climate/", "/climate/alerts"]) {
          yield* Effect.promise(() => page.goto(server.url(path)))
          const href = yield* Effect.promise(() => page.evaluate(() => document.querySelector<HTMLLinkElement>("link[rel=manifest]")?.href))
          expect(href, path).toBe(server.url("/climate/manifest.webmanifest"))
        }
        const response = yield* Effect.promise(() => fetch(server.url("/climate/manifest.webmanifest")))
        expect(response.headers.get("content-type")).toBe("application/manifest+json")
        expect(response.headers.get("cache-control")).toBe("no-cache")
        const manifest = (yield* Effect.promise(() => response.json())) as {
          name: string
          short_name: string
          start_url: string
          display: string
          theme_color: string
          background_color: string
          icons: Array<{ src: string; sizes: string; type: string; purpose: string }>
        }
        const base = server.url("/climate/manifest.webmanifest")
        expect(manifest.name).toMatch(/Climate grade/)
        expect(manifest.short_name.length).toBeLessThanOrEqual(15)
        expect(new URL(manifest.start_url, base).href).toBe(server.url("/climate/"))
        expect(manifest.display).toBe("standalone")
        expect(manifest.theme_color).toMatch(/^#[0-9a-f]{6}$/)
        expect(manifest.background_color).toMatch(/^#[0-9a-f]{6}$/)
        const pngs = manifest.icons.filter((i) => i.type === "image/png")
        for (const [sizes, purpose] of [
          ["192x192", "any"],
          ["512x512", "any"],
          ["512x512", "maskable"]
        ] as const) {
          const icon = pngs.find((i) => i.sizes === sizes && i.purpose === purpose)
          expect(icon, `${sizes} ${purpose}`).toBeDefined()
          const image = yield* Effect.promise(() => fetch(new URL(icon!.src, base)))
          expect(image.status).toBe(200)
          expect(image.headers.get("content-type")).toBe("image/png")
          const { width, height } = pngSize(new Uint8Array(yield* Effect.promise(() => image.arrayBuffer())))
          expect(`${width}x${height}`).toBe(sizes)
        }
        // Chromium's own reading of the manifest: no errors, and nothing stands in the way of installing.
        const cdp = yield* Effect.promise(() => context.newCDPSession(page))
        yield* Effect.promise(() => page.goto(server.url("/climate/")))
        const parsed = yield* Effect.promise(() => cdp.send("Page.getAppManifest"))
        expect(parsed.errors).toEqual([])
        expect(parsed.url).toBe(server.url("/climate/manifest.webmanifest"))
        const installable = yield* Effect.promise(() => cdp.send("Page.getInstallabilityErrors"))
        // A test's browser context is a private one, where no app installs; that is the browser's say, not the site's.
        expect(installable.installabilityErrors.filter((e) => e.errorId !== "in-incognito")).toEqual([])
        yield* stop
      }),
      120_000
    )
  })
})
