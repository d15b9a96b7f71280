/**
 * Today's grade from what is held (a shared link's preview and card): never an upstream or
 * geocoder call, none when the history or a forecast reaching today is not held, and otherwise
 * the very plan the grade view makes from the same record (same token, same payload).
 */
import { describe, expect, it } from "@effect/vitest"
import { Cell, CellData, CivilDate, DataViews, GradingCache } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"

const DAY_MS = 86_400_000
const cell = Cell.fromCoordinates(38.72, -9.14)
const END = CivilDate.fromYmd({ year: 2026, month: 11, day: 20 })

const series = (start: number, days: number, shift: number) => ({
  start,
  tmax: Float64Array.from({ length: days }, (_, i) => 20 + ((i + shift) % 7)),
  tmin: Float64Array.from({ length: days }, (_, i) => 10 + ((i + shift) % 5)),
  precip: Float64Array.from({ length: days }, (_, i) => (i + shift) % 3)
})

interface World {
  readonly history: boolean
  readonly forecast: boolean
  readonly label: string | null
  /** Days after the forecast's first day that "now" falls on (past its 20 days: not reaching today). */
  readonly day: number
  readonly shift: number
}

// One record for every run (40 years: building it is the costly part); the runs vary the forecast.
const HISTORY = series(END - 40 * 365, 40 * 365 + 1, 0)

const layerFor = (world: World, upstream: boolean) => {
  const history = { timezone: "Europe/Lisbon", series: HISTORY, end: END, checkedAt: 0 }
  const forecast = { timezone: "Europe/Lisbon", series: series(END - 7, 20, world.shift + 3), stamp: 1_000, checkedAt: 1_000 }
  const never = Effect.dieMessage("an upstream call")
  const data = CellData.CellData.of({
    // The held grade may use only the held parts: the others die.
    history: () => (upstream ? Effect.succeed(history) : never),
    forecast: () => (upstream ? Effect.succeed(forecast) : never),
    label: () => (upstream ? Effect.succeed(world.label) : never),
    heldHistory: () => Effect.succeed(world.history ? Option.some(history) : Option.none()),
    heldForecast: () => Effect.succeed(world.forecast ? Option.some(forecast) : Option.none()),
    heldLabel: () => Effect.succeed(world.label),
    forecastReach: 15
  })
  return DataViews.layer.pipe(Layer.provide(GradingCache.layer()), Layer.provide(Layer.succeed(CellData.CellData, data)))
}

const worlds = FastCheck.record({
  history: FastCheck.boolean(),
  forecast: FastCheck.boolean(),
  label: FastCheck.option(FastCheck.string({ maxLength: 12 }), { nil: null }),
  day: FastCheck.integer({ min: 0, max: 24 }),
  shift: FastCheck.nat(50)
})

describe("DataViews.heldGrade", () => {
  it.effect("is the grade view's plan from the held record, or none without history or a forecast of today; never calls upstream", () =>
    Effect.gen(function* () {
      const counts = { some: 0, none: 0 }
      yield* Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(worlds, (world) =>
            Effect.runPromise(
              Effect.gen(function* () {
                // Noon UTC of a day at or after the forecast's first day (END - 7).
                yield* TestClock.setTime((END - 7 + world.day) * DAY_MS + DAY_MS / 2)
                const held = yield* Effect.flatMap(DataViews.DataViews, (v) => v.heldGrade(cell)).pipe(
                  Effect.provide(layerFor(world, false))
                )
                const expected = world.history && world.forecast && world.day < 20
                expect(Option.isSome(held)).toBe(expected)
                if (Option.isNone(held)) {
                  counts.none++
                  return
                }
                counts.some++
                const viewPlan = yield* Effect.flatMap(DataViews.DataViews, (v) => v.grade(cell)).pipe(
                  Effect.provide(layerFor(world, true))
                )
                expect(held.value.token).toBe(viewPlan.token)
                expect(held.value.key).toEqual(viewPlan.key)
                const [a, b] = [yield* held.value.build, yield* viewPlan.build]
                expect(a).toEqual(b)
                expect(a.cell.label).toBe(world.label)
              }).pipe(Effect.provide(TestContext.TestContext))
            )
          ),
          { numRuns: 150 }
        )
      )
      // Both outcomes ran many times (with 150 runs each is all but certain: P(some) = 1/4 · 20/25).
      expect(counts.some).toBeGreaterThan(10)
      expect(counts.none).toBeGreaterThan(10)
    }),
    // Each run builds a grading; on a loaded 2-core machine that is seconds in all.
    120_000
  )
})
