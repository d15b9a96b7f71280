/**
 * The one grading cache: a record is graded once however many ask (the views and the alert
 * evaluator share it), again only when the record's end moves; the spells' thresholds are held
 * with the grading, and left to the caller while the forecast enters them.
 */
import { describe, expect, it } from "@effect/vitest"
import { CivilDate, Grader, GradingCache, Spells } from "@climate-grade/core"
import * as Effect from "effect/Effect"

const END = CivilDate.fromYmd({ year: 2026, month: 11, day: 20 })

const series = (start: number, days: number) => ({
  start,
  tmax: Float64Array.from({ length: days }, (_, i) => 20 + (i % 7)),
  tmin: Float64Array.from({ length: days }, (_, i) => 10 + (i % 5)),
  precip: Float64Array.from({ length: days }, (_, i) => i % 3)
})

const historyTo = (end: number) => ({ timezone: "Europe/Lisbon", series: series(END - 40 * 365, end - (END - 40 * 365) + 1), end, checkedAt: 0 })

const counting = () => {
  const built: Array<number> = []
  const cache = GradingCache.make({
    makeGrading: (s) => {
      built.push(s.start + s.tmax.length - 1)
      return Grader.makeGrader(s)
    }
  })
  return { built, cache }
}

describe("GradingCache", () => {
  it.effect("grades a record once for every caller, and again only when its end moves", () =>
    Effect.gen(function* () {
      const { built, cache: make } = counting()
      const cache = yield* make
      const history = historyTo(END)
      const first = yield* cache.grading("cell-a", history)
      // The evaluator's and a view's asks for the same record: the same grading, not a second build.
      expect(yield* cache.grading("cell-a", { ...history, checkedAt: 5 })).toBe(first)
      yield* cache.thresholds("cell-a", history)
      expect(built).toEqual([END])
      // Another cell is its own entry.
      yield* cache.grading("cell-b", history)
      expect(built).toEqual([END, END])
      // The record topped up: built anew.
      const later = historyTo(END + 1)
      expect(yield* cache.grading("cell-a", later)).not.toBe(first)
      expect(built).toEqual([END, END, END + 1])
    })
  )

  it.effect("holds the spells' thresholds with the grading, and none where the forecast enters them", () =>
    Effect.gen(function* () {
      const cache = yield* GradingCache.make()
      const history = historyTo(END)
      const held = yield* cache.thresholds("cell-a", history)
      expect(Spells.thresholdsHeld(history.series, history.end)).toBe(true)
      expect(held).not.toBeUndefined()
      expect(yield* cache.thresholds("cell-a", history)).toBe(held)
      // A record whose end is within two days of its baseline's end: computed by the caller each time.
      const first = CivilDate.fromYmd({ year: 1961, month: 1, day: 1 })
      const last = CivilDate.fromYmd({ year: 1991, month: 1, day: 1 })
      const shortHistory = { timezone: "Europe/Lisbon", series: series(first, last - first + 1), end: last, checkedAt: 0 }
      expect(Spells.thresholdsHeld(shortHistory.series, shortHistory.end)).toBe(false)
      expect(yield* cache.thresholds("cell-c", shortHistory)).toBeUndefined()
    })
  )
})
