import { describe, expect, layer } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import {
  Cell,
  CellData,
  CellStore,
  CivilDate,
  type DailySeries,
  Geocoder,
  NoHistory,
  RateLimited,
  UpstreamFailure,
  WeatherSource
} from "@climate-grade/core"
import { CellStoreRepo, Database } from "@climate-grade/postgres"
import { backends, TestDatabase } from "@climate-grade/testing"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"

const NOW = Date.parse("2026-11-22T12:00:00Z")
const HISTORY_START = CivilDate.fromYmd({ year: 1940, month: 1, day: 1 })
const TODAY = CivilDate.todayIn(NOW, "UTC")

/** A day's synthetic value: seasonal, deterministic, one decimal; the last `lag` days before today are null. */
const seriesFor = (start: number, end: number, lag: number, empty: boolean): DailySeries.DailySeries => {
  const n = end - start + 1
  const out = { start, tmax: new Float64Array(n), tmin: new Float64Array(n), precip: new Float64Array(n) }
  for (let i = 0; i < n; i++) {
    const day = start + i
    const missing = empty || day > TODAY - lag
    const season = Math.round(100 * Math.sin((2 * Math.PI * day) / 365.25)) / 10
    out.tmax[i] = missing ? Number.NaN : 15 + season
    out.tmin[i] = missing ? Number.NaN : 5 + season
    out.precip[i] = missing ? Number.NaN : (day * 7) % 13 === 0 ? 4.2 : 0
  }
  return out
}

/** The weather upstream at the edge of the machine: counts calls, can fail, can be made slow. */
const makeUpstream = () => {
  const calls = { archive: [] as Array<[string, string]>, forecast: 0, geocoder: 0 }
  const faults = { archive: 0, forecast: 0, geocoder: 0 }
  const emptyCells = new Set<string>()
  const slowly = <A, E>(effect: Effect.Effect<A, E>) => Effect.zipRight(Effect.repeatN(Effect.yieldNow(), 20), effect)
  const source = WeatherSource.of({
    // Prices and reach as a source states them (the budget is not what this file tests).
    cost: { archive: (start, end) => Math.max(1, (end - start + 1) / 50), forecast: 1 },
    forecastReach: 15,
    archive: (cell, start, end) =>
      slowly(
        Effect.suspend(() => {
          calls.archive.push([CivilDate.format(start), CivilDate.format(end)])
          if (faults.archive > 0) {
            faults.archive--
            return Effect.fail(new RateLimited({ source: "archive", retryAfterSeconds: 30 }))
          }
          return Effect.succeed({ timezone: "Europe/Berlin", series: seriesFor(start, end, 5, emptyCells.has(cell.key)) })
        })
      ),
    forecast: () =>
      slowly(
        Effect.suspend(() => {
          calls.forecast++
          if (faults.forecast > 0) {
            faults.forecast--
            return Effect.fail(new UpstreamFailure({ source: "forecast", reason: "500" }))
          }
          return Effect.succeed({ timezone: "Europe/Berlin", series: seriesFor(TODAY - 7, TODAY + 15, -100, false) })
        })
      )
  })
  const geocoder = Geocoder.of({
    label: (cell) =>
      Effect.suspend(() => {
        calls.geocoder++
        if (faults.geocoder > 0) {
          faults.geocoder--
          return Effect.fail(new UpstreamFailure({ source: "geocoder", reason: "500" }))
        }
        return Effect.succeed(`Place ${cell.key}`)
      })
  })
  return { calls, faults, emptyCells, layer: Layer.merge(Layer.succeed(WeatherSource, source), Layer.succeed(Geocoder, geocoder)) }
}

const cellData = (upstream: ReturnType<typeof makeUpstream>) =>
  CellData.make({ historyStart: HISTORY_START }).pipe(Effect.provide(upstream.layer))

for (const backend of backends) {
  describe(`CellData over the ${backend.name} store`, () => {
    layer(Layer.provideMerge(CellStoreRepo.layer, backend.layer), { timeout: 60_000 })((it) => {
      it.scoped("a cold cell costs one archive call however many ask at once; the record is kept", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(NOW)
          const upstream = makeUpstream()
          const data = yield* cellData(upstream)
          const cell = Cell.fromCoordinates(52.52, 13.41)
          const results = yield* Effect.all(Array.from({ length: 10 }, () => data.history(cell)), {
            concurrency: "unbounded"
          })
          expect(upstream.calls.archive).toEqual([["1940-01-01", CivilDate.format(TODAY)]])
          expect(new Set(results.map((r) => r.end))).toEqual(new Set([TODAY - 5]))
          expect(results[0]!.series.start).toBe(HISTORY_START)
          expect(results[0]!.timezone).toBe("Europe/Berlin")

          // A fresh process (new cache) reads it back from the database: no upstream call.
          const again = yield* cellData(upstream)
          const loaded = yield* again.history(cell)
          expect(upstream.calls.archive).toHaveLength(1)
          expect(Array.from(loaded.series.tmax)).toEqual(Array.from(results[0]!.series.tmax))
        }))

      it.effect("closing its scope (shutdown) interrupts a cell's fetch and a label lookup under way, and their callers", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(NOW)
          const started = { archive: yield* Deferred.make<void>(), label: yield* Deferred.make<void>() }
          const interrupted = { archive: yield* Deferred.make<void>(), label: yield* Deferred.make<void>() }
          // Upstreams that take the call and never answer.
          const hang = (which: "archive" | "label") =>
            Effect.zipRight(Deferred.succeed(started[which], undefined), Effect.never).pipe(
              Effect.onInterrupt(() => Deferred.succeed(interrupted[which], undefined))
            )
          const upstreams = Layer.merge(
            Layer.succeed(
              WeatherSource,
              WeatherSource.of({ cost: { archive: () => 1, forecast: 1 }, forecastReach: 15, archive: () => hang("archive"), forecast: () => Effect.never })
            ),
            Layer.succeed(Geocoder, Geocoder.of({ label: () => hang("label") }))
          )
          const scope = yield* Scope.make()
          const data = yield* CellData.make({ historyStart: HISTORY_START }).pipe(Effect.provide(upstreams), Scope.extend(scope))
          const history = yield* Effect.fork(data.history(Cell.fromCoordinates(10.1, 20.2)))
          const label = yield* Effect.fork(data.label(Cell.fromCoordinates(10.6, 20.7)))
          yield* Deferred.await(started.archive)
          yield* Deferred.await(started.label)
          expect([yield* Deferred.isDone(interrupted.archive), yield* Deferred.isDone(interrupted.label)]).toEqual([false, false])
          yield* Scope.close(scope, Exit.void)
          expect([yield* Deferred.isDone(interrupted.archive), yield* Deferred.isDone(interrupted.label)]).toEqual([true, true])
          expect(Exit.isInterrupted(yield* Fiber.await(history))).toBe(true)
          expect(Exit.isInterrupted(yield* Fiber.await(label))).toBe(true)
        }))

      it.scoped("the first fetch ends at the earliest date on Earth, never a date that is tomorrow somewhere", () =>
        Effect.gen(function* () {
          // 05:00 UTC: 22 November in UTC and east of it, still 21 November at UTC−12.
          yield* TestClock.setTime(Date.parse("2026-11-22T05:00:00Z"))
          const upstream = makeUpstream()
          const data = yield* cellData(upstream)
          yield* data.history(Cell.fromCoordinates(20.5, -160.2))
          expect(upstream.calls.archive).toEqual([["1940-01-01", "2026-11-21"]])
        }))

      it.scoped("the tail is topped up at most hourly; a failed top-up serves what is held", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(NOW)
          const upstream = makeUpstream()
          const data = yield* cellData(upstream)
          const cell = Cell.fromCoordinates(48.14, 11.58)
          const first = yield* data.history(cell)
          yield* TestClock.adjust("59 minutes")
          yield* data.history(cell)
          expect(upstream.calls.archive).toHaveLength(1)

          yield* TestClock.adjust("1 minute")
          const topped = yield* data.history(cell)
          expect(upstream.calls.archive[1]).toEqual([CivilDate.format(first.end + 1), CivilDate.format(TODAY)])
          expect(topped.end).toBe(first.end)
          expect(topped.series.start).toBe(HISTORY_START)

          yield* TestClock.adjust("61 minutes")
          upstream.faults.archive = 1
          const held = yield* data.history(cell)
          expect(upstream.calls.archive).toHaveLength(3)
          expect(held.end).toBe(first.end)
          // The failed attempt counts: nothing more within the hour.
          yield* TestClock.adjust("30 minutes")
          yield* data.history(cell)
          expect(upstream.calls.archive).toHaveLength(3)
          // The attempt is in the database: another process (a fresh cache) waits the hour too.
          yield* (yield* cellData(upstream)).history(cell)
          expect(upstream.calls.archive).toHaveLength(3)
        }))

      it.scoped("a history with no value at all is NoHistory, and is not refetched within the hour", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(NOW)
          const upstream = makeUpstream()
          const data = yield* cellData(upstream)
          const cell = Cell.fromCoordinates(-60, -140)
          upstream.emptyCells.add(cell.key)
          expect(yield* Effect.flip(data.history(cell))).toEqual(new NoHistory({ cell: cell.key }))
          expect(yield* Effect.flip(data.history(cell))).toEqual(new NoHistory({ cell: cell.key }))
          expect(upstream.calls.archive).toHaveLength(1)
          expect(yield* data.heldHistory(cell)).toEqual(Option.none())
        }))

      it.scoped("a rate-limited cold fetch fails; until its Retry-After every archive call fails at once, spending nothing", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(NOW)
          const upstream = makeUpstream()
          const data = yield* cellData(upstream)
          const cell = Cell.fromCoordinates(40.42, -3.7)
          upstream.faults.archive = 1
          const failed = yield* Effect.either(data.history(cell))
          expect(Either.isLeft(failed) && failed.left._tag).toBe("RateLimited")
          yield* TestClock.adjust("20 seconds")
          // The limit is the client's, not the cell's: another cell waits too.
          expect(yield* Effect.flip(data.history(Cell.fromCoordinates(41, -4)))).toEqual(
            new RateLimited({ source: "archive", retryAfterSeconds: 10 })
          )
          expect(upstream.calls.archive).toHaveLength(1)
          yield* TestClock.adjust("10 seconds")
          expect((yield* data.history(cell)).end).toBe(TODAY - 5)
          expect(upstream.calls.archive).toHaveLength(2)
        }))

      it.scoped("the forecast is refetched at most hourly and a failed refetch keeps the last, stamp unchanged", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(NOW)
          const upstream = makeUpstream()
          const data = yield* cellData(upstream)
          const cell = Cell.fromCoordinates(59.33, 18.07)
          const [a, b] = yield* Effect.all([data.forecast(cell), data.forecast(cell)], { concurrency: 2 })
          expect(upstream.calls.forecast).toBe(1)
          expect(a.stamp).toBe(NOW)
          expect(b.stamp).toBe(NOW)
          yield* TestClock.adjust("59 minutes")
          expect((yield* data.forecast(cell)).stamp).toBe(NOW)
          expect(upstream.calls.forecast).toBe(1)
          yield* TestClock.adjust("1 minute")
          expect((yield* data.forecast(cell)).stamp).toBe(NOW + 3_600_000)
          expect(upstream.calls.forecast).toBe(2)
          yield* TestClock.adjust("2 hours")
          upstream.faults.forecast = 1
          const kept = yield* data.forecast(cell)
          expect(kept.stamp).toBe(NOW + 3_600_000)
          expect(upstream.calls.forecast).toBe(3)
          // The failed attempt counts: the kept forecast serves for the hour, here and in another process.
          yield* TestClock.adjust("59 minutes")
          expect((yield* data.forecast(cell)).stamp).toBe(NOW + 3_600_000)
          expect((yield* (yield* cellData(upstream)).forecast(cell)).stamp).toBe(NOW + 3_600_000)
          expect(upstream.calls.forecast).toBe(3)
          yield* TestClock.adjust("1 minute")
          expect((yield* data.forecast(cell)).stamp).toBe(NOW + 4 * 3_600_000)
          expect(upstream.calls.forecast).toBe(4)
        }))

      it.scoped("a cold forecast that fails is an error", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(NOW)
          const upstream = makeUpstream()
          const data = yield* cellData(upstream)
          upstream.faults.forecast = 1
          const failure = yield* Effect.flip(data.forecast(Cell.fromCoordinates(1, 1)))
          expect(failure._tag).toBe("UpstreamFailure")
        }))

      it.scoped("a label is looked up once; a failed lookup leaves the cell unlabeled and is tried again", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(NOW)
          const upstream = makeUpstream()
          const data = yield* cellData(upstream)
          const cell = Cell.fromCoordinates(45.46, 9.19)
          upstream.faults.geocoder = 1
          expect(yield* data.label(cell)).toBeNull()
          expect(yield* data.heldLabel(cell)).toBeNull()
          expect(yield* data.label(cell)).toBe(`Place ${cell.key}`)
          expect(yield* data.label(cell)).toBe(`Place ${cell.key}`)
          expect(upstream.calls.geocoder).toBe(2)
          const fresh = yield* cellData(upstream)
          expect(yield* fresh.heldLabel(cell)).toBe(`Place ${cell.key}`)
        }))

      it.scoped("a label saved by another lookup is read alone: null with no row or no label, else the label", () =>
        Effect.gen(function* () {
          const store = yield* CellStore
          const cell = Cell.fromCoordinates(13.2, 22.2)
          expect(yield* store.label(cell.key)).toBeNull()
          yield* store.markHistoryChecked(cell, NOW)
          expect(yield* store.label(cell.key)).toBeNull()
          yield* store.saveLabel(cell, "Ort, Land")
          expect(yield* store.label(cell.key)).toBe("Ort, Land")
        }))

      it.scoped("inside a claim, the record as it is now: reloaded from a shared server, what is held on PGlite", () =>
        Effect.gen(function* () {
          const store = yield* CellStore
          const cell = Cell.fromCoordinates(12.1, 21.1)
          yield* store.saveLabel(cell, "as stored")
          // What this process holds differs from the row, as when another process wrote it meanwhile.
          const held = { ...Option.getOrThrow(yield* store.load(cell.key)), label: "as held" }
          const latest = yield* store.latest(cell.key, Option.some(held))
          expect(Option.map(latest, (r) => r.label)).toEqual(Option.some(backend.name === "pglite" ? "as held" : "as stored"))
          // Holding nothing, every store loads.
          expect(Option.map(yield* store.latest(cell.key, Option.none()), (r) => r.label)).toEqual(Option.some("as stored"))
        }))

      // PGlite is one process; the in-process case is above.
      it.scoped.skipIf(backend.name !== "postgres")("two processes on one database fetch a cold cell's history once", () =>
        Effect.gen(function* () {
          const url = Option.getOrThrow((yield* TestDatabase).url)
          yield* TestClock.setTime(NOW)
          const upstream = makeUpstream()
          // A second connection pool stands in for a second server process.
          const otherProcess = yield* Layer.build(
            CellStoreRepo.layer.pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 4 })))
          )
          const a = yield* cellData(upstream)
          const b = yield* cellData(upstream).pipe(Effect.provide(otherProcess))
          const cell = Cell.fromCoordinates(35.68, 139.69)
          yield* Effect.all([a.history(cell), b.history(cell), a.history(cell), b.history(cell)], {
            concurrency: "unbounded"
          })
          expect(upstream.calls.archive).toHaveLength(1)
        }))

      // PGlite takes no claims.
      it.scoped.skipIf(backend.name !== "postgres")("more cells claimed at once than the pool has connections all finish (no pool starvation)", () =>
        Effect.gen(function* () {
          const url = Option.getOrThrow((yield* TestDatabase).url)
          // The server's own pool, as the service builds it.
          const store = yield* Layer.build(
            CellStoreRepo.layer.pipe(Layer.provide(Database.layer({ _tag: "Server", url: Redacted.make(url) })))
          )
          const upstream = makeUpstream()
          const data = yield* cellData(upstream).pipe(Effect.provide(store))
          const cells = Array.from({ length: 3 * Database.POOL_SIZE }, (_, i) => Cell.fromCoordinates(-30 + i, 100))
          const forecasts = yield* Effect.all(
            cells.map((cell) => data.forecast(cell)),
            { concurrency: "unbounded" }
          ).pipe(Effect.timeout("30 seconds"), Effect.withClock(Clock.make()))
          expect(forecasts).toHaveLength(cells.length)
          expect(upstream.calls.forecast).toBe(cells.length)
        }))
    })
  })
}
