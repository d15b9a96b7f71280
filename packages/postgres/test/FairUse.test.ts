/**
 * Fair use of the upstreams, over the real stores (PGlite and PostgreSQL): the daily budget of
 * the weather source's cost units kept in the database, and the geocoder queue that never holds a view.
 */
import { describe, expect, layer } from "@effect/vitest"
import {
  BudgetSpent,
  Cell,
  CellData,
  CivilDate,
  type DailySeries,
  Geocoder,
  WeatherSource
} from "@climate-grade/core"
import { BudgetLedgerRepo, CellStoreRepo } from "@climate-grade/postgres"
import { backends } from "@climate-grade/testing"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"

const NOW = Date.parse("2026-11-22T12:00:00Z")
const HISTORY_START = CivilDate.fromYmd({ year: 1940, month: 1, day: 1 })
const TODAY = CivilDate.todayIn(NOW, "UTC")
/** The fake source's prices: a unit per 50 days asked (any price does; the budget adds up what the source says). */
const PRICES = { archive: (start: number, end: number) => Math.max(1, (end - start + 1) / 50), forecast: 1 }
/** What a new cell's history costs at NOW: 1940-01-01…today. */
const COLD_COST = PRICES.archive(HISTORY_START, TODAY)

const seriesFor = (start: number, end: number): DailySeries.DailySeries => {
  const n = end - start + 1
  const out = { start, tmax: new Float64Array(n), tmin: new Float64Array(n), precip: new Float64Array(n) }
  for (let i = 0; i < n; i++) {
    out.tmax[i] = 15 + ((start + i) % 7)
    out.tmin[i] = 5 + ((start + i) % 5)
    out.precip[i] = (start + i) % 3
  }
  return out
}

/** Upstreams that count their calls; the geocoder answers after `geocoderDelay` (TestClock). */
const makeUpstream = (geocoderDelay: Duration.DurationInput = "0 millis") => {
  const calls = { archive: 0, forecast: 0, geocoder: 0 }
  const source = WeatherSource.of({
    cost: PRICES,
    forecastReach: 15,
    archive: (_cell, start, end) =>
      Effect.sync(() => {
        calls.archive++
        return { timezone: "UTC", series: seriesFor(start, Math.min(end, TODAY - 5)) }
      }),
    forecast: () =>
      Effect.sync(() => {
        calls.forecast++
        return { timezone: "UTC", series: seriesFor(TODAY - 7, TODAY + 15) }
      })
  })
  const geocoder = Geocoder.of({
    label: (cell) =>
      Effect.sync(() => void calls.geocoder++).pipe(
        Effect.zipRight(Effect.sleep(geocoderDelay)),
        Effect.as(`Place ${cell.key}`)
      )
  })
  return { calls, layer: Layer.merge(Layer.succeed(WeatherSource, source), Layer.succeed(Geocoder, geocoder)) }
}

/** A moment of real time, for real IO (the database) to go on while TestClock stands still. */
const realPause = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))

/** Moves TestClock 100 ms at a time, letting real IO run between steps, until `done` holds. */
const advanceUntil = (done: Effect.Effect<boolean>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400 && !(yield* done); i++) {
      yield* TestClock.adjust("100 millis")
      yield* realPause
    }
  })

const cellData = (upstream: ReturnType<typeof makeUpstream>, dailyUnits: number | null) =>
  CellData.make({ historyStart: HISTORY_START, dailyUnits }).pipe(Effect.provide(upstream.layer))

for (const backend of backends) {
  describe(`fair use over the ${backend.name} store`, () => {
    const stores = Layer.mergeAll(CellStoreRepo.layer, BudgetLedgerRepo.layer).pipe(Layer.provideMerge(backend.layer))
    layer(stores, { timeout: 60_000 })((it) => {
      it.scoped("past the day's budget a new cell is refused before any call; held cells go on; the next UTC day pays again", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(NOW)
          const upstream = makeUpstream()
          // Room for one new cell and a little more, not two.
          const data = yield* cellData(upstream, Math.ceil(COLD_COST * 1.5))
          const held = Cell.fromCoordinates(10, 10)
          yield* data.history(held)
          expect(upstream.calls.archive).toBe(1)

          const refused = yield* Effect.flip(data.history(Cell.fromCoordinates(11, 11)))
          expect(refused).toEqual(
            new BudgetSpent({ dailyUnits: Math.ceil(COLD_COST * 1.5), keptForSignedIn: false, signedInUnits: 0, retryAfterSeconds: 12 * 3600 })
          )
          expect(upstream.calls.archive).toBe(1)

          // The held cell's top-up and forecast are not refused (they are recorded).
          yield* TestClock.adjust("61 minutes")
          yield* data.history(held)
          yield* data.forecast(held)
          expect(upstream.calls.archive).toBe(2)
          expect(upstream.calls.forecast).toBe(1)

          // At 00:00 UTC the budget's day rolls over.
          yield* TestClock.setTime(Date.parse("2026-11-23T00:00:00Z"))
          yield* data.history(Cell.fromCoordinates(11, 11))
          expect(upstream.calls.archive).toBe(3)
        }))

      it.scoped("instances racing for the day's last units: exactly one new cell gets them (the ledger is shared)", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(Date.parse("2026-12-01T08:00:00Z"))
          const upstream = makeUpstream()
          const limit = Math.ceil(PRICES.archive(HISTORY_START, TODAY + 9) * 1.5)
          const instances = yield* Effect.all(Array.from({ length: 4 }, () => cellData(upstream, limit)))
          const outcomes = yield* Effect.all(
            instances.map((data, i) => Effect.either(data.history(Cell.fromCoordinates(20 + i, 20)))),
            { concurrency: "unbounded" }
          )
          expect(outcomes.filter((o) => o._tag === "Right")).toHaveLength(1)
          expect(outcomes.filter((o) => o._tag === "Left" && o.left._tag === "BudgetSpent")).toHaveLength(3)
          expect(upstream.calls.archive).toBe(1)
        }))

      it.scoped("a label queued behind another never holds a view more than the wait: null now, the label once it arrives, one lookup", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(NOW)
          const upstream = makeUpstream("10 seconds")
          const [a, b] = yield* Effect.all([cellData(upstream, null), cellData(upstream, null)])
          const first = Cell.fromCoordinates(31, 31)
          const cell = Cell.fromCoordinates(30, 30)
          // A lone lookup is waited for (the geocoder's timeout bounds it); these make a queue in
          // each instance.
          const alone = yield* Effect.fork(
            Effect.all([a.label(first), b.label(Cell.fromCoordinates(32, 32))], { concurrency: "unbounded" })
          )
          yield* advanceUntil(Effect.sync(() => upstream.calls.geocoder === 2))
          const started = yield* TestClock.currentTimeMillis
          const asked = yield* Effect.fork(Effect.all([a.label(cell), b.label(cell), a.label(cell)], { concurrency: "unbounded" }))
          yield* advanceUntil(Effect.map(Fiber.poll(asked), (exit) => exit._tag === "Some"))
          expect(yield* Fiber.join(asked)).toEqual([null, null, null])
          // Answered after the 2 s wait, long before the geocoder's 10 s.
          expect((yield* TestClock.currentTimeMillis) - started).toBeLessThanOrEqual(2_500)
          // The lookup goes on in the background and labels the cell, for every instance.
          yield* advanceUntil(Effect.map(a.heldLabel(cell), (label) => label !== null))
          expect(yield* a.label(cell)).toBe("Place 30.00,30.00")
          expect(yield* b.label(cell)).toBe("Place 30.00,30.00")
          expect(yield* Fiber.join(alone)).toEqual(["Place 31.00,31.00", "Place 32.00,32.00"])
          // One lookup per cell: the two first cells' and this one's.
          expect(upstream.calls.geocoder).toBe(3)
        }))
    })
  })
}
