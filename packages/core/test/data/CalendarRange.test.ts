import { describe, expect, it } from "@effect/vitest"
import { CalendarRange, CivilDate } from "@climate-grade/core"
import * as FastCheck from "effect/FastCheck"

const d = (s: string) => CivilDate.parse(s)!
const record = { start: d("1940-01-01"), end: d("2026-11-17") }
const show = ({ end, start }: CalendarRange.Range) => `${CivilDate.format(start)}..${CivilDate.format(end)}`

describe("CalendarRange.resolve", () => {
  it("defaults to the 12 months ending on the record's last day", () => {
    expect(show(CalendarRange.resolve({}, record))).toBe("2025-11-18..2026-11-17")
    expect(show(CalendarRange.resolve({ months: 24 }, record))).toBe("2024-11-18..2026-11-17")
    expect(show(CalendarRange.resolve({ months: 1 }, record))).toBe("2026-10-18..2026-11-17")
  })

  it.prop(
    "every whole number of months is valid: counts past MONTHS_BEFORE_EVERY_RECORD resolve as it does, whatever the end",
    [
      FastCheck.integer({ min: 0, max: CivilDate.parse("9999-12-31")! }),
      FastCheck.oneof(
        FastCheck.integer({ min: CalendarRange.MONTHS_BEFORE_EVERY_RECORD, max: Number.MAX_SAFE_INTEGER }),
        FastCheck.constantFrom(1e300, Number.MAX_VALUE, Number.POSITIVE_INFINITY)
      )
    ],
    ([end, months]) => {
      const beyond = CalendarRange.resolve({ end, months }, record)
      expect(beyond).toEqual(CalendarRange.resolve({ end, months: CalendarRange.MONTHS_BEFORE_EVERY_RECORD }, record))
      // Past the cap the start is where "no cap at all" puts it: before the record, so its first day.
      const uncapped = CalendarRange.resolve({ end, start: d("0000-01-01") }, record)
      expect(beyond).toEqual(uncapped)
    }
  )

  it("month arithmetic clamps to month ends and respects leap days", () => {
    expect(show(CalendarRange.resolve({ end: d("2026-03-31"), months: 1 }, record))).toBe("2026-03-01..2026-03-31")
    expect(show(CalendarRange.resolve({ end: d("2024-03-31"), months: 1 }, record))).toBe("2024-03-01..2024-03-31")
    expect(show(CalendarRange.resolve({ end: d("2024-02-29"), months: 12 }, record))).toBe("2023-03-01..2024-02-29")
    expect(show(CalendarRange.resolve({ end: d("2025-02-28"), months: 12 }, record))).toBe("2024-02-29..2025-02-28")
  })

  it("clamps each bound into the record", () => {
    expect(show(CalendarRange.resolve({ start: d("1900-01-01"), end: d("1941-06-30") }, record))).toBe(
      "1940-01-01..1941-06-30"
    )
    expect(show(CalendarRange.resolve({ start: d("2026-01-01"), end: d("2030-01-01") }, record))).toBe(
      "2026-01-01..2026-11-17"
    )
  })

  it("swaps an inverted range, then caps the span at 24 months keeping the end", () => {
    expect(show(CalendarRange.resolve({ start: d("2026-06-01"), end: d("2026-01-01") }, record))).toBe(
      "2026-01-01..2026-06-01"
    )
    expect(show(CalendarRange.resolve({ start: d("2000-01-01"), end: d("2026-11-17") }, record))).toBe(
      "2024-11-18..2026-11-17"
    )
    // Swapped to 2000-01-01..2026-11-17 first, then capped keeping the end.
    expect(show(CalendarRange.resolve({ start: d("2026-11-17"), end: d("2000-01-01") }, record))).toBe(
      "2024-11-18..2026-11-17"
    )
  })

  it.prop(
    "the result lies in the record, is ordered, and spans at most 24 months",
    [
      FastCheck.option(FastCheck.integer({ min: d("1900-01-01"), max: d("2040-01-01") }), { nil: undefined }),
      FastCheck.option(FastCheck.integer({ min: d("1900-01-01"), max: d("2040-01-01") }), { nil: undefined }),
      FastCheck.option(FastCheck.integer({ min: 1, max: 600 }), { nil: undefined })
    ],
    ([start, end, months]) => {
      const range = CalendarRange.resolve({ start, end, months }, record)
      expect(range.start).toBeGreaterThanOrEqual(record.start)
      expect(range.end).toBeLessThanOrEqual(record.end)
      expect(range.start).toBeLessThanOrEqual(range.end)
      expect(range.start).toBeGreaterThanOrEqual(CivilDate.addMonths(range.end, -24) + 1)
    }
  )
})
