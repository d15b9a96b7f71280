/**
 * The main page in Chromium, on the real server with fake upstreams: a shared link shows the place,
 * its grades and charts; the map picks a cell; the calendar works from the keyboard and opens a day;
 * units switch and are remembered; nothing overflows at 375 px or 1280 px; axe finds nothing serious.
 */
import { describe, expect, layer } from "@effect/vitest"
import { backends, Chromium } from "@climate-grade/testing"
import { TestServer } from "@climate-grade/server/test/TestServer"
import * as Effect from "effect/Effect"
import type { Page, Request } from "playwright-core"
import { siteWorld, Upstreams } from "./support/SiteWorld.js"

/** A cell no other test here touches, so each test starts cold on the server and in the browser. */
let counter = 0
const freshPlace = () => {
  counter++
  return { lat: (40 + counter * 1.5 + 0.1).toFixed(2), lon: (-30 + counter * 2.75).toFixed(2) }
}

const apiCalls = (page: Page) => {
  const calls: Array<string> = []
  page.on("request", (r: Request) => {
    const url = new URL(r.url())
    if (url.pathname.startsWith("/api/v2/")) calls.push(`${url.pathname}${url.search}`)
  })
  return calls
}

/** The grades are on screen: the three cards of today carry a percentile or say why not. */
const waitForGrades = (page: Page) => page.locator(".grade-card").nth(2).waitFor({ timeout: 20_000 })

const noOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

/**
 * Records, at every animation frame from the page's start, how far it overflowed sideways: a chart
 * first drawn too wide and corrected a frame later is seen, not only the page at rest.
 */
const watchOverflow = (page: Page) =>
  page.addInitScript(() => {
    const w = window as unknown as { __widest: number }
    w.__widest = 0
    const look = () => {
      const root = document.documentElement
      if (root !== null) w.__widest = Math.max(w.__widest, root.scrollWidth - root.clientWidth)
      requestAnimationFrame(look)
    }
    requestAnimationFrame(look)
  })

const widestOverflow = (page: Page) => page.evaluate(() => (window as unknown as { __widest: number }).__widest)

for (const backend of backends) {
  layer(siteWorld({}, { backend }), { timeout: 120_000 })(`the main page on ${backend.name}`, (it) => {
    describe("a shared link", () => {
      it.scoped("shows the place label, today's grades, the forecast strip, the calendar and the day view", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const browser = yield* Chromium.Chromium
          const { lat, lon } = freshPlace()
          const { page, log } = yield* Chromium.scopedPage(browser)
          const calls = apiCalls(page)
          yield* Effect.promise(async () => {
            await page.goto(url(`/?lat=${lat}&lon=${lon}`))
            await waitForGrades(page)
          })
          // The label the API gives (FakeNominatim's fallback address) is the page's heading.
          expect(yield* Effect.promise(() => page.getByRole("heading", { level: 1 }).textContent())).toBe("Testville, TL")
          const cards = yield* Effect.promise(() => page.locator(".grade-card").allTextContents())
          expect(cards).toHaveLength(3)
          for (const card of cards) expect(card).toMatch(/(\d+(st|nd|rd|th) percentile|no percentile)/)
          expect(cards[0]).toMatch(/°C/)
          expect(cards[2]).toMatch(/ mm/)
          // The sections below the grades and the calendar come in chunks of their own, after the grades,
          // each drawn as it comes near the screen.
          yield* Effect.promise(async () => {
            await Chromium.drawWholePage(page)
            await page.getByRole("grid").waitFor({ timeout: 20_000 })
          })
          // One headline sentence per variable, in words.
          const sentences = yield* Effect.promise(() => page.locator(".grade-sentence").allTextContents())
          expect(sentences[0]).toMatch(/^(Today's high of −?\d+\.\d °C|Today's high)/)
          // The forecast strip: 16 days from today, each with three graded values.
          expect(yield* Effect.promise(() => page.locator(".fc-day").count())).toBe(16)
          // The calendar: a grid of two years of days, one row per month and one column per day of the
          // month, drawn as one SVG (one path per colour), with only the focused day in the DOM.
          const grid = page.getByRole("grid")
          const [first, last] = (yield* Effect.promise(() => grid.getAttribute("aria-label")))!.split(" to ").map((d) => Date.parse(d.replace(/^.* by day, /, "").slice(4)))
          expect((last! - first!) / 86_400_000).toBeGreaterThan(700)
          expect(Number(yield* Effect.promise(() => grid.getAttribute("aria-rowcount")))).toBeGreaterThanOrEqual(24)
          expect(yield* Effect.promise(() => grid.getAttribute("aria-colcount"))).toBe("31")
          expect(yield* Effect.promise(() => page.getByRole("gridcell").count())).toBe(1)
          expect(yield* Effect.promise(() => page.locator(".calendar-svg path").count())).toBeGreaterThan(1)
          // The page stays well under Lighthouse's 1,400-element warning, counted once the last section
          // (the spells) has drawn, so the count does not depend on how far the page had got. The
          // spells section (its timeline, a top-10 table and the chart) brings about 150 of them.
          yield* Effect.promise(() => page.locator("#spells .spell-top caption, #spells .error-text").first().waitFor({ timeout: 20_000 }))
          expect(yield* Effect.promise(() => page.evaluate(() => document.getElementsByTagName("*").length))).toBeLessThan(1_000)
          // The day view: one band chart per variable.
          expect(yield* Effect.promise(() => page.locator(".band-svg").count())).toBe(3)
          // Provenance.
          const about = yield* Effect.promise(() => page.locator("#about").textContent())
          expect(about).toContain("ERA5")
          expect(about).toContain("Open-Meteo")
          expect(about).toContain("Europe/Berlin")
          // One /cell for the place, no per-view request; no CSP violation, no script error.
          expect(calls.filter((c) => c.startsWith("/api/v2/cell") && !c.includes("prefetch=1"))).toHaveLength(1)
          expect(calls.filter((c) => /^\/api\/v2\/(grade|forecast|calendar|day)\b/.test(c))).toEqual([])
          expect(log.errors).toEqual([])
        })
      )

      it.scoped("with date= another day makes one /day request and opens that day", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const browser = yield* Chromium.Chromium
          const { lat, lon } = freshPlace()
          const { page } = yield* Chromium.scopedPage(browser)
          const calls = apiCalls(page)
          yield* Effect.promise(async () => {
            await page.goto(url(`/?lat=${lat}&lon=${lon}&date=2025-03-04`))
            await page.getByRole("heading", { name: "The day: Tue 4 March 2025" }).waitFor({ timeout: 20_000 })
          })
          expect(calls.filter((c) => c.startsWith("/api/v2/cell") && !c.includes("prefetch=1"))).toHaveLength(1)
          const days = calls.filter((c) => c.startsWith("/api/v2/day"))
          expect(days).toHaveLength(1)
          expect(days[0]).toContain("date=2025-03-04")
          // Any other day by its date, e.g. one from 1985; then back to today without a request.
          yield* Effect.promise(async () => {
            await page.getByLabel("Show another day").fill("1985-07-14")
            await page.getByRole("button", { name: "Open day" }).click()
            await page.getByRole("heading", { name: "The day: Sun 14 July 1985" }).waitFor({ timeout: 20_000 })
            await page.getByRole("button", { name: "Back to today" }).click()
            await page.waitForURL((u) => u.searchParams.get("date") === null)
          })
          expect(calls.filter((c) => c.startsWith("/api/v2/day"))).toHaveLength(2)
        })
      )
    })

    describe("picking a place", () => {
      it.scoped("a click on the world map picks that cell, outlined in the close-up, and Back returns", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const browser = yield* Chromium.Chromium
          const { lat, lon } = freshPlace()
          const { page } = yield* Chromium.scopedPage(browser)
          yield* Effect.promise(async () => {
            await page.goto(url(`/?lat=${lat}&lon=${lon}`))
            await waitForGrades(page)
            // The Equal Earth map is centred on 0°N 0°E: its middle is (about) that point.
            const map = page.locator(".worldmap svg")
            const box = (await map.boundingBox())!
            await map.click({ position: { x: box.width / 2, y: box.height / 2 } })
            await page.waitForURL((u) => u.searchParams.get("lat") !== lat)
          })
          const picked = new URL(page.url())
          expect(Math.abs(Number(picked.searchParams.get("lat")))).toBeLessThan(1.5)
          expect(Math.abs(Number(picked.searchParams.get("lon")))).toBeLessThan(1.5)
          yield* Effect.promise(() => page.locator(".place-title").getByText(/^Cell 0\.\d\d°/).waitFor({ timeout: 20_000 }))
          expect(yield* Effect.promise(() => page.locator(".cellmap .map-cell").count())).toBe(1)
          const cellText = yield* Effect.promise(() => page.locator(".place-title").textContent())
          expect(cellText).toMatch(/Cell 0\.\d\d°[NS] 0\.\d\d°[EW]/)
          // A click in the close-up one cell east picks the neighbouring cell.
          yield* Effect.promise(async () => {
            const before = new URL(page.url()).searchParams.get("lon")
            const cell = (await page.locator(".cellmap .map-cell").boundingBox())!
            const svg = (await page.locator(".cellmap svg").boundingBox())!
            await page.locator(".cellmap svg").click({
              position: { x: cell.x - svg.x + cell.width * 1.5, y: cell.y - svg.y + cell.height / 2 }
            })
            await page.waitForURL((u) => u.searchParams.get("lon") !== before)
          })
          const east = new URL(page.url())
          expect(Math.round(Number(east.searchParams.get("lon")) * 4) / 4).toBe(
            Math.round(Number(picked.searchParams.get("lon")) * 4) / 4 + 0.25
          )
          // Back returns to the map-picked place, forward to the neighbour.
          yield* Effect.promise(async () => {
            await page.goBack()
            await page.waitForURL((u) => u.searchParams.get("lon") === picked.searchParams.get("lon"))
            await page.locator(".place-title").getByText(/Cell 0\.\d\d°/).waitFor()
          })
        })
      )

      it.scoped("the Place search asks on submit only, lists what it finds, and a pick opens that place", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const { geocoder } = yield* Upstreams
          const browser = yield* Chromium.Chromium
          // The service asks Nominatim with the query normalised (trimmed, lower-cased) so answers can be shared.
          geocoder.searches.set("lisbon", [
            { display_name: "Lisboa, Portugal", lat: "38.7077", lon: "-9.1366", name: "Lisboa" },
            { display_name: "Lisbon, Maine, United States", lat: "44.0312", lon: "-70.1045", name: "Lisbon" }
          ])
          geocoder.searches.set("nowhere at all", [])
          const { page } = yield* Chromium.scopedPage(browser)
          const calls = apiCalls(page)
          yield* Effect.promise(async () => {
            await page.goto(url("/"))
            await page.getByLabel("Place", { exact: true }).fill("Nowhere at all")
            await page.waitForTimeout(300)
          })
          // Typing alone asks nothing (Nominatim forbids autocomplete).
          expect(calls.filter((c) => c.startsWith("/api/v2/places"))).toEqual([])
          yield* Effect.promise(async () => {
            await page.getByLabel("Place", { exact: true }).press("Enter")
            await page.getByText("No place found for “Nowhere at all”").waitFor({ timeout: 10_000 })
            await page.getByLabel("Place", { exact: true }).fill("Lisbon")
            await page.getByRole("button", { name: "Search" }).click()
            await page.getByRole("list", { name: "Search results" }).getByRole("link").nth(1).waitFor({ timeout: 10_000 })
          })
          expect(calls.filter((c) => c.startsWith("/api/v2/places"))).toEqual(["/api/v2/places?q=Nowhere%20at%20all", "/api/v2/places?q=Lisbon"])
          const results = page.getByRole("list", { name: "Search results" }).getByRole("link")
          expect(yield* Effect.promise(() => results.allTextContents())).toEqual(["Lisboa, Portugal", "Lisbon, Maine, United States"])
          yield* Effect.promise(async () => {
            await results.nth(1).click()
            await waitForGrades(page)
          })
          const at = new URL(page.url())
          expect([at.searchParams.get("lat"), at.searchParams.get("lon")]).toEqual(["44.0312", "-70.1045"])
          expect(yield* Effect.promise(() => page.locator(".place-title").textContent())).toContain("Cell 44.00°N 70.00°W")
        })
      )

      it.scoped("by keyboard: after Enter the next Tab reaches the results, and a chosen result moves focus to the place's heading", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const { geocoder } = yield* Upstreams
          const browser = yield* Chromium.Chromium
          geocoder.searches.set("porto", [
            { display_name: "Porto, Portugal", lat: "41.1496", lon: "-8.611", name: "Porto" },
            { display_name: "Porto Alegre, Brasil", lat: "-30.0346", lon: "-51.2177", name: "Porto Alegre" }
          ])
          const { page } = yield* Chromium.scopedPage(browser)
          const focused = () => page.evaluate(() => {
            const e = document.activeElement
            return e === null ? null : `${e.tagName.toLowerCase()}${e.id === "" ? "" : `#${e.id}`}: ${e.textContent?.trim() ?? ""}`
          })
          yield* Effect.promise(async () => {
            await page.goto(url("/"))
            await page.getByLabel("Place", { exact: true }).fill("Porto")
            // Where focus is at the moment the results enter the page, before anything else can run:
            // a Tab pressed as soon as they show must already start from their summary.
            await page.evaluate(() => {
              const at = new Promise<string>((resolve) => {
                const watch = new MutationObserver(() => {
                  if (document.querySelector(".search-results a") === null) return
                  watch.disconnect()
                  const e = document.activeElement
                  resolve(e === null ? "none" : `${e.tagName.toLowerCase()}: ${e.textContent?.trim() ?? ""}`)
                })
                watch.observe(document.body, { subtree: true, childList: true })
              })
              Object.assign(window, { focusAtResults: at })
            })
            await page.getByLabel("Place", { exact: true }).press("Enter")
          })
          expect(yield* Effect.promise(() => page.evaluate(() => (window as unknown as { focusAtResults: Promise<string> }).focusAtResults))).toBe(
            "p: 2 places found for “Porto”:"
          )
          yield* Effect.promise(() => page.keyboard.press("Tab"))
          expect(yield* Effect.promise(focused)).toBe("a: Porto, Portugal")
          yield* Effect.promise(async () => {
            await page.keyboard.press("Enter")
            await waitForGrades(page)
          })
          expect(yield* Effect.promise(focused)).toBe("h1#place-heading: Porto, Portugal")
        })
      )

      it.scoped("one way to write a place's name, whatever found it: the search, an address's coordinates, the map", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const { geocoder } = yield* Upstreams
          const browser = yield* Chromium.Chromium
          // As Nominatim answers: the country in its own language in the search's display name and
          // in the address, the code beside it. "Paris, France" from search and "Paris, FR" from the
          // map were both seen, and "Berlin, Deutschland" beside "Berlin, DE".
          const address = { city: "Paris", state: "Île-de-France", country: "France", country_code: "fr" }
          geocoder.searches.set("paris", [
            { display_name: "Paris, Île-de-France, France métropolitaine, France", lat: "48.8566", lon: "2.3522", name: "Paris", address }
          ])
          const fallback = geocoder.fallback
          geocoder.fallback = address
          yield* Effect.addFinalizer(() =>
            Effect.sync(() => {
              geocoder.fallback = fallback
            })
          )
          const { page } = yield* Chromium.scopedPage(browser)
          const heading = page.locator("h1#place-heading")
          yield* Effect.promise(async () => {
            await page.goto(url("/"))
            await page.getByLabel("Place", { exact: true }).fill("Paris")
            await page.getByLabel("Place", { exact: true }).press("Enter")
            await page.getByRole("list", { name: "Search results" }).getByRole("link").first().waitFor({ timeout: 10_000 })
          })
          expect(yield* Effect.promise(() => page.getByRole("list", { name: "Search results" }).getByRole("link").allTextContents())).toEqual(["Paris, FR"])
          yield* Effect.promise(async () => {
            await page.getByRole("list", { name: "Search results" }).getByRole("link").first().click()
            await waitForGrades(page)
          })
          expect(yield* Effect.promise(() => heading.textContent())).toBe("Paris, FR")
          // A place's coordinates (a typed or shared address): the cell's own label, the same way.
          const { lat, lon } = freshPlace()
          yield* Effect.promise(async () => {
            await page.goto(url(`/?lat=${lat}&lon=${lon}`))
            await waitForGrades(page)
            await heading.getByText("Paris, FR", { exact: true }).waitFor({ timeout: 20_000 })
          })
          // The close-up map, one cell east: a cell never looked up, named the same way.
          yield* Effect.promise(async () => {
            const cell = (await page.locator(".cellmap .map-cell").boundingBox())!
            const svg = (await page.locator(".cellmap svg").boundingBox())!
            await page.locator(".cellmap svg").click({ position: { x: cell.x - svg.x + cell.width * 1.5, y: cell.y - svg.y + cell.height / 2 } })
            await page.waitForURL((u) => u.searchParams.get("lon") !== lon)
            await waitForGrades(page)
            await heading.getByText("Paris, FR", { exact: true }).waitFor({ timeout: 20_000 })
          })
          expect(yield* Effect.promise(() => heading.textContent())).toBe("Paris, FR")
        }),
        // Three places loaded one after another.
        90_000
      )

      it.scoped("typed coordinates open that place; a bad latitude is explained", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const browser = yield* Chromium.Chromium
          const { page } = yield* Chromium.scopedPage(browser)
          yield* Effect.promise(async () => {
            await page.goto(url("/"))
            await page.getByText("Enter coordinates").click()
            await page.getByLabel("Latitude").fill("95")
            await page.getByLabel("Longitude").fill("10")
            await page.getByRole("button", { name: "Show" }).click()
            await page.getByText(/Latitude must be a number from −90/).waitFor()
            await page.getByLabel("Latitude").fill("-33.9")
            await page.getByLabel("Longitude").fill("18.4")
            await page.getByRole("button", { name: "Show" }).click()
            await waitForGrades(page)
          })
          const at = new URL(page.url())
          expect(at.searchParams.get("lat")).toBe("-33.9")
          expect(at.searchParams.get("lon")).toBe("18.4")
          expect(yield* Effect.promise(() => page.locator(".place-title").textContent())).toContain("Cell 34.00°S 18.50°E")
          // The place is remembered among the recent places.
          yield* Effect.promise(async () => {
            await page.goto(url("/"))
            await page.getByRole("navigation", { name: "Recent places" }).getByRole("link", { name: "Testville, TL" }).waitFor()
          })
        })
      )
    })

    describe("my location", () => {
      it.scoped("opens the browser's position when allowed, and says so plainly when refused", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const browser = yield* Chromium.Chromium
          const allowed = yield* Chromium.scopedPage(browser, { geolocation: { latitude: 59.33, longitude: 18.07 }, permissions: ["geolocation"] })
          yield* Effect.promise(async () => {
            await allowed.page.goto(url("/"))
            await allowed.page.getByRole("button", { name: "Use my location" }).click()
            await waitForGrades(allowed.page)
          })
          const at = new URL(allowed.page.url())
          expect([at.searchParams.get("lat"), at.searchParams.get("lon")]).toEqual(["59.33", "18.07"])
          expect(yield* Effect.promise(() => allowed.page.locator(".place-title").textContent())).toContain("Cell 59.25°N 18.00°E")
          const refused = yield* Chromium.scopedPage(browser, { permissions: [] })
          yield* Effect.promise(async () => {
            await refused.page.goto(url("/"))
            await refused.page.getByRole("button", { name: "Use my location" }).click()
            await refused.page.getByText(/Location access was refused/).waitFor({ timeout: 10_000 })
          })
          expect(new URL(refused.page.url()).searchParams.get("lat")).toBe(null)
        })
      )
    })

    describe("the calendar", () => {
      it.scoped("is a grid navigable by keyboard; each cell names date, value and percentile; Enter opens the day", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const browser = yield* Chromium.Chromium
          const { lat, lon } = freshPlace()
          const { page } = yield* Chromium.scopedPage(browser)
          const calls = apiCalls(page)
          yield* Effect.promise(async () => {
            await page.goto(url(`/?lat=${lat}&lon=${lon}`))
            await waitForGrades(page)
            await Chromium.drawWholePage(page)
            await page.getByRole("grid").waitFor()
          })
          const grid = page.getByRole("grid")
          // Exactly one cell is in the tab order: the roving tabindex.
          const tabbable = grid.locator('[role="gridcell"][tabindex="0"]')
          expect(yield* Effect.promise(() => tabbable.count())).toBe(1)
          const start = (yield* Effect.promise(() => tabbable.getAttribute("data-date")))!
          /** Presses a key, then waits for the focus to land on the next cell (the grid re-renders first). */
          const press = (key: string) =>
            Effect.promise(async () => {
              const before = await page.evaluate(() => document.activeElement?.getAttribute("data-date") ?? null)
              await page.keyboard.press(key)
              // On a cell again (not on the body while the grid re-renders), and another one.
              await page.waitForFunction(
                (b) => {
                  const now = document.activeElement?.getAttribute("data-date") ?? null
                  return now !== null && now !== b
                },
                before,
                { timeout: 10_000 }
              )
            })
          yield* Effect.promise(() => tabbable.focus())
          yield* press("ArrowLeft")
          yield* press("ArrowLeft")
          yield* press("ArrowUp")
          // Two days back, then the same day a month earlier.
          const expected = new Date(`${start}T00:00:00Z`)
          expected.setUTCDate(expected.getUTCDate() - 2)
          const day = expected.getUTCDate()
          expected.setUTCDate(1)
          expected.setUTCMonth(expected.getUTCMonth() - 1)
          const length = new Date(Date.UTC(expected.getUTCFullYear(), expected.getUTCMonth() + 1, 0)).getUTCDate()
          expected.setUTCDate(Math.min(day, length))
          const date = expected.toISOString().slice(0, 10)
          const focused = page.locator(":focus")
          expect(yield* Effect.promise(() => focused.getAttribute("data-date"))).toBe(date)
          const name = (yield* Effect.promise(() => focused.getAttribute("aria-label")))!
          expect(name).toMatch(/^\w{3} \d{1,2} \w+ \d{4}: high (−?\d+\.\d °C|no value), (percentile \d+(\.\d)?, [a-z ]+|no percentile)$/)
          expect(yield* Effect.promise(() => tabbable.getAttribute("data-date"))).toBe(date)
          // Keys pressed faster than the page paints (a held arrow key) each move one day: focus is on
          // the new cell in the render that moved it, never on the body in between.
          const burst = (key: string) =>
            Effect.promise(async () => {
              for (let i = 0; i < 3; i++) await page.keyboard.press(key)
              return page.evaluate(() => document.activeElement?.getAttribute("data-date") ?? document.activeElement?.tagName)
            })
          const threeBack = new Date(`${date}T00:00:00Z`)
          threeBack.setUTCDate(threeBack.getUTCDate() - 3)
          expect(yield* burst("ArrowLeft")).toBe(threeBack.toISOString().slice(0, 10))
          expect(yield* burst("ArrowRight")).toBe(date)
          yield* Effect.promise(async () => {
            await page.keyboard.press("Enter")
            await page.waitForURL((u) => u.searchParams.get("date") === date)
            // The whole title, anchored: the day's number alone ("20") is found in today's year ("2026").
            const month = expected.toLocaleString("en-GB", { month: "long", timeZone: "UTC" })
            const title = new RegExp(`^The day: \\w{3} ${expected.getUTCDate()} ${month} ${expected.getUTCFullYear()}$`)
            await page.locator("#day-title").filter({ hasText: title }).waitFor()
          })
          expect(calls.filter((c) => c.startsWith("/api/v2/day"))).toHaveLength(1)
          // Back returns to today: the day view follows the address.
          yield* Effect.promise(async () => {
            await page.goBack()
            await page.waitForURL((u) => u.searchParams.get("date") === null)
            const today = (await page.locator("#today-title").textContent())!.replace(/^Today, /, "")
            await page.locator("#day-title").filter({ hasText: `The day: ${today}` }).waitFor()
          })
        })
      )
    })

    describe("units", () => {
      it.scoped("default from the locale, switch to °F and inches, stay in the address and are remembered", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const browser = yield* Chromium.Chromium
          const { lat, lon } = freshPlace()
          const { page } = yield* Chromium.scopedPage(browser)
          yield* Effect.promise(async () => {
            await page.goto(url(`/?lat=${lat}&lon=${lon}`))
            await waitForGrades(page)
          })
          expect(yield* Effect.promise(() => page.locator(".grade-card").first().textContent())).toMatch(/°C/)
          yield* Effect.promise(async () => {
            await page.getByRole("radio", { name: "Imperial (°F, in)" }).check()
            await page.locator(".grade-card").first().getByText(/°F/).first().waitFor()
          })
          expect(new URL(page.url()).searchParams.get("units")).toBe("imperial")
          const cards = yield* Effect.promise(() => page.locator(".grade-card").allTextContents())
          expect(cards[0]).not.toMatch(/°C/)
          expect(cards[2]).toMatch(/\d\.\d\d in/)
          yield* Effect.promise(() => Chromium.drawWholePage(page))
          expect(yield* Effect.promise(() => page.locator(".fc-day").first().textContent())).toMatch(/°F/)
          // A link without units= in the same browser: the choice was remembered.
          yield* Effect.promise(async () => {
            await page.goto(url(`/?lat=${lat}&lon=${lon}`))
            await waitForGrades(page)
          })
          expect(yield* Effect.promise(() => page.locator(".grade-card").first().textContent())).toMatch(/°F/)
          expect(yield* Effect.promise(() => page.getByRole("radio", { name: "Imperial (°F, in)" }).isChecked())).toBe(true)
        })
      )

      it.scoped("an en-US browser starts in °F; units=metric in the address wins", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const browser = yield* Chromium.Chromium
          const { lat, lon } = freshPlace()
          const { page } = yield* Chromium.scopedPage(browser, { locale: "en-US" })
          yield* Effect.promise(async () => {
            await page.goto(url(`/?lat=${lat}&lon=${lon}`))
            await waitForGrades(page)
          })
          expect(yield* Effect.promise(() => page.locator(".grade-card").first().textContent())).toMatch(/°F/)
          yield* Effect.promise(async () => {
            await page.goto(url(`/?lat=${lat}&lon=${lon}&units=metric`))
            await waitForGrades(page)
          })
          expect(yield* Effect.promise(() => page.locator(".grade-card").first().textContent())).toMatch(/°C/)
        })
      )
    })

    describe("layout and accessibility", () => {
      it.scoped("at 375×812 the first screen shows the place and all three of today's grades; the finder and the maps follow", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const browser = yield* Chromium.Chromium
          const { lat, lon } = freshPlace()
          const { page } = yield* Chromium.scopedPage(browser, { width: 375 })
          const box = (selector: string) => Effect.promise(async () => (await page.locator(selector).first().boundingBox())!)
          yield* Effect.promise(async () => {
            await page.setViewportSize({ width: 375, height: 812 })
            await page.goto(url(`/?lat=${lat}&lon=${lon}`))
            await waitForGrades(page)
          })
          const heading = yield* box("h1")
          const lastValue = yield* Effect.promise(async () => (await page.locator(".grade-card .grade-value").nth(2).boundingBox())!)
          expect(heading.y).toBeGreaterThanOrEqual(0)
          expect(lastValue.y + lastValue.height).toBeLessThanOrEqual(812)
          expect((yield* box(".finder")).y).toBeGreaterThan(lastValue.y)
          expect((yield* box(".maps")).y).toBeGreaterThan(lastValue.y)
        })
      )

      for (const width of [375, 1280]) {
        it.scoped(`at ${width} px nothing overflows sideways, and axe finds no serious or critical violation`, () =>
          Effect.gen(function* () {
            const { url } = yield* TestServer
            const browser = yield* Chromium.Chromium
            const { lat, lon } = freshPlace()
            const { page, log } = yield* Chromium.scopedPage(browser, { width })
            yield* Effect.promise(() => watchOverflow(page))
            yield* Effect.promise(async () => {
              await page.goto(url("/"))
              await page.locator(".worldmap svg").waitFor()
            })
            expect(yield* Effect.promise(() => noOverflow(page))).toBeLessThanOrEqual(0)
            expect(yield* Effect.promise(() => Chromium.axe(page))).toEqual([])
            yield* Effect.promise(async () => {
              await page.goto(url(`/?lat=${lat}&lon=${lon}&date=2025-06-15`))
              await waitForGrades(page)
              await page.locator(".band-svg").nth(2).waitFor()
              // The maps and the sections below the grades are drawn when they come near the screen.
              await page.locator(".maps").scrollIntoViewIfNeeded()
              await page.locator(".map-land").first().waitFor()
              await Chromium.drawWholePage(page)
              await page.getByRole("grid").waitFor()
              await page.locator(".stripes-svg").waitFor()
            })
            expect(yield* Effect.promise(() => noOverflow(page))).toBeLessThanOrEqual(0)
            // Not for a frame either, while the charts were drawn.
            expect(yield* Effect.promise(() => widestOverflow(page))).toBeLessThanOrEqual(0)
            expect(yield* Effect.promise(() => Chromium.axe(page))).toEqual([])
            expect(Chromium.cspViolations(log)).toEqual([])
            expect(log.errors).toEqual([])
          })
        )
      }
    })
  })
}
