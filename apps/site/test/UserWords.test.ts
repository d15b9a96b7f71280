/**
 * The user's words, honest dates and the way back after signing in, in Chromium on the real server
 * with fake upstreams: the name picked in the search is the heading (the cell's label beside it, a
 * hostile name shown as text), the document title follows the place and agrees with the server's head,
 * coordinates with a decimal comma or pasted as a pair open their place, an address out of range says
 * why, refusals and geocoder failures read as words (the budget's reopening in local time), a stored
 * copy is never called "Today" by a moved device clock, and signing in from "Watch this place" comes
 * back to the place while no return address leads off the site.
 *
 * `WORDS_SCREENSHOTS=<dir>` also writes the pages at 375 px: the budget refusal, the stale copy and the
 * account page with its way back.
 */
import { describe, expect, layer } from "@effect/vitest"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { CivilDate } from "@climate-grade/core"
import { backends, Chromium, DayEdges, FakeChatProvider, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Page, Request } from "playwright-core"
import { buildSite, siteWorld, Upstreams } from "./support/SiteWorld.js"

const SHOTS = process.env.WORDS_SCREENSHOTS
const run = <A>(f: () => Promise<A>) => Effect.promise(f)
const waitForGrades = (page: Page) => page.locator(".grade-card").nth(2).waitFor({ timeout: 30_000 })
const heading = (page: Page) => page.getByRole("heading", { level: 1 }).textContent()
const title = (page: Page) => page.evaluate(() => document.title)
const shot = (page: Page, name: string) => (SHOTS === undefined ? Effect.void : run(() => page.screenshot({ path: `${SHOTS}/${name}`, fullPage: true })))

/** The `<title>` the server's head gives an address now (what a shared link previews as). */
const serverTitle = (page: Page, address: string) =>
  page.evaluate(async (u) => new DOMParser().parseFromString(await (await fetch(u)).text(), "text/html").title, address)

const apiCalls = (page: Page) => {
  const calls: Array<string> = []
  page.on("request", (r: Request) => {
    const url = new URL(r.url())
    if (url.pathname.includes("/api/v2/")) calls.push(`${url.pathname}${url.search}`)
  })
  return calls
}

/** Days since the epoch → "Mon 23 November 2026", as the page writes a date. */
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
const longDate = (iso: string) => {
  const d = new Date(`${iso}T00:00:00Z`)
  return `${WEEKDAYS[d.getUTCDay()]} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`
}

/** The page's clock moved by `days` (Date.now and new Date()); its timers run as they do. */
const moveClock = (page: Page, days: number) =>
  page.addInitScript({
    content: `(() => {
      const Real = Date, offset = ${days * 86_400_000}
      class Moved extends Real {
        constructor(...args) { if (args.length === 0) super(Real.now() + offset); else super(...args) }
        static now() { return Real.now() + offset }
      }
      globalThis.Date = Moved
    })()`
  })

for (const backend of backends) {
  layer(siteWorld({}, { backend }), { timeout: 180_000 })(`the user's words on ${backend.name}`, (it) => {
    it.scoped("a place picked in the search keeps its name as the heading, the cell's label beside it; the title follows and agrees with the server's head", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const { geocoder } = yield* Upstreams
        const browser = yield* Chromium.Chromium
        geocoder.searches.set("lisbon", [{ display_name: "Lisboa, Portugal", lat: "38.7077", lon: "-9.1366", name: "Lisboa" }])
        const { page, log } = yield* Chromium.scopedPage(browser)
        const first = url("/?lat=41.10&lon=-8.60")
        yield* run(async () => {
          await page.goto(first)
          await waitForGrades(page)
        })
        // A place without a name: its label is the heading, and the title is the server's head's for that address.
        expect(yield* run(() => heading(page))).toBe("Testville, TL")
        const firstTitle = yield* run(() => title(page))
        expect(firstTitle).toMatch(/^Testville, TL today: .+ — Climate grade$/)
        expect(yield* run(() => serverTitle(page, first))).toBe(firstTitle)

        yield* run(async () => {
          await page.getByLabel("Place", { exact: true }).fill("Lisbon")
          await page.getByLabel("Place", { exact: true }).press("Enter")
          await page.getByRole("list", { name: "Search results" }).getByRole("link", { name: "Lisboa, Portugal" }).click()
          await waitForGrades(page)
        })
        const picked = new URL(page.url())
        expect(picked.searchParams.get("name")).toBe("Lisboa, Portugal")
        expect([picked.searchParams.get("lat"), picked.searchParams.get("lon")]).toEqual(["38.7077", "-9.1366"])
        expect(yield* run(() => heading(page))).toBe("Lisboa, Portugal")
        // The cell's label stays in view beside the name, with the cell the weather is for.
        expect(yield* run(() => page.locator(".place-cell").textContent())).toBe("Testville, TL · Cell 38.75°N 9.25°W · Europe/Berlin")
        const pickedTitle = yield* run(() => title(page))
        expect(pickedTitle).toMatch(/^Lisboa, Portugal today: .+ — Climate grade$/)
        expect(yield* run(() => serverTitle(page, page.url()))).toBe(pickedTitle)
        // Back: the first place and its title again.
        yield* run(async () => {
          await page.goBack()
          await page.waitForFunction((t) => document.title === t, firstTitle, { timeout: 20_000 })
        })
        expect(yield* run(() => heading(page))).toBe("Testville, TL")
        // The recent places name it as picked, and link it with its name.
        const recent = page.getByRole("navigation", { name: "Recent places" }).getByRole("link", { name: "Lisboa, Portugal" })
        expect(new URL((yield* run(() => recent.getAttribute("href")))!, url("/")).searchParams.get("name")).toBe("Lisboa, Portugal")
        expect(log.errors).toEqual([])
      }),
      120_000
    )

    it.scoped("a hostile name is shown as text, in the heading and the title", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const browser = yield* Chromium.Chromium
        const { page, log } = yield* Chromium.scopedPage(browser)
        const hostile = `<img src=x onerror="window.__pwned=1"><b>Évora</b>`
        yield* run(async () => {
          await page.goto(url(`/?lat=38.57&lon=-7.91&name=${encodeURIComponent(hostile)}`))
          await waitForGrades(page)
        })
        expect(yield* run(() => heading(page))).toBe(hostile)
        expect(yield* run(() => page.locator("h1 img, h1 b").count())).toBe(0)
        expect(yield* run(() => page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned))).toBeUndefined()
        expect(yield* run(() => title(page))).toMatch(/^<img src=x onerror="window.__pwned=1"><b>Évora<\/b> today: /)
        expect(Chromium.cspViolations(log)).toEqual([])
      }),
      120_000
    )

    it.scoped("with the geocoder down, the example 'Berlin, DE' keeps its name", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const { geocoder } = yield* Upstreams
        const browser = yield* Chromium.Chromium
        for (const key of ["52.50,13.50", "52.5,13.5"]) geocoder.failing.add(key)
        const { page } = yield* Chromium.scopedPage(browser)
        yield* run(async () => {
          await page.goto(url("/"))
          await page.getByRole("link", { name: "Berlin, DE" }).click()
          await waitForGrades(page)
        })
        expect(new URL(page.url()).searchParams.get("name")).toBe("Berlin, DE")
        expect(yield* run(() => heading(page))).toBe("Berlin, DE")
        // No label came: the cell is named by its coordinates beside the name.
        expect(yield* run(() => page.locator(".place-cell").textContent())).toBe("Cell 52.50°N 13.50°E · Europe/Berlin")
        expect(yield* run(() => title(page))).toMatch(/^Berlin, DE today: /)
      }),
      120_000
    )

    it.scoped("coordinates with a decimal comma, or pasted as one pair, open their place in the search box and the coordinates form", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const browser = yield* Chromium.Chromium
        const { page } = yield* Chromium.scopedPage(browser)
        const calls = apiCalls(page)
        const at = () => {
          const u = new URL(page.url())
          return [u.searchParams.get("lat"), u.searchParams.get("lon")]
        }
        yield* run(() => page.goto(url("/")))
        const box = page.getByLabel("Place", { exact: true })
        for (const [text, lat, lon] of [
          ["48,85 2,35", "48.85", "2.35"],
          ["48.85, 2.35", "48.85", "2.35"],
          ["44.1 3.9", "44.1", "3.9"],
          ["43,3; 5,4", "43.3", "5.4"],
          ["40.42°N 3.70°W", "40.42", "-3.7"]
        ] as const) {
          yield* run(async () => {
            await box.fill(text)
            await box.press("Enter")
            await page.waitForURL((u) => u.searchParams.get("lat") === lat && u.searchParams.get("lon") === lon, { timeout: 10_000 })
          })
          expect(at(), text).toEqual([lat, lon])
        }
        // Coordinates need no geocoder.
        expect(calls.filter((c) => c.includes("/places"))).toEqual([])
        // A pair that is no place says why, and goes nowhere.
        yield* run(async () => {
          await box.fill("95 10")
          await box.press("Enter")
          await page.getByText("Latitude must be a number from −90 (south) to 90 (north). 95 is not.").waitFor()
        })
        expect(at()).toEqual(["40.42", "-3.7"])

        // The coordinates form: decimal commas in each field.
        yield* run(async () => {
          await page.getByText("Enter coordinates").click()
          await page.getByLabel("Latitude").fill("41,9")
          await page.getByLabel("Longitude").fill("12,5")
          await page.getByRole("button", { name: "Show" }).click()
          await page.waitForURL((u) => u.searchParams.get("lat") === "41.9" && u.searchParams.get("lon") === "12.5")
        })
        // A pair pasted into the latitude field fills both fields.
        const fields = yield* run(async () => {
          await page.getByLabel("Latitude").fill("")
          await page.getByLabel("Longitude").fill("")
          await page.getByLabel("Latitude").evaluate((input) => {
            const data = new DataTransfer()
            data.setData("text", "48,85 2,35")
            input.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }))
          })
          await page.waitForFunction(() => document.querySelectorAll<HTMLInputElement>(".coords-form input")[1]?.value !== "")
          return [await page.getByLabel("Latitude").inputValue(), await page.getByLabel("Longitude").inputValue()]
        })
        expect(fields).toEqual(["48.85", "2.35"])
        // A pair typed into one field counts when submitted.
        yield* run(async () => {
          await page.getByLabel("Latitude").fill("45.75, 4.85")
          await page.getByLabel("Longitude").fill("")
          await page.getByRole("button", { name: "Show" }).click()
          await page.waitForURL((u) => u.searchParams.get("lat") === "45.75" && u.searchParams.get("lon") === "4.85")
        })
      }),
      120_000
    )

    it.scoped("an address with coordinates out of range says why nothing is shown, and asks for nothing", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const browser = yield* Chromium.Chromium
        const { page, log } = yield* Chromium.scopedPage(browser)
        const calls = apiCalls(page)
        for (const [search, words] of [
          ["?lat=999&lon=10", "This address shows no place: its latitude, “999”, is outside −90 to 90. Pick a place below, or fix the address."],
          ["?lat=10&lon=181", "This address shows no place: its longitude, “181”, is outside −180 to 180. Pick a place below, or fix the address."],
          ["?lat=10", "This address shows no place: it gives a latitude but no longitude. Pick a place below, or fix the address."]
        ] as const) {
          yield* run(async () => {
            await page.goto(url(`/${search}`))
            await page.getByRole("alert").filter({ hasText: "This address shows no place" }).waitFor()
          })
          expect(yield* run(() => page.getByRole("alert").filter({ hasText: "This address shows no place" }).textContent())).toBe(words)
          expect(yield* run(() => title(page))).toBe("No place shown — Climate grade")
        }
        // The welcome page is still there to pick from; no data was asked for.
        expect(yield* run(() => page.getByRole("link", { name: "Berlin, DE" }).count())).toBe(1)
        expect(calls.filter((c) => c.includes("/cell"))).toEqual([])
        // Picking a place puts the explanation away.
        yield* run(async () => {
          await page.getByRole("link", { name: "Tokyo, JP" }).click()
          await page.getByRole("heading", { level: 1, name: "Tokyo, JP" }).waitFor()
        })
        expect(yield* run(() => page.getByText("This address shows no place").count())).toBe(0)
        expect(log.errors).toEqual([])
      }),
      120_000
    )

    it.scoped("a failed place search says so in words, without transport codes, and is gone with the next pick", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const { geocoder } = yield* Upstreams
        const browser = yield* Chromium.Chromium
        const { page } = yield* Chromium.scopedPage(browser)
        yield* run(() => page.goto(url("/")))
        const box = page.getByLabel("Place", { exact: true })
        const words = "The place search is not working right now. Try again later, or pick the place on the map or by its coordinates."
        yield* run(async () => {
          // For the search alone: a label an earlier test left waiting its turn must not take it.
          geocoder.searchFaults.push({ status: 500 })
          await box.fill("Faulty town")
          await box.press("Enter")
          await page.getByText(words).waitFor({ timeout: 10_000 })
        })
        const status = yield* run(() => page.locator(".search-status").textContent())
        expect(status).toBe(words)
        expect(status).not.toMatch(/geocoder|E[A-Z]{4,}|\b50\d\b/)
        // Busy: the wait in words.
        yield* run(async () => {
          geocoder.searchFaults.push({ status: 429, retryAfter: "30" })
          await box.fill("Busy town")
          await box.press("Enter")
          await page.getByText("The place search is busy right now. Try again in 30 seconds").waitFor({ timeout: 10_000 })
        })
        // The next pick (here an example place) clears it.
        yield* run(async () => {
          await page.getByRole("link", { name: "Nairobi, KE" }).click()
          await page.getByRole("heading", { level: 1, name: "Nairobi, KE" }).waitFor()
          // The search hears of the new place in an effect after the heading's paint: a moment later.
          await page.locator(".search-status .error-text").waitFor({ state: "detached", timeout: 5_000 })
        })
        expect(yield* run(() => page.locator(".search-status .error-text").count())).toBe(0)
      }),
      120_000
    )

    it.scoped("a stored copy is labelled with its day: with the device clock three days on and the API cut, today comes from the stored forecast", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const browser = yield* Chromium.Chromium
        const { context, page } = yield* Chromium.scopedPage(browser, { width: 375 })
        const address = url("/?lat=50.10&lon=8.70")
        // The stored copy's day must stay today (the cell's) while the test runs.
        yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 120_000)
        yield* run(async () => {
          await page.goto(address)
          await waitForGrades(page)
          // The sections below the grades are drawn as a reader scrolls to them.
          await Chromium.drawWholePage(page)
          await page.locator(".fc-day").first().waitFor({ timeout: 20_000 })
        })
        // The day the copy was made for: the bundle's today, the forecast's first day.
        const stored = (yield* run(() => page.locator("#today-title").textContent()))!.replace(/^Today, /, "")
        expect(yield* run(() => page.locator("#day-title").textContent())).toBe(`The day: ${stored}`)
        const [, d, month, y] = stored.split(" ")
        const storedDate = new Date(Date.UTC(Number(y), MONTHS.indexOf(month!), Number(d))).toISOString().slice(0, 10)
        expect(longDate(storedDate)).toBe(stored)

        for (const days of [3, -2]) {
          // The moved clock's own date where the cell is: three days of 24 hours can be two or
          // four dates on across a daylight-saving change.
          yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 60_000, days * 86_400_000)
          const movedDate = CivilDate.format(CivilDate.todayIn(Date.now() + days * 86_400_000, DayEdges.CELL_ZONE))
          // A clock behind the copy: its day is not today either, and no forecast day is today.
          const expectTop = days === 3 ? `Today, ${longDate(movedDate)}` : longDate(storedDate)
          const moved = yield* run(() => context.newPage())
          yield* run(async () => {
            await moveClock(moved, days)
            await moved.route("**/api/v2/**", (route) => route.abort())
            await moved.goto(address)
            await waitForGrades(moved)
            await moved.getByText(/offline/i).first().waitFor({ timeout: 20_000 })
            await Chromium.drawWholePage(moved)
            await moved.locator("#day-title").waitFor({ timeout: 20_000 })
          })
          expect(yield* run(() => moved.locator("#today-title").textContent()), `${days} days`).toBe(expectTop)
          // Nothing calls the stored copy's day "Today".
          expect(yield* run(() => moved.getByText(`Today, ${stored}`).count())).toBe(0)
          // The day view says which day it shows: the copy's own.
          expect(yield* run(() => moved.locator("#day-title").textContent())).toBe(`The day: ${stored}`)
          if (days === 3) {
            // Today's grades are the stored forecast's entry for today, which the strip marks "Today".
            const todayColumn = moved.locator(".fc-day").filter({ has: moved.locator(".fc-weekday", { hasText: /^Today$/ }) })
            expect(yield* run(() => todayColumn.count())).toBe(1)
            const [, day, name] = longDate(movedDate).split(" ")
            expect(yield* run(() => todayColumn.locator(".fc-daynum").textContent())).toBe(`${day} ${name!.slice(0, 3)}`)
            const strip = yield* run(() => todayColumn.locator(".fc-num").allTextContents())
            const cards = yield* run(() => moved.locator(".grade-card .num").allTextContents())
            expect(cards).toEqual(strip)
            expect(yield* run(() => moved.getByText(/Today's grades come from the forecast stored on/).count())).toBe(1)
            expect(yield* run(() => moved.locator(".grade-sentence").first().textContent())).toMatch(/^(Today's high|No precipitation today)/)
            yield* shot(moved, "stale-today-from-forecast-375.png")
          } else {
            expect(yield* run(() => moved.getByText(`This is a stored copy of ${stored}`).count())).toBe(1)
            expect(yield* run(() => moved.locator(".grade-sentence").first().textContent())).toMatch(new RegExp(`^On ${stored} the high`))
            expect(yield* run(() => moved.getByText(/^Today$/).count())).toBe(0)
            yield* shot(moved, "stale-375.png")
          }
          yield* run(() => moved.close())
        }
      }),
      // Up to two minutes waiting out a date change, then the pages.
      300_000
    )
  })
}

class Chat extends Context.Tag("words-test/Chat")<Chat, FakeChatProvider.FakeChatProvider>() {}

/** The service with fake upstreams (and a fake chat provider) on one database backend. */
const world = (backend: (typeof backends)[number], extra: Readonly<Record<string, string>>) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const chat = yield* FakeChatProvider.make()
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      const env = {
        ...FakeEnv.provider("CHAT", chat),
        CHAT_LABEL: "ChatApp",
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: "1980-01-01",
        ...extra
      }
      const siteDirectory = yield* buildSite()
      return Layer.mergeAll(
        testServerLayer(env, backend.layer, { siteDirectory }),
        Layer.succeed(Chat, chat),
        Chromium.layer
      )
    })
  )

for (const backend of backends) {
  // The day's budget itself, not a client's share of it.
  layer(world(backend, { WEATHER_DAILY_UNITS: "1", WEATHER_CLIENT_SHARE: "100", WEATHER_SIGNED_IN_SHARE: "0" }), { timeout: 120_000 })(`the day's budget spent, on ${backend.name}`, (it) => {
    it.scoped("a new place is refused with the server's detail and when new places open again in the person's own time", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const browser = yield* Chromium.Chromium
        const { page, log } = yield* Chromium.scopedPage(browser, { width: 375, timezoneId: "Asia/Tokyo" })
        // Not in the day's last two minutes (then the page says "try again in …", not when the
        // day opens), nor about to turn the day in Tokyo (its "today" or "tomorrow").
        yield* DayEdges.clearOfDateChange(DayEdges.BUDGET_ZONE, 150_000)
        yield* DayEdges.clearOfDateChange("Asia/Tokyo", 60_000)
        yield* run(async () => {
          await page.goto(url("/?lat=35.68&lon=139.69&name=Tokyo"))
          await page.getByText("This place could not be loaded").waitFor({ timeout: 30_000 })
        })
        const text = (yield* run(() => page.locator(".error-text").filter({ hasText: "could not be loaded" }).textContent()))!
        // 00:00 UTC is 09:00 in Tokyo: today there until 09:00, else tomorrow.
        const now = Date.now()
        const day = (t: number) => new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo" }).format(new Date(t))
        const opens = Math.ceil(now / 86_400_000) * 86_400_000
        const when = day(opens) === day(now) ? "today" : "tomorrow"
        expect(text).toMatch(
          new RegExp(
            `^This place could not be loaded: Today's weather budget \\(1 cost units\\) is spent, so no new place can be loaded until 00:00 UTC; places already loaded still answer\\. New places can be loaded again from 09:00 ${when} your time \\(in \\d+ (hours?|minutes?)( and \\d+ minutes?)?\\)\\.$`
          )
        )
        expect(yield* run(() => title(page))).toBe("Tokyo: not loaded — Climate grade")
        yield* shot(page, "budget-375.png")
        expect(log.errors.filter((e) => !e.includes("503"))).toEqual([])
      }),
      // Up to three minutes waiting out a date change, then the page.
      300_000
    )
  })
}

for (const backend of backends) describe(`signing in returns to the place, on ${backend.name}`, () => {
  layer(world(backend, { BASE_PATH: "/climate" }), { timeout: 180_000 })("under BASE_PATH=/climate", (it) => {
    it.scoped("'Sign in to watch this place' through the chat provider comes back to that place; the watched place links to it by its name", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const chat = yield* Chat
        const browser = yield* Chromium.Chromium
        chat.profile = { id: "chat-returner", username: "returner", email: "returner@example.org", verified: true }
        const { page, log } = yield* Chromium.scopedPage(browser, { width: 375 })
        const redirects: Array<string> = []
        page.on("response", (r) => {
          if (r.url().includes("/oauth/") || r.url().includes("/chat/")) {
            const location = r.headers().location
            if (r.status() === 303 && location !== undefined && location.includes("/alerts")) redirects.push(location)
          }
        })
        const place = "/climate/?lat=38.7077&lon=-9.1366&name=Lisboa%2C+Portugal"
        yield* run(async () => {
          await page.goto(url(place))
          await waitForGrades(page)
          await page.getByRole("link", { name: "Sign in to watch this place" }).click()
          await page.waitForURL((u) => u.pathname === "/climate/alerts")
          await page.getByRole("link", { name: "Sign in with ChatApp" }).waitFor()
        })
        expect(new URL(page.url()).searchParams.get("return")).toBe(place)
        // Before signing in the way back is offered already.
        expect(yield* run(() => page.getByRole("link", { name: "Back to Lisboa, Portugal" }).getAttribute("href"))).toBe(place)
        yield* run(async () => {
          await page.getByRole("link", { name: "Sign in with ChatApp" }).click()
          await page.waitForURL((u) => u.pathname === "/climate/alerts" && u.searchParams.get("oauth") === "created")
          await page.getByRole("button", { name: "Sign out" }).waitFor()
        })
        // The account redirect is the fixed one; the page carries the return itself (kept in this tab).
        expect(redirects).toEqual(["/climate/alerts?oauth=created&provider=chat&chat=created"])
        const back = page.getByRole("link", { name: "Back to Lisboa, Portugal" })
        expect(yield* run(() => back.getAttribute("href"))).toBe(place)
        expect(new URL(page.url()).searchParams.get("return")).toBe(place)
        expect(yield* run(() => Chromium.axe(page))).toEqual([])
        yield* shot(page, "account-return-375.png")
        // A reload keeps it (it is in the address now).
        yield* run(async () => {
          await page.reload()
          await back.waitFor()
        })

        // Back at the place, signed in: watch it.
        yield* run(async () => {
          await back.click()
          await page.waitForURL((u) => `${u.pathname}${u.search}` === place)
          await waitForGrades(page)
          await page.getByRole("button", { name: "Watch this place" }).click()
          await page.getByRole("button", { name: "Watching — change kinds" }).waitFor()
        })
        expect(yield* run(() => heading(page))).toBe("Lisboa, Portugal")

        // The account page lists it as a link to the place, by the name it was picked by.
        yield* run(async () => {
          await page.getByRole("link", { name: "Your watched places" }).click()
          await page.getByRole("button", { name: "Stop watching Testville, TL" }).waitFor({ timeout: 20_000 })
        })
        const watched = page.locator(".watches").getByRole("link", { name: "Lisboa, Portugal" })
        expect(yield* run(() => watched.getAttribute("href"))).toBe("./?lat=38.7077&lon=-9.1366&name=Lisboa%2C+Portugal")
        yield* run(async () => {
          await watched.click()
          await page.waitForURL((u) => `${u.pathname}${u.search}` === place)
          await page.getByRole("heading", { level: 1, name: "Lisboa, Portugal" }).waitFor()
        })
        expect(Chromium.cspViolations(log)).toEqual([])
      }),
      120_000
    )

    it.scoped("a return address that is not this site's main page is ignored, and not remembered across a sign-in", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const browser = yield* Chromium.Chromium
        const { page } = yield* Chromium.scopedPage(browser)
        // The main page's own address is taken (so the refusals below are refusals, not a page without the link).
        yield* run(async () => {
          await page.goto(url(`/climate/alerts?return=${encodeURIComponent("/climate/?lat=1&lon=2")}`))
          await page.getByRole("link", { name: "Back to 1.00°N 2.00°E" }).waitFor()
        })
        for (const raw of [
          "//evil.example",
          "https://evil.example",
          "/\\evil.example",
          "/%2F%2Fevil.example",
          "%2F%5Cevil.example",
          "/climate//evil.example",
          "/climate/%2F%2Fevil.example",
          "javascript:alert(1)",
          "/?lat=1&lon=2",
          "/elsewhere/?lat=1&lon=2",
          "/climate/alerts"
        ]) {
          for (const written of [encodeURIComponent(raw), raw.replace(/&/g, "%26")]) {
            yield* run(async () => {
              await page.goto(url(`/climate/alerts?return=${written}`))
              await page.getByRole("link", { name: "Sign in with ChatApp" }).waitFor()
            })
            expect(yield* run(() => page.getByRole("link", { name: /^Back to (?!the grades)/ }).count()), raw).toBe(0)
            expect(yield* run(() => page.getByRole("link", { name: "Back to the grades" }).getAttribute("href")), raw).toBe("./")
            expect(yield* run(() => page.locator('a[href*="evil"], a[href^="javascript"]').count()), raw).toBe(0)
          }
        }
        // Nothing of it was kept for the provider's way back either.
        yield* run(async () => {
          await page.goto(url("/climate/alerts?oauth=cancelled&provider=chat"))
          await page.getByRole("link", { name: "Sign in with ChatApp" }).waitFor()
        })
        expect(yield* run(() => page.getByRole("link", { name: /^Back to (?!the grades)/ }).count())).toBe(0)
      }),
      120_000
    )
  })
})
