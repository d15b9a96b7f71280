/**
 * Until when a plan's ETag may be trusted without asking again (`validUntil`): never across the
 * cell's local midnight (the default date turns) but up to it, never while the label or the
 * forecast is missing (the next request may find them and change the token).
 */
import { describe, expect, it } from "@effect/vitest"
import { Cell, CellData, CivilDate, DataViews, GradingCache, UpstreamFailure } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"

// UTC+05:30: the cell's midnight is not UTC's.
const TZ = "Asia/Kolkata"
const OFFSET_MS = 5.5 * 3_600_000
const DAY_MS = 86_400_000
const HOUR_MS = 3_600_000
const cell = Cell.fromCoordinates(28.6, 77.2)
// 2026-11-23 00:00 in Kolkata.
const MIDNIGHT = CivilDate.fromYmd({ year: 2026, month: 11, day: 23 }) * DAY_MS - OFFSET_MS

const series = (start: number, days: number) => ({
  start,
  tmax: Float64Array.from({ length: days }, (_, i) => 20 + (i % 7)),
  tmin: Float64Array.from({ length: days }, (_, i) => 10 + (i % 5)),
  precip: Float64Array.from({ length: days }, (_, i) => i % 3)
})

interface World {
  readonly label: string | null
  readonly forecast: boolean
  /** When the history and forecast were last checked (they cannot change for an hour after). */
  readonly checkedAt: number
}

const views = (world: World) => {
  const end = CivilDate.fromYmd({ year: 2026, month: 11, day: 20 })
  const history = { timezone: TZ, series: series(end - 3 * 365, 3 * 365 + 1), end, checkedAt: world.checkedAt }
  const forecast = { timezone: TZ, series: series(end - 1, 20), stamp: world.checkedAt, checkedAt: world.checkedAt }
  const noForecast = new UpstreamFailure({ source: "forecast", reason: "test" })
  const data = Layer.succeed(
    CellData.CellData,
    CellData.CellData.of({
      history: () => Effect.succeed(history),
      heldHistory: () => Effect.succeed(Option.some(history)),
      forecast: () => (world.forecast ? Effect.succeed(forecast) : Effect.fail(noForecast)),
      heldForecast: () => Effect.succeed(world.forecast ? Option.some(forecast) : Option.none()),
      label: () => Effect.succeed(world.label),
      heldLabel: () => Effect.succeed(world.label),
      forecastReach: 15
    })
  )
  return DataViews.layer.pipe(Layer.provide(GradingCache.layer()), Layer.provide(data))
}

/** Every plan a request for the cell can make at `now`, by name. */
const plans = (world: World, now: number) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(now)
    const v = yield* DataViews.DataViews
    const today = CivilDate.todayIn(now, TZ)
    const all = {
      grade: yield* Effect.either(v.grade(cell)),
      forecast: yield* Effect.either(v.forecast(cell)),
      calendar: yield* Effect.either(v.calendar(cell, DataViews.BUNDLE_CALENDAR)),
      defaultDay: yield* Effect.either(v.day(cell, Option.none())),
      tomorrow: yield* Effect.either(v.day(cell, Option.some(today + 1))),
      pastDay: yield* Effect.either(v.day(cell, Option.some(today - 30)))
    }
    return all
  }).pipe(Effect.provide(views(world)))

describe("validUntil", () => {
  it.effect("never reaches past the cell's local midnight nor a minute from now nor the next hourly check", () =>
    Effect.gen(function* () {
      let nearMidnight = 0
      yield* Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(
            // From 3 minutes before the cell's midnight to 3 after, and sometimes far from it.
            FastCheck.oneof(FastCheck.integer({ min: -180_000, max: 180_000 }), FastCheck.integer({ min: -DAY_MS / 2, max: DAY_MS / 2 })),
            FastCheck.integer({ min: 0, max: 2 * HOUR_MS }),
            async (offset, age) => {
              const now = MIDNIGHT + offset
              if (Math.abs(offset) <= 60_000) nearMidnight++
              const world: World = { label: "Delhi, IN", forecast: true, checkedAt: now - age }
              const all = await Effect.runPromise(Effect.provide(plans(world, now), TestContext.TestContext))
              const nextMidnight = offset < 0 ? MIDNIGHT : MIDNIGHT + DAY_MS
              for (const [name, result] of Object.entries(all)) {
                if (result._tag === "Left") throw new Error(`${name} failed: ${String(result.left)}`)
                const until = result.right.validUntil
                expect(until, name).toBeLessThanOrEqual(now + 60_000)
                // Past the hourly check, the token may change at the next request.
                expect(until, name).toBeLessThanOrEqual(Math.max(0, now - age + HOUR_MS))
                // Views of "today" never carry their ETag across the cell's midnight.
                if (name === "grade" || name === "forecast" || name === "defaultDay") {
                  expect(until, name).toBeLessThanOrEqual(nextMidnight)
                  // In the day's last minute they are held up to that midnight (or the hourly check).
                  if (offset < 0 && offset > -60_000) expect(until, name).toBe(Math.min(MIDNIGHT, now - age + HOUR_MS))
                }
              }
            }
          ),
          { numRuns: 80 }
        )
      )
      // Not vacuous: some runs fell within a minute of the cell's midnight (about 1 in 6).
      expect(nearMidnight).toBeGreaterThanOrEqual(3)
    }))

  it.effect("within a minute of the cell's midnight, today's views are held until that midnight exactly; two minutes before, a minute on", () =>
    Effect.gen(function* () {
      const world: World = { label: "Delhi, IN", forecast: true, checkedAt: MIDNIGHT - 30 * 60_000 }
      for (const early of [30_000, 1]) {
        const close = yield* plans(world, MIDNIGHT - early)
        for (const r of [close.grade, close.forecast, close.defaultDay]) expect(r._tag === "Right" && r.right.validUntil).toBe(MIDNIGHT)
        // The next day's plans, made at midnight, are of the new date.
        const after = yield* plans(world, MIDNIGHT)
        expect(after.grade._tag === "Right" && after.grade.right.token).not.toBe(close.grade._tag === "Right" && close.grade.right.token)
      }
      const before = yield* plans(world, MIDNIGHT - 120_000)
      for (const r of [before.grade, before.forecast, before.defaultDay]) {
        expect(r._tag === "Right" && r.right.validUntil).toBe(MIDNIGHT - 60_000)
      }
    }))

  it.effect("without a label, no plan is held; without a forecast, a day that needs one is not held", () =>
    Effect.gen(function* () {
      const now = MIDNIGHT + 6 * HOUR_MS
      const unlabeled = yield* plans({ label: null, forecast: true, checkedAt: now }, now)
      for (const [name, r] of Object.entries(unlabeled)) expect(r._tag === "Right" && r.right.validUntil, name).toBe(0)
      const noForecast = yield* plans({ label: "Delhi, IN", forecast: false, checkedAt: now }, now)
      expect(noForecast.tomorrow._tag === "Right" && noForecast.tomorrow.right.validUntil).toBe(0)
      expect(noForecast.defaultDay._tag === "Right" && noForecast.defaultDay.right.validUntil).toBe(0)
      // A past day comes from the history alone: held as usual.
      expect(noForecast.pastDay._tag === "Right" && noForecast.pastDay.right.validUntil).toBe(now + 60_000)
      // And with both, the same views are held.
      const both = yield* plans({ label: "Delhi, IN", forecast: true, checkedAt: now }, now)
      expect(both.tomorrow._tag === "Right" && both.tomorrow.right.validUntil).toBe(now + 60_000)
    }))
})
