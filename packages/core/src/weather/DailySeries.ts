import type { EpochDay } from "../CivilDate.js"

/** The three graded variables: daily high, daily low, precipitation. */
export const variables = ["tmax", "tmin", "precip"] as const
export type Variable = (typeof variables)[number]

export const unitOf = (variable: Variable): "°C" | "mm" => (variable === "precip" ? "mm" : "°C")

/**
 * A run of consecutive days of the three daily series: day `i` is `start + i`.
 * A missing (null) upstream value is `NaN`. Typed arrays keep an 85-year record
 * (~31,000 days) compact and fast to scan.
 */
export interface DailySeries {
  readonly start: EpochDay
  readonly tmax: Float64Array
  readonly tmin: Float64Array
  readonly precip: Float64Array
}

export const length = (series: DailySeries): number => series.tmax.length

/** The bytes a series holds (its three arrays), for caches bounded in bytes. */
export const bytes = (series: DailySeries | null): number =>
  series === null ? 0 : series.tmax.byteLength + series.tmin.byteLength + series.precip.byteLength

/** The last day index holding a non-NaN value in any variable, or -1 when there is none. */
export const lastValueIndex = (series: DailySeries): number => {
  for (let i = length(series) - 1; i >= 0; i--) {
    if (!Number.isNaN(series.tmax[i]!) || !Number.isNaN(series.tmin[i]!) || !Number.isNaN(series.precip[i]!)) return i
  }
  return -1
}

/** Days `[from, to)` by index. */
export const slice = (series: DailySeries, from: number, to: number): DailySeries => ({
  start: series.start + from,
  tmax: series.tmax.slice(from, to),
  tmin: series.tmin.slice(from, to),
  precip: series.precip.slice(from, to)
})

/** `base` followed by `tail`, where `tail` may overlap or extend `base`; `tail`'s values win, gaps become NaN. */
export const merge = (base: DailySeries, tail: DailySeries): DailySeries => {
  const start = Math.min(base.start, tail.start)
  const end = Math.max(base.start + length(base), tail.start + length(tail))
  const out = {
    start,
    tmax: new Float64Array(end - start).fill(Number.NaN),
    tmin: new Float64Array(end - start).fill(Number.NaN),
    precip: new Float64Array(end - start).fill(Number.NaN)
  }
  for (const v of variables) {
    out[v].set(base[v], base.start - start)
    out[v].set(tail[v], tail.start - start)
  }
  return out
}
