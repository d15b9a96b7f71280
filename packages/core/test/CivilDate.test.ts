/**
 * `dateChangeWithin`: the first millisecond at which a place's local date turns, within a span.
 */
import { describe, expect, it } from "@effect/vitest"
import { CivilDate } from "@climate-grade/core"
import * as FastCheck from "effect/FastCheck"

const MINUTE = 60_000
const DAY_MS = 86_400_000

// Whole-hour, half-hour and quarter-hour offsets, both hemispheres' summer time, and a zone whose
// clocks sprang forward at midnight (São Paulo until 2019: the day began at 01:00).
const ZONES = [
  "UTC",
  "Europe/Berlin",
  "Asia/Kolkata",
  "Asia/Kathmandu",
  "America/St_Johns",
  "Pacific/Chatham",
  "Australia/Lord_Howe",
  "America/Sao_Paulo",
  "Pacific/Kiritimati",
  "Etc/GMT+12"
] as const

describe("dateChangeWithin", () => {
  it("finds a place's midnight to the millisecond", () => {
    // Berlin in November is UTC+1: its midnight is 23:00 UTC.
    const berlin = Date.UTC(2026, 10, 26, 23, 0, 0)
    expect(CivilDate.dateChangeWithin(berlin - 30_000, "Europe/Berlin", MINUTE)).toBe(berlin)
    expect(CivilDate.dateChangeWithin(berlin - 1, "Europe/Berlin", MINUTE)).toBe(berlin)
    // Not within the span: the date holds.
    expect(CivilDate.dateChangeWithin(berlin - 2 * MINUTE, "Europe/Berlin", MINUTE)).toBeUndefined()
    expect(CivilDate.dateChangeWithin(berlin, "Europe/Berlin", MINUTE)).toBeUndefined()
    // São Paulo, 4 November 2018: 00:00 (UTC−3) never came, the clocks went to 01:00 (UTC−2) at 03:00 UTC.
    const spring = Date.UTC(2018, 10, 4, 3, 0, 0)
    expect(CivilDate.dateChangeWithin(spring - 10_000, "America/Sao_Paulo", MINUTE)).toBe(spring)
    expect(CivilDate.todayIn(spring, "America/Sao_Paulo")).toBe(CivilDate.fromYmd({ year: 2018, month: 11, day: 4 }))
  })

  it("is the first instant of another date: the date holds just before it and up to it", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.constantFrom(...ZONES),
        FastCheck.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2040, 0, 1) }),
        // Spans from a moment to two days, so the date turns within most of them.
        FastCheck.oneof(FastCheck.integer({ min: 1, max: 2 * MINUTE }), FastCheck.integer({ min: 1, max: 2 * DAY_MS })),
        (zone, now, span) => {
          const today = CivilDate.todayIn(now, zone)
          const change = CivilDate.dateChangeWithin(now, zone, span)
          if (change === undefined) {
            expect(CivilDate.todayIn(now + span, zone)).toBe(today)
            return
          }
          expect(change).toBeGreaterThan(now)
          expect(change).toBeLessThanOrEqual(now + span)
          expect(CivilDate.todayIn(change, zone)).not.toBe(today)
          expect(CivilDate.todayIn(change - 1, zone)).toBe(today)
          // Nothing earlier turned: a few instants between now and the change are all still today.
          for (const f of [0.1, 0.5, 0.9]) expect(CivilDate.todayIn(now + Math.floor((change - 1 - now) * f), zone)).toBe(today)
        }
      ),
      { numRuns: 400 }
    )
  })
})
