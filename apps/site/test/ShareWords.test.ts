/**
 * A shared link's preview and card (packages/card) say what the page says: the same label words,
 * numbers, units, percentiles, dates and colours. The card package restates the few rules it
 * needs (the page's bundle and the server cannot share a module); this holds the two equal.
 */
import { Palette, ShareText, Words } from "@climate-grade/card"
import * as FastCheck from "effect/FastCheck"
import { describe, expect, it } from "vitest"
import { inkOnColor, LEGEND, labelColor } from "../src/colors.js"
import {
  formatCoordinates,
  formatValue,
  labelWords,
  longDate,
  ordinal,
  placeName,
  placeTitle,
  sinceYearOf,
  VARIABLE_NAME,
  VARIABLE_NOUN,
  VARIABLES
} from "../src/format.js"
import type { GradePayload } from "../src/payloads.js"

const units = FastCheck.constantFrom("metric" as const, "imperial" as const)
const unit = FastCheck.constantFrom("°C" as const, "mm" as const)

describe("the card's words and colours are the page's", () => {
  it("label words, variable names and colours for every grade", () => {
    expect(Words.VARIABLES).toEqual(VARIABLES)
    for (const variable of VARIABLES) {
      expect(Words.VARIABLE_NAME[variable]).toBe(VARIABLE_NAME[variable])
      expect(Words.VARIABLE_NOUN[variable]).toBe(VARIABLE_NOUN[variable])
      for (const label of LEGEND) {
        expect(Words.labelWords(variable, label)).toBe(labelWords(variable, label))
        expect(Palette.labelColor(variable, label)).toBe(labelColor(variable, label))
        expect(Palette.inkOnColor(Palette.labelColor(variable, label))).toBe(inkOnColor(labelColor(variable, label)))
      }
    }
  })

  it("values with units, percentiles, dates, coordinates and the record's first year", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.option(FastCheck.double({ min: -90, max: 500, noNaN: true }), { nil: null }),
        unit,
        units,
        FastCheck.double({ min: 0, max: 100, noNaN: true }),
        FastCheck.date({ min: new Date("1900-01-01"), max: new Date("2100-12-31"), noInvalidDate: true }),
        FastCheck.nat(1000),
        (value, u, system, p, when, n) => {
          const date = when.toISOString().slice(0, 10)
          expect(Words.formatValue(value, u, system)).toBe(formatValue(value, u, system))
          expect(Words.ordinal(p)).toBe(ordinal(p))
          expect(Words.longDate(date)).toBe(longDate(date))
          expect(Words.sinceYearOf(n, date)).toBe(sinceYearOf(n, date))
          const lat = Math.round(((p - 50) * 1.8) * 4) / 4
          expect(Words.formatCoordinates(lat, -lat * 2)).toBe(formatCoordinates(lat, -lat * 2))
        }
      ),
      { numRuns: 500 }
    )
  })

  it("the document's title for today is the server's head title for the place's address", () => {
    const label = FastCheck.constantFrom(...LEGEND, null)
    const grade = (unit: "°C" | "mm") =>
      FastCheck.record({
        value: FastCheck.option(FastCheck.double({ min: -60, max: 400, noNaN: true }), { nil: null }),
        unit: FastCheck.constant(unit),
        percentile: FastCheck.option(FastCheck.double({ min: 0, max: 100, noNaN: true }), { nil: null }),
        label,
        n: FastCheck.nat(500)
      })
    let named = 0
    FastCheck.assert(
      FastCheck.property(
        grade("°C"),
        grade("°C"),
        grade("mm"),
        FastCheck.option(FastCheck.constantFrom("Berlin, DE", "Lisboa, Portugal"), { nil: null }),
        FastCheck.option(FastCheck.constantFrom("Berlin, DE", "Paris", "<b>Lisbon</b> & co"), { nil: null }),
        units,
        (tmax, tmin, precip, cellLabel, name, system) => {
          const payload = {
            view: "grade",
            v: 1,
            cell: { lat: 52.5, lon: 13.5, label: cellLabel, timezone: "Europe/Berlin" },
            date: "2026-11-23",
            issued: "2026-11-23T06:00:00Z",
            variables: { tmax, tmin, precip }
          } as unknown as GradePayload
          if (name !== null) named++
          const title = placeTitle(placeName(payload.cell, name), { date: payload.date, isToday: true, grades: payload.variables }, system)
          expect(title).toBe(ShareText.forGrade(payload, name, system).title)
        }
      ),
      { numRuns: 500 }
    )
    expect(named).toBeGreaterThan(100)
  })
})
