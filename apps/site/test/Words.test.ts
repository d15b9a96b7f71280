/**
 * The page's own rules for the user's words, honest dates and the way back after signing in, as pure
 * functions without a browser: coordinates as people write them, the address with a picked name and
 * why one shows no place, a refusal's words (the budget's local time), which day the top of the page
 * describes, and the return path that never leaves the site.
 */
import * as FastCheck from "effect/FastCheck"
import { describe, expect, it } from "vitest"
import { type Address, addressProblem, fitName, formatAddress, parseAddress, parseNumber } from "../src/address.js"
import { parsePair, readForm } from "../src/coordinates.js"
import { dayWhen, headline, verdict } from "../src/format.js"
import type { ForecastPayload, Grade, GradePayload } from "../src/payloads.js"
import { loadFailureWords, plainDetail, searchFailureWords, waitWords } from "../src/refusal.js"
import { returnPlace, safeReturn } from "../src/returnPath.js"
import { localDate, topDay } from "../src/today.js"

const pairOf = (text: string) => {
  const r = parsePair(text)
  return r.tag === "pair" ? [r.lat, r.lon] : r.tag
}

describe("coordinates as people write them", () => {
  it("a decimal comma, a real minus sign", () => {
    expect(parseNumber("48,85")).toBe(48.85)
    expect(parseNumber(" −9,1 ")).toBe(-9.1)
    expect(parseNumber("+2.35")).toBe(2.35)
    for (const no of ["", "48,85,1", "48.8.5", "1e3", "abc", "48 85", "0x10"]) expect(parseNumber(no), no).toBeNull()
  })

  it("a pair pasted in one piece, in every usual form, and this page's own cell coordinates", () => {
    for (const text of ["48.85 2.35", "48.85, 2.35", "48,85 2,35", "48,85; 2,35", "48.85;2.35", "48.85,2.35", "  48.85 ,  2.35 ", "(48.85, 2.35)"]) {
      expect(pairOf(text), text).toEqual([48.85, 2.35])
    }
    expect(pairOf("48.75°N 2.25°E")).toEqual([48.75, 2.25])
    expect(pairOf("48.75 ° N, 2.25 ° E")).toEqual([48.75, 2.25])
    expect(pairOf("33.90°S 18.40°E")).toEqual([-33.9, 18.4])
    expect(pairOf("−33,9 18,4")).toEqual([-33.9, 18.4])
    // Hemisphere letters say which is which.
    expect(pairOf("2.35E 48.85N")).toEqual([48.85, 2.35])
    expect(pairOf("70.1W 44.03N")).toEqual([44.03, -70.1])
  })

  it("a place name, or one number, is not a pair; a pair that is no place says why", () => {
    for (const text of ["Lisbon", "48,85", "48.85", "Route 66", "10 Downing Street", "New York, US", "48,85,2,35", ""]) {
      expect(pairOf(text), text).toBe("none")
    }
    expect(parsePair("95 10")).toEqual({ tag: "invalid", message: "Latitude must be a number from −90 (south) to 90 (north). 95 is not." })
    expect(parsePair("48 200")).toMatchObject({ tag: "invalid", message: expect.stringMatching(/^Longitude must be a number from −180/) })
    expect(parsePair("48N 2N")).toMatchObject({ tag: "invalid", message: expect.stringMatching(/one latitude/) })
  })

  it("any place written with a point or a comma, with any usual separator, reads back as itself", () => {
    const decimals = FastCheck.integer({ min: 0, max: 4 })
    let checked = 0
    FastCheck.assert(
      FastCheck.property(
        FastCheck.integer({ min: -900_000, max: 900_000 }),
        FastCheck.integer({ min: -1_800_000, max: 1_800_000 }),
        decimals,
        FastCheck.constantFrom(".", ","),
        FastCheck.constantFrom(" ", ", ", "; ", ";", " , "),
        (a, b, digits, point, separator) => {
          // (+ 0: "−0" reads as 0, which is the same place)
          const lat = Number((a / 10_000).toFixed(digits)) + 0
          const lon = Number((b / 10_000).toFixed(digits)) + 0
          const write = (x: number) => x.toFixed(digits).replace(".", point).replace("-", "−")
          // "48,85,2,35" is not a pair anyone can read; a comma needs a blank or a semicolon after it.
          if (point === "," && digits > 0 && separator === ";") return
          expect(pairOf(`${write(lat)}${separator}${write(lon)}`)).toEqual([lat, lon])
          expect(readForm(write(lat), write(lon))).toEqual({ tag: "pair", lat, lon })
          checked++
        }
      ),
      { numRuns: 400 }
    )
    expect(checked).toBeGreaterThan(300)
  })

  it("the coordinates form takes a number in each field, or a pair in one field with the other empty", () => {
    expect(readForm("48,85", "2,35")).toEqual({ tag: "pair", lat: 48.85, lon: 2.35 })
    expect(readForm("48.85 2.35", "")).toEqual({ tag: "pair", lat: 48.85, lon: 2.35 })
    expect(readForm("", "48,85 2,35")).toEqual({ tag: "pair", lat: 48.85, lon: 2.35 })
    expect(readForm("95", "10")).toMatchObject({ tag: "invalid", message: expect.stringMatching(/^Latitude must be a number from −90/) })
    expect(readForm("48.85", "")).toMatchObject({ tag: "invalid", message: expect.stringMatching(/^Longitude must be/) })
    expect(readForm("north", "2")).toMatchObject({ tag: "invalid", message: expect.stringMatching(/^Latitude must be/) })
  })
})

describe("the address keeps the picked name; one that shows no place says why", () => {
  it("name= is kept as text with a place, and only with one", () => {
    expect(parseAddress("?lat=38.7077&lon=-9.1366&name=Lisboa%2C+Portugal")).toMatchObject({ lat: 38.7077, lon: -9.1366, name: "Lisboa, Portugal" })
    const hostile = '<img src=x onerror="alert(1)">'
    expect(parseAddress(`?lat=1&lon=2&name=${encodeURIComponent(hostile)}`).name).toBe(hostile)
    expect(parseAddress("?name=Lisbon").name).toBeNull()
    expect(parseAddress(`?lat=1&lon=2&name=${"x".repeat(101)}`).name).toBeNull()
    expect(parseAddress("?lat=48,85&lon=2,35")).toMatchObject({ lat: 48.85, lon: 2.35 })
  })

  it("any address round-trips through the page's address, the name with it", () => {
    const name = FastCheck.string({ unit: "grapheme", minLength: 1, maxLength: 60 }).filter((s) => parseAddress(`?lat=0&lon=0&name=${encodeURIComponent(s)}`).name === s)
    let named = 0
    FastCheck.assert(
      FastCheck.property(
        FastCheck.integer({ min: -900_000, max: 900_000 }),
        FastCheck.integer({ min: -1_800_000, max: 1_800_000 }),
        FastCheck.option(name, { nil: null }),
        FastCheck.option(FastCheck.constantFrom("2025-03-04", "1975-12-31"), { nil: null }),
        FastCheck.option(FastCheck.constantFrom("metric" as const, "imperial" as const), { nil: null }),
        (a, b, n, date, units) => {
          const address: Address = { lat: a / 10_000, lon: b / 10_000, name: n, date, units }
          if (n !== null) named++
          expect(parseAddress(formatAddress(address))).toEqual(address)
        }
      ),
      { numRuns: 300 }
    )
    expect(named).toBeGreaterThan(50)
  })

  it("coordinates out of range, not numbers, or only one of the two are explained; a place or no place at all is not", () => {
    expect(addressProblem("?lat=999&lon=10")).toBe("This address shows no place: its latitude, “999”, is outside −90 to 90.")
    expect(addressProblem("?lat=10&lon=-200")).toBe("This address shows no place: its longitude, “-200”, is outside −180 to 180.")
    expect(addressProblem("?lat=abc&lon=1e9")).toBe(
      "This address shows no place: its latitude, “abc”, is not a number, and its longitude, “1e9”, is not a number."
    )
    expect(addressProblem("?lat=10")).toBe("This address shows no place: it gives a latitude but no longitude.")
    expect(addressProblem(`?lat=${"9".repeat(40)}&lon=1`)).toMatch(/“9{24}…”/)
    for (const fine of ["", "?units=metric", "?lat=48.85&lon=2.35", "?lat=48,85&lon=2,35", "?lat=-90&lon=180"]) expect(addressProblem(fine), fine).toBeNull()
    expect(parseAddress("?lat=999&lon=10")).toMatchObject({ lat: null, lon: null })
  })

  it("a geocoder label too long for an address keeps its whole leading parts", () => {
    const long = `Lisbon, ${"Androscoggin County, ".repeat(6)}Maine, United States`
    const fitted = fitName(long)!
    expect([...fitted].length).toBeLessThanOrEqual(100)
    expect(fitted).toMatch(/^Lisbon, Androscoggin County, .*County$/)
    expect(fitName("Lisboa, Portugal")).toBe("Lisboa, Portugal")
  })
})

describe("refusals in words", () => {
  // Monday 23 November 2026, 15:20 UTC: the budget opens again at 00:00 UTC, 8 h 40 min later.
  const now = Date.UTC(2026, 10, 23, 15, 20)
  const midnight = Date.UTC(2026, 10, 24)
  const BUDGET =
    "Today's weather budget (10000 cost units) is spent, so no new place can be loaded until 00:00 UTC; places already loaded still answer."
  const budget = {
    _tag: "ServerError",
    status: 503,
    detail: BUDGET,
    code: "budget-spent",
    retryAt: midnight,
    retryAfter: Math.ceil((midnight - now) / 1000) + 1
  }

  it("the day's budget: the server's detail, then when new places open again in the person's own time", () => {
    expect(loadFailureWords(budget, { now, timeZone: "Asia/Tokyo", locale: "en-GB" })).toBe(
      `${BUDGET} New places can be loaded again from 09:00 today your time (in 8 hours and 40 minutes).`
    )
    expect(loadFailureWords(budget, { now, timeZone: "Europe/Berlin", locale: "en-GB" })).toContain("from 01:00 tomorrow your time")
    expect(loadFailureWords(budget, { now, timeZone: "America/New_York", locale: "en-GB" })).toContain("from 19:00 today your time")
    // A 24-hour clock as the page's other times, whatever the browser's locale would pick.
    expect(loadFailureWords(budget, { now, timeZone: "America/New_York", locale: "en-US" })).toContain("from 19:00 today your time")
    // A client's share of the budget opens at the same moment, said the same way.
    expect(loadFailureWords({ ...budget, _tag: "RequestRejected", status: 429, code: "client-share-spent" }, { now, timeZone: "Asia/Tokyo", locale: "en-GB" })).toContain(
      "New places can be loaded again from 09:00 today your time"
    )
  })

  it("the budget is known by its code, never guessed from a wait that happens to end near midnight", () => {
    // A rate limit whose wait lands on 00:00 UTC is still a rate limit: no "opens again" sentence.
    const limited = { _tag: "ServerError", status: 503, detail: "Weather source is rate-limited; try again later.", code: "rate-limited", retryAt: midnight, retryAfter: (midnight - now) / 1000 }
    expect(loadFailureWords(limited, { now, timeZone: "Asia/Tokyo", locale: "en-GB" })).toBe(
      "Weather source is rate-limited; try again later. Try again in 8 hours and 40 minutes."
    )
    // And an answer without a code (a proxy's) gets the plain wait, whatever its length.
    expect(loadFailureWords({ _tag: "ServerError", status: 503, detail: null, retryAfter: (midnight - now) / 1000 }, { now })).toBe(
      "The weather source is busy right now. Try again in 8 hours and 40 minutes."
    )
  })

  it("other 503s, 429s and 504s in plain words with the wait; 4xx with the server's detail", () => {
    expect(loadFailureWords({ _tag: "ServerError", status: 503, detail: "Weather source is rate-limited; try again later.", retryAfter: 120 }, { now })).toBe(
      "Weather source is rate-limited; try again later. Try again in 2 minutes."
    )
    expect(loadFailureWords({ _tag: "ServerError", status: 503, detail: null, retryAfter: null }, { now })).toBe(
      "The weather source is busy right now. Try again in a minute."
    )
    expect(
      loadFailureWords(
        { _tag: "RequestRejected", status: 429, detail: "This client is already loading 2 new places; try again once one of them has loaded.", retryAfter: 5 },
        { now }
      )
    ).toBe("This client is already loading 2 new places; try again once one of them has loaded. Try again in 5 seconds.")
    expect(loadFailureWords({ _tag: "ServerError", status: 504, detail: "The archive did not answer in time.", retryAfter: null }, { now })).toBe(
      "The weather source took too long to answer. Try again in a minute."
    )
    expect(loadFailureWords({ _tag: "NetworkError" }, { now })).toMatch(/could not be reached/)
    expect(loadFailureWords({ _tag: "RequestRejected", status: 404, detail: "No weather history for this cell.", retryAfter: null }, { now })).toBe(
      "No weather history for this cell."
    )
    expect(waitWords(3600)).toBe("1 hour")
    expect(waitWords(0.2)).toBe("1 second")
  })

  it("no internal code reaches the page, whatever the server says", () => {
    expect(plainDetail("LOGIN_BAD_CREDENTIALS")).toBeNull()
    expect(plainDetail("Not this one")).toBe("Not this one.")
    const code = FastCheck.stringMatching(/^[A-Z][A-Z0-9_]{3,20}$/)
    FastCheck.assert(
      FastCheck.property(FastCheck.integer({ min: 400, max: 599 }), code, FastCheck.option(FastCheck.nat(100_000), { nil: null }), (status, detail, retryAfter) => {
        const failure = { _tag: status < 500 ? "RequestRejected" : "ServerError", status, detail, retryAfter }
        expect(loadFailureWords(failure, { now })).not.toContain(detail)
        expect(searchFailureWords({ status, detail, retryAfter })).not.toContain(detail)
      }),
      { numRuns: 300 }
    )
  })

  it("the place search's failures, in words: a 5xx's detail (which names the upstream) is not shown", () => {
    const unreachable = { status: 502, detail: "The geocoder failed: the request failed: ENOTFOUND.", retryAfter: null }
    expect(searchFailureWords(unreachable)).toBe(
      "The place search is not working right now. Try again later, or pick the place on the map or by its coordinates."
    )
    expect(searchFailureWords({ status: 503, detail: "Weather source is rate-limited; try again later.", retryAfter: 30 })).toBe(
      "The place search is busy right now. Try again in 30 seconds, or pick the place on the map or by its coordinates."
    )
    expect(searchFailureWords({ status: null, detail: null, retryAfter: null })).toMatch(/^The place search could not be reached/)
    expect(searchFailureWords({ status: 400, detail: "Query parameter 'q' must be at most 200 characters, got 201.", retryAfter: null })).toBe(
      "Query parameter 'q' must be at most 200 characters, got 201."
    )
  })
})

describe("honest dates", () => {
  it("the cell's date by the device clock, in the cell's time zone", () => {
    const late = Date.UTC(2026, 10, 23, 23, 30)
    expect(localDate(late, "Europe/Berlin")).toBe("2026-11-24")
    expect(localDate(late, "America/Los_Angeles")).toBe("2026-11-23")
    expect(localDate(late, "UTC")).toBe("2026-11-23")
    expect(localDate(late, "Mars/Olympus_Mons")).toBe("2026-11-23")
  })

  const g = (value: number, label: Grade["label"] = "near-normal"): Grade => ({ value, unit: "°C", percentile: 50, label, n: 400 })
  const cell = { lat: 52.5, lon: 13.5, label: "Berlin, DE", timezone: "Europe/Berlin" }
  const gradeOn = (date: string) => ({ view: "grade", v: 1, cell, date, issued: "2026-11-23T06:00:00Z", variables: { tmax: g(1), tmin: g(-1), precip: { ...g(0), unit: "mm" } } }) as unknown as GradePayload
  const days = (from: string, n: number) =>
    Array.from({ length: n }, (_, i) => {
      const date = new Date(Date.parse(from) + i * 86_400_000).toISOString().slice(0, 10)
      return { date, tmax: g(10 + i, "above"), tmin: g(i), precip: { ...g(0), unit: "mm" as const } }
    })
  const forecastFrom = (date: string, n = 16) => ({ view: "forecast", v: 1, cell, issued: "x", days: days(date, n) }) as unknown as ForecastPayload

  it("a stored copy three days old: today comes from the stored forecast, named today", () => {
    const top = topDay(gradeOn("2026-11-23"), forecastFrom("2026-11-23"), "2026-11-23", "2026-11-26")
    expect(top).toMatchObject({ date: "2026-11-26", isToday: true, from: "forecast" })
    expect(top.grades?.tmax.value).toBe(13)
  })

  it("a copy whose forecast does not reach today is named by its own day, never today", () => {
    expect(topDay(gradeOn("2026-11-01"), forecastFrom("2026-11-01"), "2026-11-01", "2026-11-26")).toMatchObject({ date: "2026-11-01", isToday: false })
    expect(topDay(null, null, "2026-11-01", "2026-11-26")).toMatchObject({ date: "2026-11-01", isToday: false, grades: null })
    // A device clock behind the copy: the copy's day is not today either.
    expect(topDay(gradeOn("2026-11-23"), forecastFrom("2026-11-23"), "2026-11-23", "2026-11-22")).toMatchObject({ date: "2026-11-23", isToday: false })
    expect(topDay(gradeOn("2026-11-23"), null, "2026-11-23", "2026-11-23")).toMatchObject({ date: "2026-11-23", isToday: true, from: "grade" })
  })

  it("whatever the copy's age, 'today' is said only of the device's date, with grades for it when held", () => {
    let today = 0
    let other = 0
    FastCheck.assert(
      FastCheck.property(FastCheck.integer({ min: -3, max: 30 }), FastCheck.integer({ min: 0, max: 16 }), FastCheck.boolean(), (age, length, hasGrade) => {
        const stored = "2026-11-23"
        const device = new Date(Date.parse(stored) + age * 86_400_000).toISOString().slice(0, 10)
        const forecast = length === 0 ? null : forecastFrom(stored, length)
        const top = topDay(hasGrade ? gradeOn(stored) : null, forecast, stored, device)
        expect(top.isToday).toBe(top.date === device)
        const held = (age === 0 && hasGrade) || (age >= 0 && age < length)
        expect(top.isToday && top.grades !== null).toBe(held)
        if (top.isToday) today++
        else other++
      }),
      { numRuns: 300 }
    )
    expect(today).toBeGreaterThan(30)
    expect(other).toBeGreaterThan(30)
  })

  it("the words name the day shown when it is not today", () => {
    expect(dayWhen("2026-11-23", "2026-11-23")).toBe("Today's")
    expect(dayWhen("2026-11-22", "2026-11-23")).toBe("Yesterday's")
    expect(dayWhen("2026-11-01", "2026-11-26")).toBe("On Sun 1 November 2026 the")
    const grades = { tmax: g(31.2, "much-above"), tmin: g(1), precip: { ...g(0), unit: "mm" as const } }
    grades.tmax = { ...grades.tmax, percentile: 96 }
    expect(verdict(grades, "2026-11-01")).toBe("The high on Sun 1 November 2026 is much above normal for the time of year.")
    expect(headline({ variable: "tmax", grade: grades.tmax, units: "metric", sinceYear: 1940, when: dayWhen("2026-11-01", "2026-11-26") })).toMatch(
      /^On Sun 1 November 2026 the high of 31\.2 °C is at least as warm/
    )
  })
})

describe("the way back after signing in", () => {
  const HOSTILE = [
    "//evil.example",
    "https://evil.example",
    "http://evil.example/",
    "/\\evil.example",
    "\\/evil.example",
    "/%2F%2Fevil.example",
    "%2F%2Fevil.example",
    "%2F%5Cevil.example",
    "/%5Cevil.example",
    "/%2F/evil.example",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "javascript%3Aalert(1)",
    "data:text/html,<script>alert(1)</script>",
    "/\t/evil.example",
    " /",
    "/\n",
    "/\u2215evil.example",
    "///evil.example",
    "/.//evil.example",
    "/./",
    "/alerts",
    "/?lat=1#//evil.example",
    "",
    "?lat=1"
  ]

  for (const base of ["", "/climate"]) {
    it(`refuses other origins, schemes, paths and their encoded variants (BASE_PATH "${base}")`, () => {
      const cases = [
        ...HOSTILE,
        ...HOSTILE.map((h) => `${base}${h.startsWith("/") ? h : `/${h}`}`).filter((h) => !h.startsWith(`${base}/?`) && h !== `${base}/`),
        ...HOSTILE.map(encodeURIComponent),
        ...HOSTILE.map((h) => encodeURIComponent(encodeURIComponent(h))),
        `${base}/..`,
        `${base}/../evil`,
        `${base}/%2e%2e/`,
        `${base}//evil.example`,
        `${base}/alerts?return=%2F`,
        `//evil.example${base}/`,
        `https://evil.example${base}/`
      ]
      for (const raw of cases) expect(safeReturn(raw, base), JSON.stringify(raw)).toBeNull()
      expect(safeReturn(null, base)).toBeNull()
      if (base !== "") {
        expect(safeReturn("/?lat=1&lon=2", base)).toBeNull()
        expect(safeReturn("/climatex/?lat=1", base)).toBeNull()
        expect(safeReturn("/CLIMATE/?lat=1", base)).toBeNull()
      }
    })

    it(`takes the main page's own address, keeping only a place's parameters (BASE_PATH "${base}")`, () => {
      expect(safeReturn(`${base}/`, base)).toBe(`${base}/`)
      expect(safeReturn(`${base}/?lat=38.7&lon=-9.1&name=Lisboa%2C+Portugal`, base)).toBe(`${base}/?lat=38.7&lon=-9.1&name=Lisboa%2C+Portugal`)
      // Anything else in the query goes, so nothing but a place can ride along.
      expect(safeReturn(`${base}/?lat=1&lon=2&next=%2F%2Fevil.example&return=https://evil.example`, base)).toBe(`${base}/?lat=1&lon=2`)
    })

    it(`any address of a place comes back unchanged; any text at all comes back as the main page of this site or not at all (BASE_PATH "${base}")`, () => {
      const name = FastCheck.option(FastCheck.string({ unit: "grapheme", maxLength: 40 }), { nil: null })
      FastCheck.assert(
        FastCheck.property(FastCheck.integer({ min: -900_000, max: 900_000 }), FastCheck.integer({ min: -1_800_000, max: 1_800_000 }), name, (a, b, n) => {
          const query = formatAddress({ lat: a / 10_000, lon: b / 10_000, name: n === "" ? null : n, date: null, units: null })
          const path = `${base}/${query}`
          expect(safeReturn(path, base)).toBe(path)
        }),
        { numRuns: 300 }
      )
      const origin = "https://site.example"
      const piece = FastCheck.constantFrom(
        "/",
        "//",
        "\\",
        "%2F",
        "%5C",
        "%252F",
        ":",
        "evil.example",
        "javascript:",
        "?",
        "#",
        "@",
        "..",
        ".",
        "\t",
        " ",
        "lat=1",
        "&",
        "=",
        base,
        "climate"
      )
      let accepted = 0
      FastCheck.assert(
        FastCheck.property(FastCheck.boolean(), FastCheck.array(piece, { maxLength: 8 }), FastCheck.string({ maxLength: 6 }), (page, pieces, tail) => {
          // Half of them start as the main page's path does, so some get past its first test.
          const raw = (page ? `${base}/` : "") + pieces.join("") + tail
          const path = safeReturn(raw, base)
          if (path === null) return
          accepted++
          // Wherever a browser would take it from this site's page, it stays on this site's main page.
          for (const from of [`${origin}${base}/alerts`, `${origin}${base}/alerts?return=x`]) {
            const resolved = new URL(path, from)
            expect(resolved.origin).toBe(origin)
            expect(resolved.pathname).toBe(`${base}/`)
          }
          expect(path === `${base}/` || path.startsWith(`${base}/?`)).toBe(true)
        }),
        { numRuns: 2_000 }
      )
      expect(accepted).toBeGreaterThan(20)
    })
  }

  it("names the place to go back to: its name, else its coordinates", () => {
    expect(returnPlace("/?lat=38.7&lon=-9.1&name=Lisboa%2C+Portugal")).toBe("Lisboa, Portugal")
    expect(returnPlace("/climate/?lat=38.7&lon=-9.1")).toBe("38.70°N 9.10°W")
    expect(returnPlace("/climate/")).toBe("the grades")
  })
})
