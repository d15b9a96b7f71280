/**
 * The page writes dates and figures by hand (`src/i18n/dates.ts`, the core's `formatDecimal`) rather
 * than by `Intl`, whose first formatter loads ICU's locale data on the main thread. Held here equal to
 * what `Intl` writes, which they replace, for every day of 2024–2027 in each language. (Node's ICU
 * and Chromium's write these alike; the browser tests read the same words in the page.)
 */
import { PageMessages } from "@climate-grade/core/rules"
import { afterAll, describe, expect, it } from "vitest"
import { dayAndMonth, formatStamp, longDate, monthName, shortDate, shortMonth, weekday, weekdayLong } from "../src/format.js"
import * as ar from "../src/i18n/ar.js"
import { weekdayOf } from "../src/i18n/dates.js"
import * as de from "../src/i18n/de.js"
import { en } from "../src/i18n/en.js"
import * as es from "../src/i18n/es.js"
import * as fr from "../src/i18n/fr.js"
import { type Language, setCatalog } from "../src/i18n/index.js"
import * as ja from "../src/i18n/ja.js"
import * as pt from "../src/i18n/pt.js"

const chunks = { de, fr, es, pt, ja, ar } as const

/** Every day of 2024–2027 as YYYY-MM-DD, with its instant at UTC midnight. */
const DAYS = Array.from({ length: (Date.UTC(2028, 0, 1) - Date.UTC(2024, 0, 1)) / 86_400_000 }, (_, i) => {
  const at = Date.UTC(2024, 0, 1) + i * 86_400_000
  return { date: new Date(at).toISOString().slice(0, 10), at }
})

const intl = (language: string, options: Intl.DateTimeFormatOptions) => {
  const f = new Intl.DateTimeFormat(language, { ...options, timeZone: "UTC" })
  return (at: number) => f.format(at)
}

afterAll(() => setCatalog("en", en))

describe("dates by hand", () => {
  it("find the weekday by arithmetic, as Date does", () => {
    for (const { date, at } of DAYS) {
      const [y, m, d] = date.split("-").map(Number)
      expect(weekdayOf(y!, m!, d!)).toBe(new Date(at).getUTCDay())
    }
    // Century years: 1900 is not a leap year, 2000 is.
    expect(weekdayOf(1900, 3, 1)).toBe(new Date(Date.UTC(1900, 2, 1)).getUTCDay())
    expect(weekdayOf(2000, 2, 29)).toBe(new Date(Date.UTC(2000, 1, 29)).getUTCDay())
    expect(weekdayOf(1940, 1, 1)).toBe(new Date(Date.UTC(1940, 0, 1)).getUTCDay())
  })

  for (const [language, chunk] of Object.entries(chunks) as ReadonlyArray<[Exclude<Language, "en">, (typeof chunks)[keyof typeof chunks]]>) {
    it(`write every day of 2024–2027 as Intl.DateTimeFormat writes it in ${language}`, () => {
      setCatalog(language, chunk.default, chunk.core, chunk.dates)
      const long = intl(language, { weekday: "short", day: "numeric", month: "long", year: "numeric" })
      const short = intl(language, { weekday: "short", day: "numeric", month: "short" })
      const dm = intl(language, { day: "numeric", month: "short" })
      const wd = intl(language, { weekday: "short" })
      const wdLong = intl(language, { weekday: "long" })
      for (const { date, at } of DAYS) {
        expect(longDate(date)).toBe(long(at))
        expect(shortDate(date)).toBe(short(at))
        expect(dayAndMonth(date)).toBe(dm(at))
        expect(weekday(date)).toBe(wd(at))
        expect(weekdayLong(date)).toBe(wdLong(at))
      }
      const ml = intl(language, { month: "long" })
      const ms = intl(language, { month: "short" })
      for (let month = 1; month <= 12; month++) {
        expect(monthName(month)).toBe(ml(Date.UTC(2001, month - 1, 15)))
        expect(shortMonth(month)).toBe(ms(Date.UTC(2001, month - 1, 15)))
      }
      // The core's longDate (the server's, by Intl) agrees.
      for (const { date } of DAYS.slice(0, 60)) expect(longDate(date)).toBe(PageMessages.longDate(language, date))
    })
  }

  it("write a time in UTC as the Intl formatter did, in every language", () => {
    const parts = new Intl.DateTimeFormat("en-GB", {
      timeZone: "UTC",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short"
    })
    for (const [language, chunk] of [["en", null], ...Object.entries(chunks)] as const) {
      if (chunk === null) setCatalog("en", en)
      else setCatalog(language as Exclude<Language, "en">, chunk.default, chunk.core, chunk.dates)
      for (let i = 0; i < 500; i++) {
        const ms = Date.UTC(2024, 0, 1) + i * 76_543_217
        const get = (type: string) => parts.formatToParts(ms).find((p) => p.type === type)!.value
        const expected = `${longDate(`${get("year")}-${get("month")}-${get("day")}`)}, ${get("hour")}:${get("minute")} ${get("timeZoneName")}`
        expect(formatStamp(ms, "UTC")).toBe(expected)
      }
    }
  })
})

describe("figures by hand", () => {
  it("are written as Intl.NumberFormat writes them without grouping, in each language", () => {
    const values = [0, -0, 0.04, 0.05, 0.15, 0.25, 1.005, 2.675, 9.95, 99.95, 1234.5, 98765.4321, -0.04, -3.5, -12.25, -1e6]
    for (let i = 0; i < 4000; i++) values.push((i - 2000) * 0.0137, i * 3.3333, -i / 7)
    for (const language of ["en", "de", "fr", "es", "pt", "ja", "ar"] as const) {
      for (const digits of [0, 1, 2]) {
        const f = new Intl.NumberFormat(language, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false })
        // One expectation per language and digits (thousands of `expect`s are slow): the values that differ.
        const differ = values.filter((value) => {
          const rounded = Number(value.toFixed(digits))
          const text = f.format(Math.abs(rounded))
          return PageMessages.formatDecimal(language, value, digits) !== (rounded < 0 ? `−${text}` : text)
        })
        expect(differ).toEqual([])
      }
    }
  })
})
