/**
 * The grading rules over one history record, built for speed (the rules: docs/api.md "Weather data").
 * For each variable and calendar day, that day's values over every year (a column of ~86 values) are
 * sorted once, lazily. A target's sample — every year's 5-day window — is then the five columns of the
 * days around it, unless the window runs over the end of a year or over February's end, where leap and
 * common years disagree about which day is next; for those nine calendar days the sample is gathered
 * and sorted whole. A date's sample is that minus its own year's window (at most five values, read from
 * the record), so a percentile is ten binary searches and a few corrections, and a cold calendar sorts
 * each day's column once rather than each day's whole window (five times the values).
 */
import * as CivilDate from "../CivilDate.js"
import type { Climatology, Grade } from "../data/Payloads.js"
import type { Grading } from "../data/Views.js"
import { type DailySeries, unitOf, type Variable } from "../weather/DailySeries.js"
import { label, lowerBound, percentileFromCounts, quantileType8, round } from "./Percentile.js"
import { sample, WINDOW } from "./Sample.js"

/** Percentile and label are null below this sample size. */
export const MIN_SAMPLE = 30

const SPAN = 2 * WINDOW + 1

/**
 * A calendar day's sample over every year of the record, as ascending parts whose union it is:
 * the five columns of the days around it, or one array gathered whole.
 */
type DaySample = ReadonlyArray<Float64Array>

/** Days before the first of each month in a common year. */
const MONTH_OFFSET = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334] as const

/** Each day of a common year as [month, day], by day of the year (0 = 1 January). */
const COMMON_YEAR_DAYS: ReadonlyArray<readonly [number, number]> = Array.from({ length: 365 }, (_, doy) => {
  let month = 12
  while (MONTH_OFFSET[month - 1]! > doy) month--
  return [month, doy - MONTH_OFFSET[month - 1]! + 1] as const
})

/**
 * Whether a target's window (two days either side) runs over a year's end or touches February's
 * end, where which day follows which depends on the year: 27 February to 2 March, 30 December to
 * 2 January.
 */
const crossesBoundary = (month: number, day: number): boolean =>
  (month === 2 && day >= 27) || (month === 3 && day <= 2) || (month === 12 && day >= 30) || (month === 1 && day <= 2)

const MAX_COUNTING_RANGE = 8192
/** A whole variable's values are counted when their tenths span at most this (±100,000 tenths). */
const MAX_GLOBAL_RANGE = 200_000

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const
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
  /** Below this sample size there is no percentile or label: 30 by default, as the API documents. */
  readonly minSample?: number
}

export const makeGrader = (record: DailySeries, options: GraderOptions = {}): Grader => {
  const minSample = options.minSample ?? MIN_SAMPLE
  const length = record.tmax.length
  const firstYear = CivilDate.toYmd(record.start).year
  const lastYear = CivilDate.toYmd(record.start + length - 1).year
  const years = lastYear - firstYear + 1
  // Samples and columns are indexed by variable, month and day: no string keys on the hot path.
  const variableIndex = { tmax: 0, tmin: 1, precip: 2 } as const
  // Epoch day of each year's 1 January, so a window's centre is an addition, not a date conversion.
  const yearStart = Int32Array.from({ length: years + 1 }, (_, y) => CivilDate.fromYmd({ year: firstYear + y, month: 1, day: 1 }))
  const monthOffset = (month: number, leap: boolean) => MONTH_OFFSET[month - 1]! + (leap && month > 2 ? 1 : 0)
  const leapYear = Uint8Array.from({ length: years }, (_, y) => (yearStart[y + 1]! - yearStart[y]! === 366 ? 1 : 0))

  /** The record index of the first day of year index `y`'s window for a month and day. */
  const windowStart = (y: number, month: number, day: number) => {
    const leap = leapYear[y] === 1
    // Feb 29 → Feb 28 in a common year (the rule of Sample.centre).
    const centre = yearStart[y]! + monthOffset(month, leap) + (month === 2 && day === 29 && !leap ? 27 : day - 1)
    return centre - WINDOW - record.start
  }

  // Grading is synchronous, so one scratch buffer gathers every sample before it is sorted and kept.
  const scratch = new Float64Array(years * SPAN)
  const scratchTenths = new Int32Array(years * SPAN)

  /**
   * The values of one calendar day (not Feb 29) in every year of the record, ascending. Every
   * column of a variable is made at once, when the first is needed: the record's values ordered
   * by tenths (a counting sort), then placed by calendar day keeping that order (a second one),
   * two linear passes instead of a sort per column.
   */
  const columns: Array<Float64Array | undefined> = []
  const column = (variable: Variable, month: number, day: number): Float64Array => {
    const key = variableIndex[variable] * 416 + month * 32 + day
    const hit = columns[key]
    if (hit !== undefined) return hit
    buildColumns(variable)
    return columns[key]!
  }

  // The calendar day (month * 32 + day) of each day of the record, shared by the variables.
  let dayKeys: Uint16Array | undefined
  const keysOfDays = (): Uint16Array => {
    if (dayKeys !== undefined) return dayKeys
    const keys = new Uint16Array(length)
    let { day, month, year } = CivilDate.toYmd(record.start)
    for (let i = 0; i < length; i++) {
      keys[i] = month * 32 + day
      const last = month === 2 ? (CivilDate.isLeapYear(year) ? 29 : 28) : DAYS_IN_MONTH[month - 1]!
      if (++day > last) {
        day = 1
        if (++month > 12) {
          month = 1
          year++
        }
      }
    }
    dayKeys = keys
    return keys
  }

  const buildColumns = (variable: Variable): void => {
    const values = record[variable]
    const keys = keysOfDays()
    const base = variableIndex[variable] * 416
    const tenths = new Int32Array(length)
    let lo = Infinity
    let hi = -Infinity
    let plain = true
    for (let i = 0; i < length; i++) {
      const v = values[i]!
      if (Number.isNaN(v)) continue
      const t = Math.round(v * 10)
      if (t / 10 !== v) plain = false
      tenths[i] = t
      if (t < lo) lo = t
      if (t > hi) hi = t
    }
    const perKey = new Int32Array(417)
    for (let i = 0; i < length; i++) if (!Number.isNaN(values[i]!)) perKey[keys[i]! + 1]!++
    for (let k = 1; k <= 416; k++) perKey[k]! += perKey[k - 1]!
    const all = new Float64Array(perKey[416]!)
    if (!plain || hi - lo > MAX_GLOBAL_RANGE) {
      // Not all tenths, or too wide a range to count: gathered per day, then each sorted.
      const at = perKey.slice()
      for (let i = 0; i < length; i++) if (!Number.isNaN(values[i]!)) all[at[keys[i]!]!++] = values[i]!
      for (let k = 0; k < 416; k++) if (perKey[k + 1]! > perKey[k]!) all.subarray(perKey[k]!, perKey[k + 1]!).sort()
    } else {
      // Indices ordered by value (stable counting sort over tenths) …
      const byValue = new Int32Array(length)
      const count = new Int32Array(hi - lo + 2)
      let n = 0
      for (let i = 0; i < length; i++) if (!Number.isNaN(values[i]!)) count[tenths[i]! - lo + 1]!++
      for (let t = 1; t < count.length; t++) count[t]! += count[t - 1]!
      for (let i = 0; i < length; i++) {
        if (Number.isNaN(values[i]!)) continue
        byValue[count[tenths[i]! - lo]!++] = i
        n++
      }
      // … then placed by calendar day in that order, so each day's run is ascending.
      const at = perKey.slice()
      for (let j = 0; j < n; j++) {
        const i = byValue[j]!
        all[at[keys[i]!]!++] = values[i]!
      }
    }
    for (let k = 0; k < 416; k++) columns[base + k] = all.subarray(perKey[k]!, perKey[k + 1]!)
  }

  /** The sample gathered whole, for the days whose window crosses a year's or February's end. */
  const gathered = (variable: Variable, month: number, day: number): Float64Array => {
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
    return sortSample(scratch.slice(0, count), scratchTenths)
  }

  const cache: Array<DaySample | undefined> = []
  const daySample = (variable: Variable, month: number, day: number): DaySample => {
    const key = variableIndex[variable] * 416 + month * 32 + day
    const hit = cache[key]
    if (hit !== undefined) return hit
    const doy = MONTH_OFFSET[month - 1]! + day - 1
    let built: DaySample
    if (crossesBoundary(month, day)) built = [gathered(variable, month, day)]
    else {
      const parts: Array<Float64Array> = []
      // Within one year and clear of February's end, day k of every year's window is the calendar
      // day k from the target, the same in leap and common years.
      for (let k = -WINDOW; k <= WINDOW; k++) {
        const [m, d] = COMMON_YEAR_DAYS[doy + k]!
        parts.push(column(variable, m, d))
      }
      built = parts
    }
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

  /**
   * The extreme of the parts' union minus the own values, from the low end (dir 1) or the high end
   * (dir -1): the parts are walked in merged order until a value that is not one of the own values.
   */
  const at = new Int32Array(SPAN)
  const extreme = (parts: DaySample, count: number, dir: 1 | -1): number => {
    taken.fill(0)
    for (let p = 0; p < parts.length; p++) at[p] = dir === 1 ? 0 : parts[p]!.length - 1
    for (;;) {
      let best = -1
      let value = Number.NaN
      for (let p = 0; p < parts.length; p++) {
        const part = parts[p]!
        const i = at[p]!
        if (i < 0 || i >= part.length) continue
        const v = part[i]!
        if (best < 0 || (dir === 1 ? v < value : v > value)) {
          best = p
          value = v
        }
      }
      if (best < 0) return Number.NaN
      at[best]! += dir
      let skipped = false
      for (let j = 0; j < count; j++) {
        if (taken[j] === 0 && own[j] === value) {
          taken[j] = 1
          skipped = true
          break
        }
      }
      if (!skipped) return value
    }
  }

  // What `rank` found for the last date it was asked about (grading is synchronous).
  let rankedParts: DaySample = []
  let rankedOwn = 0

  /**
   * The sample size for a date, and the unrounded percentile of `x` in it (NaN when there is none:
   * `x` missing or the sample too small). Leaves the sample's parts and own values for `extreme`.
   */
  const rank = (variable: Variable, date: CivilDate.EpochDay, x: number): readonly [n: number, p: number] => {
    const { day, month, year } = CivilDate.toYmd(date)
    const parts = daySample(variable, month, day)
    const count = ownValues(variable, month, day, year)
    rankedParts = parts
    rankedOwn = count
    let total = 0
    let less = 0
    let equal = 0
    for (let p = 0; p < parts.length; p++) {
      const part = parts[p]!
      total += part.length
      const below = lowerBound(part, x)
      // Values are tenths with few repeats: the equal ones are counted by a step or two, not a second search.
      let above = below
      while (above < part.length && part[above] === x) above++
      less += below
      equal += above - below
    }
    const n = total - count
    if (Number.isNaN(x) || n < minSample || n === 0) return [n, Number.NaN]
    for (let j = 0; j < count; j++) {
      if (own[j]! < x) less--
      else if (own[j] === x) equal--
    }
    return [n, percentileFromCounts(less, equal, n)]
  }

  const grade = (variable: Variable, date: CivilDate.EpochDay, x: number): Grade => {
    const [n, p] = rank(variable, date, x)
    const unit = unitOf(variable)
    if (Number.isNaN(x)) return { value: null, unit, percentile: null, label: null, n }
    if (Number.isNaN(p)) return { value: round(x, 2), unit, percentile: null, label: null, n }
    return {
      value: round(x, 2),
      unit,
      percentile: round(p, 1),
      label: label(x, p, extreme(rankedParts, rankedOwn, 1), extreme(rankedParts, rankedOwn, -1)),
      n
    }
  }

  const valueOn = (variable: Variable, date: CivilDate.EpochDay) => {
    const i = date - record.start
    return i >= 0 && i < length ? record[variable][i]! : Number.NaN
  }

  // The calendar needs values and percentiles only: no labels, so no extremes.
  const gradeRecordRange = (variable: Variable, from: CivilDate.EpochDay, to: CivilDate.EpochDay) => {
    const values: Array<number | null> = []
    const percentiles: Array<number | null> = []
    for (let date = from; date <= to; date++) {
      const x = valueOn(variable, date)
      const p = rank(variable, date, x)[1]
      values.push(Number.isNaN(x) ? null : round(x, 2))
      percentiles.push(Number.isNaN(p) ? null : round(p, 1))
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
