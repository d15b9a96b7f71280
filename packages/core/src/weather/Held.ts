/**
 * What a cell's record holds, as the views use it, and when it is fresh. Pure functions over a
 * `CellRecord`, shared by the record cache and the three flows.
 */
import * as Option from "effect/Option"
import type * as CivilDate from "../CivilDate.js"
import type { CellRecord } from "./CellStore.js"
import * as DailySeries from "./DailySeries.js"

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

/** Whether something checked at `at` may still be served at `now` without asking the upstream (hourly). */
export const fresh = (at: number | null, now: number) => at !== null && now - at < HOUR_MS

export const emptyRecord = (key: string): CellRecord => ({
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
export const trimmed = (series: DailySeries.DailySeries): DailySeries.DailySeries | null => {
  const last = DailySeries.lastValueIndex(series)
  return last < 0 ? null : DailySeries.slice(series, 0, last + 1)
}

export const toHistory = (record: CellRecord): Option.Option<History> =>
  record.history === null || record.timezone === null
    ? Option.none()
    : Option.some({
        timezone: record.timezone,
        series: record.history,
        end: record.history.start + DailySeries.length(record.history) - 1,
        checkedAt: record.historyCheckedAt ?? 0
      })

export const toForecast = (record: CellRecord): Option.Option<Forecast> =>
  record.forecast === null || record.forecastStamp === null || record.timezone === null
    ? Option.none()
    : Option.some({
        timezone: record.timezone,
        series: record.forecast,
        stamp: record.forecastStamp,
        checkedAt: Math.max(record.forecastStamp, record.forecastCheckedAt ?? 0)
      })
