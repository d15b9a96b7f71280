/**
 * The weather a cell's views are built from, spending the upstream's quota as little as it can
 * be spent (CONTRACT.md §3):
 * - history: fetched once per cell (HISTORY_START…today), then its tail topped up at most hourly;
 *   a failed top-up keeps what is held;
 * - forecast: refetched at most hourly; a failed refetch keeps the last one, stamp unchanged;
 * - label: looked up while the cell has none; a failed lookup leaves it unlabeled.
 * Concurrent requests for one cell share one upstream call of each kind (SingleFlight), and the
 * store's claim makes other processes on the same database wait for it and reuse its result.
 * Time comes from Effect's Clock, so tests move it with TestClock.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { Cell } from "../Cell.js"
import * as CivilDate from "../CivilDate.js"
import { type CellRecord, CellStore } from "./CellStore.js"
import * as DailySeries from "./DailySeries.js"
import { NoHistory, RateLimited, type UpstreamError } from "./Errors.js"
import * as SingleFlight from "./SingleFlight.js"
import { Geocoder, WeatherSource } from "./WeatherSource.js"

export const HOUR_MS = 60 * 60 * 1000

/** A cell's history as the views use it: `series` ends on `end`, the last day with a value. */
export interface History {
  readonly timezone: string
  readonly series: DailySeries.DailySeries
  readonly end: CivilDate.EpochDay
  /** When the record was last fetched or topped up: it cannot change before this + 1 hour. */
  readonly checkedAt: number
}

export interface Forecast {
  readonly timezone: string
  readonly series: DailySeries.DailySeries
  /** Epoch ms of the fetch. */
  readonly stamp: number
  /** When it was last fetched or a refetch tried: it cannot change before this + 1 hour. */
  readonly checkedAt: number
}

export interface CellDataOptions {
  readonly historyStart: CivilDate.EpochDay
  /** How many decoded cell records to keep in memory. */
  readonly cacheSize?: number
}

export class CellData extends Context.Tag("@climate-grade/core/CellData")<
  CellData,
  {
    readonly history: (cell: Cell) => Effect.Effect<History, UpstreamError | NoHistory>
    /** The history already held, without any upstream call (prefetch). */
    readonly heldHistory: (cell: Cell) => Effect.Effect<Option.Option<History>>
    readonly forecast: (cell: Cell) => Effect.Effect<Forecast, UpstreamError>
    /** The forecast already held, fresh or not, without any upstream call. */
    readonly heldForecast: (cell: Cell) => Effect.Effect<Option.Option<Forecast>>
    /** The cell's label, looked up now when it has none; null when that lookup fails. */
    readonly label: (cell: Cell) => Effect.Effect<string | null>
    /** The label held, without a lookup. */
    readonly heldLabel: (cell: Cell) => Effect.Effect<string | null>
  }
>() {}

const emptyRecord = (key: string): CellRecord => ({
  key,
  timezone: null,
  label: null,
  history: null,
  historyCheckedAt: null,
  forecast: null,
  forecastStamp: null,
  forecastCheckedAt: null
})

/** Trims a series to its last day with a value; null when it has none. */
const trimmed = (series: DailySeries.DailySeries): DailySeries.DailySeries | null => {
  const last = DailySeries.lastValueIndex(series)
  return last < 0 ? null : DailySeries.slice(series, 0, last + 1)
}

const toHistory = (record: CellRecord): Option.Option<History> =>
  record.history === null || record.timezone === null
    ? Option.none()
    : Option.some({
        timezone: record.timezone,
        series: record.history,
        end: record.history.start + DailySeries.length(record.history) - 1,
        checkedAt: record.historyCheckedAt ?? 0
      })

const toForecast = (record: CellRecord): Option.Option<Forecast> =>
  record.forecast === null || record.forecastStamp === null || record.timezone === null
    ? Option.none()
    : Option.some({
        timezone: record.timezone,
        series: record.forecast,
        stamp: record.forecastStamp,
        checkedAt: Math.max(record.forecastStamp, record.forecastCheckedAt ?? 0)
      })

export const make = (options: CellDataOptions) =>
  Effect.gen(function* () {
    const store = yield* CellStore
    const source = yield* WeatherSource
    const geocoder = yield* Geocoder
    const capacity = options.cacheSize ?? 64

    // Decoded records, least recently used first (a Map keeps insertion order).
    const cache = new Map<string, CellRecord>()
    // A hit moves a record to the most recently used end.
    const remember = (record: CellRecord) => {
      cache.delete(record.key)
      cache.set(record.key, record)
      while (cache.size > capacity) cache.delete(cache.keys().next().value!)
      return record
    }
    // Merges into what is cached now, so concurrent history and forecast updates keep each other's fields.
    const patch = (base: CellRecord, fields: Partial<CellRecord>) => remember({ ...(cache.get(base.key) ?? base), ...fields })
    const load = (key: string) =>
      Effect.map(store.load(key), (stored) => remember(Option.getOrElse(stored, () => emptyRecord(key))))
    const current = (key: string) =>
      Effect.suspend(() => {
        const hit = cache.get(key)
        return hit === undefined ? load(key) : Effect.succeed(remember(hit))
      })
    /** Inside a claim: what another process may have written meanwhile; in a lone process, what is cached. */
    const latest = (key: string) => (store.shared ? load(key) : current(key))

    const historyFlight = SingleFlight.make<History, UpstreamError | NoHistory>()
    const forecastFlight = SingleFlight.make<Forecast, UpstreamError>()
    const labelFlight = SingleFlight.make<string | null, never>()

    const fresh = (at: number | null, now: number) => at !== null && now - at < HOUR_MS

    /**
     * Until when each Open-Meteo endpoint has asked to be left alone (a 429 or 503 with
     * Retry-After). Its limits are per client, not per cell: meanwhile every call fails at once
     * with what is left of the wait, and spends nothing.
     */
    const backoff = { archive: 0, forecast: 0 }
    const upstream = <A>(kind: "archive" | "forecast", call: Effect.Effect<A, UpstreamError>) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        now < backoff[kind]
          ? Effect.fail(new RateLimited({ source: kind, retryAfterSeconds: Math.ceil((backoff[kind] - now) / 1000) }))
          : Effect.tapError(call, (error) =>
              error._tag === "RateLimited"
                ? Effect.map(Clock.currentTimeMillis, (at) => {
                    backoff[kind] = Math.max(backoff[kind], at + error.retryAfterSeconds * 1000)
                  })
                : Effect.void
            )
      )

    const coldFetch = (cell: Cell) =>
      store.exclusive(
        cell.key,
        "history",
        Effect.gen(function* () {
          // Another process may have fetched it while this one waited for the claim.
          const record = yield* latest(cell.key)
          const now = yield* Clock.currentTimeMillis
          const held = toHistory(record)
          if (Option.isSome(held)) return held.value
          if (record.historyCheckedAt !== null && fresh(record.historyCheckedAt, now)) {
            return yield* new NoHistory({ cell: cell.key })
          }
          // The cell's time zone comes with the answer: until then, no date that is still
          // tomorrow somewhere.
          const today = CivilDate.earliestToday(now)
          const fetched = yield* upstream("archive", source.archive(cell, options.historyStart, today))
          const history = trimmed(fetched.series)
          yield* store.saveHistory(cell, { timezone: fetched.timezone, history, checkedAt: now })
          const saved = patch(record, { timezone: fetched.timezone, history, historyCheckedAt: now })
          return yield* Option.match(toHistory(saved), {
            onNone: () => Effect.fail(new NoHistory({ cell: cell.key })),
            onSome: Effect.succeed
          })
        })
      )

    const topUp = (cell: Cell, held: History) =>
      store.exclusive(
        cell.key,
        "history",
        Effect.gen(function* () {
          const record = yield* latest(cell.key)
          const now = yield* Clock.currentTimeMillis
          const newest = Option.getOrElse(toHistory(record), () => held)
          if (fresh(record.historyCheckedAt, now)) return newest
          const today = CivilDate.todayIn(now, newest.timezone)
          if (newest.end + 1 > today) {
            yield* store.markHistoryChecked(cell, now)
            patch(record, { historyCheckedAt: now })
            return newest
          }
          return yield* upstream("archive", source.archive(cell, newest.end + 1, today)).pipe(
            Effect.flatMap((tail) =>
              Effect.gen(function* () {
                const merged = trimmed(DailySeries.merge(newest.series, tail.series)) ?? newest.series
                yield* store.saveHistory(cell, { timezone: newest.timezone, history: merged, checkedAt: now })
                const saved = patch(record, { history: merged, historyCheckedAt: now })
                return Option.getOrElse(toHistory(saved), () => newest)
              })
            ),
            // What is held is still served; the attempt counts, so the upstream is asked at most hourly.
            Effect.catchAll((error) =>
              Effect.gen(function* () {
                yield* Effect.logWarning(`history top-up failed for ${cell.key}; serving what is held`, error)
                yield* store.markHistoryChecked(cell, now)
                patch(record, { historyCheckedAt: now })
                return newest
              })
            )
          )
        })
      )

    /**
     * What `pick` finds fresh in the cached record, answered without a flight, a fiber or a span
     * (the hot path); else `slow`.
     */
    const cachedOr = <A, E>(key: string, pick: (record: CellRecord, now: number) => A | undefined, slow: Effect.Effect<A, E>) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const record = cache.get(key)
        const held = record === undefined ? undefined : pick(remember(record), now)
        return held !== undefined ? Effect.succeed(held) : slow
      })

    const history = (cell: Cell) =>
      cachedOr(
        cell.key,
        (record, now) => (fresh(record.historyCheckedAt, now) ? Option.getOrUndefined(toHistory(record)) : undefined),
        historyFromStore(cell)
      )

    const historyFromStore = (cell: Cell) =>
      historyFlight(
        cell.key,
        Effect.gen(function* () {
          const record = yield* current(cell.key)
          const now = yield* Clock.currentTimeMillis
          const held = toHistory(record)
          if (Option.isNone(held)) return yield* coldFetch(cell)
          if (fresh(record.historyCheckedAt, now)) return held.value
          return yield* topUp(cell, held.value)
        })
      ).pipe(Effect.withSpan("CellData.history", { attributes: { cell: cell.key } }))

    const forecast = (cell: Cell) =>
      cachedOr(
        cell.key,
        (record, now) => {
          const held = Option.getOrUndefined(toForecast(record))
          return held !== undefined && fresh(held.checkedAt, now) ? held : undefined
        },
        forecastFromStore(cell)
      )

    const forecastFromStore = (cell: Cell) =>
      forecastFlight(
        cell.key,
        Effect.gen(function* () {
          const cached = yield* current(cell.key)
          const now = yield* Clock.currentTimeMillis
          const held = toForecast(cached)
          if (Option.isSome(held) && fresh(held.value.checkedAt, now)) return held.value
          return yield* store.exclusive(
            cell.key,
            "forecast",
            Effect.gen(function* () {
              const record = yield* latest(cell.key)
              const last = toForecast(record)
              if (Option.isSome(last) && fresh(last.value.checkedAt, now)) return last.value
              return yield* upstream("forecast", source.forecast(cell)).pipe(
                Effect.flatMap((fetched) =>
                  Effect.gen(function* () {
                    yield* store.saveForecast(cell, { timezone: fetched.timezone, forecast: fetched.series, stamp: now })
                    patch(record, {
                      timezone: record.timezone ?? fetched.timezone,
                      forecast: fetched.series,
                      forecastStamp: now,
                      forecastCheckedAt: now
                    })
                    return { timezone: record.timezone ?? fetched.timezone, series: fetched.series, stamp: now, checkedAt: now }
                  })
                ),
                // A failed refetch keeps the last forecast, stamp unchanged; the attempt counts,
                // so the upstream is asked at most hourly.
                Effect.catchAll((error) =>
                  Option.match(last, {
                    onNone: () => Effect.fail(error),
                    onSome: (last) =>
                      Effect.gen(function* () {
                        yield* Effect.logWarning(`forecast refetch failed for ${cell.key}; keeping the last`, error)
                        yield* store.markForecastChecked(cell, now)
                        patch(record, { forecastCheckedAt: now })
                        return { ...last, checkedAt: now }
                      })
                  })
                )
              )
            })
          )
        })
      ).pipe(Effect.withSpan("CellData.forecast", { attributes: { cell: cell.key } }))

    const label = (cell: Cell) => cachedOr(cell.key, (record) => record.label ?? undefined, labelFromStore(cell))

    const labelFromStore = (cell: Cell) =>
      labelFlight(
        cell.key,
        Effect.gen(function* () {
          const record = yield* current(cell.key)
          if (record.label !== null) return record.label
          return yield* geocoder.label(cell).pipe(
            Effect.tap((found) =>
              Effect.zipRight(
                store.saveLabel(cell, found),
                Effect.sync(() => patch(record, { label: found }))
              )
            ),
            Effect.catchAll((error) =>
              Effect.as(Effect.logWarning(`reverse geocoding failed for ${cell.key}; the cell stays unlabeled`, error), null)
            )
          )
        })
      )

    return CellData.of({
      history,
      heldHistory: (cell) => Effect.map(current(cell.key), toHistory),
      forecast,
      heldForecast: (cell) => Effect.map(current(cell.key), toForecast),
      label,
      heldLabel: (cell) => Effect.map(current(cell.key), (r) => r.label)
    })
  })

export const layer = (options: CellDataOptions) => Layer.effect(CellData, make(options))
