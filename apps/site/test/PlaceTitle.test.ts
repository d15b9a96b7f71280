/**
 * The document's title for today (the page's `placeTitle`) says what the server's head for the place's
 * address says (the card package's `ShareText`), so a tab, a history entry and a shared link's
 * preview agree. Their words come from one module, the core's `Words`.
 */
import { ShareText } from "@climate-grade/card"
import * as FastCheck from "effect/FastCheck"
import { describe, expect, it } from "vitest"
import { LEGEND } from "../src/colors.js"
import { placeName, placeTitle } from "../src/format.js"
import type { GradePayload } from "../src/payloads.js"

const units = FastCheck.constantFrom("metric" as const, "imperial" as const)

describe("a place's title", () => {
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
