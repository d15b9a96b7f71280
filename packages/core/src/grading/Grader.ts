/**
 * The grading rules over one history record, built for speed (CONTRACT.md §4). For each
 * variable and calendar day the sample of every year's 5-day window is collected and sorted once,
 * lazily; a target date's sample is that sorted array minus its own year's window (at most five
 * values), so a percentile is two binary searches and a few corrections, not a rescan of the record.
 */
import * as CivilDate from "../CivilDate.js"
import type { Climatology, Grade } from "../data/Payloads.js"
import type { Grading } from "../data/Views.js"
import { type DailySeries, unitOf, type Variable } from "../weather/DailySeries.js"
import { label, lowerBound, percentileFromCounts, quantileType8, round, upperBound } from "./Percentile.js"
import { sample, WINDOW } from "./Sample.js"

/** Percentile and label are null below this sample size. */
export const MIN_SAMPLE = 30

const SPAN = 2 * WINDOW + 1

/** A calendar day's sample over every year of the record: each year's window values, ascending. */
type DaySample = Float64Array

/** Days before the first of each month in a common year. */
const MONTH_OFFSET = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334] as const

const MAX_COUNTING_RANGE = 8192
const counts = new Int32Array(MAX_COUNTING_RANGE + 1)

/**
 * Sorts a sample in place. Upstream values are whole tenths in a narrow range for one calendar
 * day, so a counting sort over tenths is linear; anything else takes the ordinary sort.
 */
const sortSample = (values: Float64Array, tenths: Int32Array): Float64Array => {
  const n = values.length
  let lo = Infinity
  let hi = -Infinity
  for (let i = 0; i < n; i++) {
    const v = values[i]!
    const t = Math.round(v * 10)
    if (t / 10 !== v) return values.sort()
    tenths[i] = t
    if (t < lo) lo = t
    if (t > hi) hi = t
  }
  // A wide, sparse range (a few large rain totals) sorts faster by comparison.
  const range = hi - lo
  if (n === 0 || range > MAX_COUNTING_RANGE || range > 16 * n) return values.sort()
  counts.fill(0, 0, range + 1)
  for (let i = 0; i < n; i++) counts[tenths[i]! - lo]!++
  let at = 0
  for (let t = 0; t <= range; t++) {
    const c = counts[t]!
    if (c === 0) continue
    // t / 10 of a value that passed the check above is that very value.
    const v = (t + lo) / 10
    for (let k = 0; k < c; k++) values[at++] = v
  }
  return values
}

export interface Grader extends Grading {
  readonly record: DailySeries
}

export interface GraderOptions {
  /** Below this sample size there is no percentile or label; CONTRACT.md says 30. */
  readonly minSample?: number
}

export const makeGrader = (record: DailySeries, options: GraderOptions = {}): Grader => {
  const minSample = options.minSample ?? MIN_SAMPLE
  const length = record.tmax.length
  const firstYear = CivilDate.toYmd(record.start).year
  const lastYear = CivilDate.toYmd(record.start + length - 1).year
  const years = lastYear - firstYear + 1
  // Indexed by variable, month and day: no string keys on the hot path.
  const cache: Array<DaySample | undefined> = []
  const variableIndex = { tmax: 0, tmin: 1, precip: 2 } as const
  // Epoch day of each year's 1 January, so a window's centre is an addition, not a date conversion.
  const yearStart = Int32Array.from({ length: years + 1 }, (_, y) => CivilDate.fromYmd({ year: firstYear + y, month: 1, day: 1 }))
  const monthOffset = (month: number, leap: boolean) => MONTH_OFFSET[month - 1]! + (leap && month > 2 ? 1 : 0)

  /** The record index of the first day of year index `y`'s window for a month and day. */
  const windowStart = (y: number, month: number, day: number) => {
    const leap = yearStart[y + 1]! - yearStart[y]! === 366
    // Feb 29 → Feb 28 in a common year (the rule of Sample.centre).
    const centre = yearStart[y]! + monthOffset(month, leap) + (month === 2 && day === 29 && !leap ? 27 : day - 1)
    return centre - WINDOW - record.start
  }

  // Grading is synchronous, so one scratch buffer gathers every sample before it is sorted and kept.
  const scratch = new Float64Array(years * SPAN)
  const scratchTenths = new Int32Array(years * SPAN)
  const daySample = (variable: Variable, month: number, day: number): DaySample => {
    const key = variableIndex[variable] * 416 + month * 32 + day
    const hit = cache[key]
    if (hit !== undefined) return hit
    const values = record[variable]
    let count = 0
    for (let y = 0; y < years; y++) {
      const first = windowStart(y, month, day)
      const to = Math.min(first + SPAN, length)
      for (let i = Math.max(first, 0); i < to; i++) {
        const v = values[i]!
        if (!Number.isNaN(v)) scratch[count++] = v
      }
    }
    const built = sortSample(scratch.slice(0, count), scratchTenths)
    cache[key] = built
    return built
  }

  // The target year's own window values, which its sample leaves out: at most SPAN of them,
  // read from the record into a scratch buffer.
  const own = new Float64Array(SPAN)
  const taken = new Uint8Array(SPAN)
  const ownValues = (variable: Variable, month: number, day: number, year: number): number => {
    const y = year - firstYear
    if (y < 0 || y >= years) return 0
    const values = record[variable]
    const first = windowStart(y, month, day)
    let count = 0
    for (let i = Math.max(first, 0); i < Math.min(first + SPAN, length); i++) {
      const v = values[i]!
      if (!Number.isNaN(v)) own[count++] = v
    }
    return count
  }

  /** The extreme of `sorted` minus the own values, from the low end (dir 1) or the high end (dir -1). */
  const extreme = (sorted: Float64Array, count: number, dir: 1 | -1): number => {
    taken.fill(0)
    for (let i = dir === 1 ? 0 : sorted.length - 1; i >= 0 && i < sorted.length; i += dir) {
      let skipped = false
      for (let j = 0; j < count; j++) {
        if (taken[j] === 0 && own[j] === sorted[i]) {
          taken[j] = 1
          skipped = true
          break
        }
      }
      if (!skipped) return sorted[i]!
    }
    return Number.NaN
  }

  const grade = (variable: Variable, date: CivilDate.EpochDay, x: number): Grade => {
    const { day, month, year } = CivilDate.toYmd(date)
    const sorted = daySample(variable, month, day)
    const count = ownValues(variable, month, day, year)
    const n = sorted.length - count
    const unit = unitOf(variable)
    if (Number.isNaN(x)) return { value: null, unit, percentile: null, label: null, n }
    if (n < minSample || n === 0) return { value: round(x, 2), unit, percentile: null, label: null, n }
    let less = lowerBound(sorted, x)
    let equal = upperBound(sorted, x) - less
    for (let j = 0; j < count; j++) {
      if (own[j]! < x) less--
      else if (own[j] === x) equal--
    }
    const p = percentileFromCounts(less, equal, n)
    return {
      value: round(x, 2),
      unit,
      percentile: round(p, 1),
      label: label(x, p, extreme(sorted, count, 1), extreme(sorted, count, -1)),
      n
    }
  }

  const valueOn = (variable: Variable, date: CivilDate.EpochDay) => {
    const i = date - record.start
    return i >= 0 && i < length ? record[variable][i]! : Number.NaN
  }

  const gradeRecordRange = (variable: Variable, from: CivilDate.EpochDay, to: CivilDate.EpochDay) => {
    const values: Array<number | null> = []
    const percentiles: Array<number | null> = []
    for (let date = from; date <= to; date++) {
      const graded = grade(variable, date, valueOn(variable, date))
      values.push(graded.value)
      percentiles.push(graded.percentile)
    }
    return { values, percentiles }
  }

  const climatology = (variable: Variable, date: CivilDate.EpochDay): Climatology => {
    // One date: the plain rule is fast enough, and keeps the dates of the extremes.
    const values = sample(record, variable, date)
    const n = values.length
    if (n === 0) {
      const none = { value: null, date: null }
      return { n, p10: null, p25: null, p50: null, p75: null, p90: null, mean: null, min: none, max: none }
    }
    const sorted = Float64Array.from(values, (v) => v.value).sort()
    let min = values[0]!
    let max = values[0]!
    let sum = 0
    for (const v of values) {
      sum += v.value
      if (v.value < min.value) min = v
      if (v.value > max.value) max = v
    }
    const q = (p: number) => round(quantileType8(sorted, p), 2)
    return {
      n,
      p10: q(0.1),
      p25: q(0.25),
      p50: q(0.5),
      p75: q(0.75),
      p90: q(0.9),
      mean: round(sum / n, 2),
      min: { value: round(min.value, 2), date: CivilDate.format(min.date) },
      max: { value: round(max.value, 2), date: CivilDate.format(max.date) }
    }
  }

  return { record, grade, gradeRecordRange, climatology }
}
