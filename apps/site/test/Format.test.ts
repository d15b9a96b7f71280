/** The words and numbers the page prints, and the address it keeps its state in. */
import { describe, expect, it } from "vitest"
import { defaultUnits, formatAddress, parseAddress } from "../src/address.js"
import { outcomeMessage, outcomeOf, OUTCOMES } from "../src/account/outcome.js"
import { inkOnColor } from "../src/colors.js"
import { formatStamp, formatValue, headline, ordinal, sinceYearOf, verdict, whenWords } from "../src/format.js"
import type { Grade } from "../src/payloads.js"

const grade = (g: Partial<Grade>): Grade => ({ value: 31.2, unit: "°C", percentile: 96.4, label: "much-above", n: 430, ...g })

describe("headline", () => {
  it("says how unusual a value is, in words, with its unit", () => {
    expect(headline({ variable: "tmax", grade: grade({}), units: "metric", sinceYear: 1940 })).toBe(
      "Today's high of 31.2 °C is at least as warm as 96% of days around this date since 1940 — much above normal."
    )
    expect(headline({ variable: "tmin", grade: grade({ value: -3.5, percentile: 8.2, label: "much-below" }), units: "metric", sinceYear: 1940 })).toBe(
      // 100 − 8.2 is 91.8: "at least 92%" would claim more than is known.
      "Today's low of −3.5 °C is at least as cold as 91% of days around this date since 1940 — much below normal."
    )
    expect(headline({ variable: "tmax", grade: grade({}), units: "imperial", sinceYear: 1940 })).toContain("88.2 °F")
  })

  it("calls out records with the record they beat", () => {
    const text = headline({
      variable: "tmax",
      grade: grade({ value: 38.1, percentile: 100, label: "record-high" }),
      units: "metric",
      sinceYear: 1940,
      previous: { value: 37.4, date: "2003-08-08" }
    })
    expect(text).toBe("Today's high of 38.1 °C is the hottest for this time of year since 1940 — a record high (the previous highest: 37.4 °C in 2003).")
    expect(headline({ variable: "tmin", grade: grade({ value: -20, percentile: 0, label: "record-low" }), units: "metric", sinceYear: 1940 })).toContain(
      "a record low"
    )
  })

  it("explains a missing percentile (n < 30) and a missing value", () => {
    expect(headline({ variable: "tmax", grade: grade({ percentile: null, label: null, n: 12 }), units: "metric", sinceYear: null })).toBe(
      "Today's high of 31.2 °C cannot be graded: only 12 comparable days are held, and a percentile needs at least 30."
    )
    expect(headline({ variable: "precip", grade: grade({ value: null, unit: "mm" }), units: "metric", sinceYear: 1940 })).toBe(
      "Today's precipitation has no value yet."
    )
  })

  it("a dry day says how many days were dry too (the mean-kind percentile of 0 mm is half that share)", () => {
    expect(headline({ variable: "precip", grade: grade({ value: 0, unit: "mm", percentile: 31.5, label: "below" }), units: "metric", sinceYear: 1940 })).toBe(
      "No precipitation today: dry, like 63% of days around this date since 1940."
    )
  })
})

describe("verdict", () => {
  it("names today's most unusual grade, records first", () => {
    const near = grade({ percentile: 50, label: "near-normal" })
    expect(verdict({ tmax: near, tmin: near, precip: { ...near, unit: "mm" } })).toBe("Today is an ordinary day here for the time of year.")
    expect(verdict({ tmax: grade({ percentile: 70, label: "above" }), tmin: grade({ percentile: 5, label: "much-below" }), precip: near })).toBe(
      "Today's low is much below normal for the time of year."
    )
    expect(verdict({ tmax: grade({ percentile: 99, label: "record-high" }), tmin: grade({ percentile: 0.5, label: "much-below" }), precip: near })).toBe(
      "Today's high is a record high for the time of year."
    )
    const none = grade({ percentile: null, label: null, n: 3 })
    expect(verdict({ tmax: none, tmin: none, precip: none })).toBe("Today cannot be graded here yet.")
  })
})

describe("numbers", () => {
  it("print with their unit, converted, with a real minus sign and no negative zero", () => {
    expect(formatValue(12.345, "mm", "imperial")).toBe("0.49 in")
    expect(formatValue(-0.02, "°C", "metric")).toBe("0.0 °C")
    expect(formatValue(-12.3, "°C", "metric")).toBe("−12.3 °C")
    expect(formatValue(0, "°C", "imperial")).toBe("32.0 °F")
    expect(formatValue(null, "mm", "metric")).toBe("no value")
  })

  it("ordinals and the ends of the scale", () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 96].map(ordinal)).toEqual(["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "96th"])
    expect(ordinal(99.96)).toBe("99.9th")
    expect(ordinal(0.2)).toBe("0.2th")
  })

  it("the record's first year from n (5 days of every other year)", () => {
    expect(sinceYearOf(430, "2026-11-23")).toBe(1940)
    expect(sinceYearOf(0, "2026-11-23")).toBe(null)
    expect(whenWords("2026-11-24", "2026-11-23")).toBe("Tomorrow's")
  })

  it("text on a grade colour keeps contrast", () => {
    expect(inkOnColor("#053061")).toBe("#ffffff")
    expect(inkOnColor("#f2f2ee")).toBe("#1a1a1a")
    expect(inkOnColor("#d6604d")).toBe("#1a1a1a")
  })
})

describe("the address", () => {
  it("round-trips place, date and units; drops what is malformed", () => {
    expect(parseAddress("?lat=52.52&lon=13.4&date=2025-03-04&units=imperial")).toEqual({ lat: 52.52, lon: 13.4, name: null, date: "2025-03-04", units: "imperial" })
    expect(formatAddress({ lat: 52.52, lon: 13.4, name: null, date: "2025-03-04", units: "imperial" })).toBe("?lat=52.52&lon=13.4&date=2025-03-04&units=imperial")
    expect(parseAddress("?lat=95&lon=13.4&date=2025-3-4&units=kelvin")).toEqual({ lat: null, lon: null, name: null, date: null, units: null })
    expect(parseAddress("?lat=&lon=1")).toEqual({ lat: null, lon: null, name: null, date: null, units: null })
    expect(formatAddress({ lat: null, lon: null, name: null, date: null, units: null })).toBe("./")
  })

  it("units default to imperial for en-US only", () => {
    expect(defaultUnits(["en-US", "en"])).toBe("imperial")
    expect(defaultUnits(["en-GB"])).toBe("metric")
    expect(defaultUnits([])).toBe("metric")
  })
})

describe("sign-in outcomes", () => {
  it("every sign-in status has its own message, naming the provider where it matters", () => {
    const statuses = ["unavailable", "cancelled", "error", "linked", "taken", "already", "noemail", "unverified", "inactive", "mismatch", "created", "signedin"]
    expect(Object.keys(OUTCOMES).sort()).toEqual([...statuses].sort())
    const texts = statuses.map((s) => outcomeMessage(s, "Discord").text)
    expect(new Set(texts).size).toBe(statuses.length)
    expect(outcomeMessage("taken", "Discord").text).toContain("belongs to another account")
    expect(outcomeMessage("bogus", "Discord").tone).toBe("bad")
  })

  it("reads oauth and provider, or the legacy chat= parameter", () => {
    expect(outcomeOf("?oauth=linked&provider=idp")).toEqual({ status: "linked", provider: "idp" })
    expect(outcomeOf("?chat=taken")).toEqual({ status: "taken", provider: "chat" })
    expect(outcomeOf("?x=1")).toBe(null)
  })
})

describe("times", () => {
  it("are written as the page writes dates, on a 24-hour clock, with the zone named", () => {
    const at = Date.UTC(2026, 10, 28, 2, 5, 28)
    expect(formatStamp(at, "Europe/Berlin")).toBe("Sat 28 November 2026, 03:05 CET")
    expect(formatStamp(at, "UTC")).toBe("Sat 28 November 2026, 02:05 UTC")
    expect(formatStamp(at, "Australia/Sydney")).toMatch(/^Sat 28 November 2026, 13:05 (AEDT|GMT\+11)$/)
  })
})
