/**
 * The grading rules over one history record, built for speed (the rules: docs/api.md "Weather data").
 * A date's sample is every year's 5-day window around its month and day. The first dates graded
 * for a variable (a grade, a forecast) count it straight from the record. After that (a calendar),
 * the variable's columns are built once: each record day is filed under a slot, its calendar day,
 * except where leap and common years (or the record's first and last years) disagree about which
 * windows hold it, and each slot's values over every year (~86) are counted by tenths (or, when
 * they are not all whole tenths in a narrow range, sorted). A calendar day's sample is then the
 * union of a fixed set of slots (five to ten), never gathered, and a date's sample is that minus
 * its own year's window (at most five values, read from the record): a percentile is two lookups
 * per slot and a few corrections.
 */
import * as CivilDate from "../CivilDate.js"
import type { Climatology, Grade } from "../data/Payloads.js"
import { type DailySeries, unitOf, type Variable } from "../weather/DailySeries.js"
import { label, lowerBound, percentileFromCounts, quantileType8, round, upperBound } from "./Percentile.js"
import { WINDOW } from "./Sample.js"

/** Percentile and label are null below this sample size. */
export const MIN_SAMPLE = 30

/**
 * A variable's columns are built when it is asked for its this-many-th date (a range counts each of
 * its dates). Building them costs about what 150–300 dates counted from the record do (~8M
 * instructions against ~24k each, for 86 years), so a grade, a forecast or a month never pay for
 * them, and a grader kept for many requests pays at most about twice what the cheaper way would.
 */
export const COLUMNS_AFTER = 128

const SPAN = 2 * WINDOW + 1

/**
 * Calendar days are numbered as in a leap year (0 = 1 January, 59 = 29 February, 365 = 31
 * December). In a common year, 26 February to 2 March are filed apart (slots 366–370): a target
 * from 27 February to 2 March reaches one of them in common years only (a common year's window
 * around 28 February runs to 2 March, a leap year's to 1 March). The first year's 1–2 January
 * (371–372) and the last year's 30–31 December (373–374) are filed apart too: they would belong to
 * the window of a year before or after the record, which the sample never holds.
 */
const FEB_29 = 59
const COMMON_SLOT = 366
const FIRST_YEAR_SLOT = 371
const LAST_YEAR_SLOT = 373
const SLOTS = 375

/** The slot of a leap-numbered calendar day in a year of either kind. */
const slotOf = (day: number, leap: boolean): number =>
  !leap && day >= FEB_29 - 3 && day <= FEB_29 + 2 ? COMMON_SLOT + day - (FEB_29 - 3) - (day > FEB_29 ? 1 : 0) : day

/** The slot of each day of a year of each kind, copied into the record a year at a time. */
const LEAP_YEAR_SLOTS = Uint16Array.from({ length: 366 }, (_, day) => slotOf(day, true))
const COMMON_YEAR_SLOTS = Uint16Array.from({ length: 365 }, (_, d) => slotOf(d < FEB_29 ? d : d + 1, false))

/** The calendar day a slot files. */
const SLOT_DAY = Uint16Array.from({ length: SLOTS }, (_, s) =>
  s < COMMON_SLOT
    ? s
    : s < FIRST_YEAR_SLOT
      ? [56, 57, 58, 60, 61][s - COMMON_SLOT]!
      : s < LAST_YEAR_SLOT
        ? s - FIRST_YEAR_SLOT
        : 364 + s - LAST_YEAR_SLOT
)

/** A target's centre, as a day of its year, in a year of either kind (29 February → 28th in a common year). */
const centreIn = (day: number, leap: boolean): number => (leap || day < FEB_29 ? day : day - 1)

/**
 * The slots whose union is the sample of each calendar day, flattened: those of day `c` are
 * `PARTS[PARTS_AT[c]..PARTS_AT[c + 1]]`. Derived from the window rule for a leap and a common year:
 * a day of the year before (after) the target's is in every window but the first (last) year's.
 */
const { PARTS, PARTS_AT } = (() => {
  const parts: Array<number> = []
  const at = [0]
  for (let c = 0; c < 366; c++) {
    const slots = new Set<number>()
    for (const leap of [true, false]) {
      const length = leap ? 366 : 365
      const centre = centreIn(c, leap)
      for (let k = -WINDOW; k <= WINDOW; k++) {
        const j = centre + k
        // The year before's last days or the year after's first (the same in either kind of year).
        if (j < 0) slots.add(366 + j)
        else if (j >= length) slots.add(j - length)
        else {
          const day = leap || j < FEB_29 ? j : j + 1
          slots.add(slotOf(day, leap))
          if (day < 2) slots.add(FIRST_YEAR_SLOT + day)
          if (day >= 364) slots.add(LAST_YEAR_SLOT + day - 364)
        }
      }
    }
    parts.push(...[...slots].sort((a, b) => a - b))
    at.push(parts.length)
  }
  return { PARTS: Int32Array.from(parts), PARTS_AT: Int32Array.from(at) }
})()
const MAX_PARTS = Math.max(...PARTS_AT.subarray(1).map((end, c) => end - PARTS_AT[c]!))

/** A whole variable's values are counted when their tenths span at most this (±100,000 tenths). */
const MAX_GLOBAL_RANGE = 200_000
/** Values of more tenths than this are taken for arbitrary numbers, so that tenths fit 32 bits. */
const MAX_TENTHS = 1e9

// Building is synchronous: scratch shared by every grader, grown to the longest record seen.
let tenthsScratch = new Int32Array(0)
let orderScratch = new Uint16Array(0)
let countScratch = new Int32Array(0)
const slotLo = new Int32Array(SLOTS)
const slotHi = new Int32Array(SLOTS)
const scratchFor = (length: number) => {
  if (tenthsScratch.length < length) {
    tenthsScratch = new Int32Array(length)
    orderScratch = new Uint16Array(length)
  }
}

/**
 * One variable's values filed by slot (slot `s` holds `start[s + 1] - start[s]` of them): counted
 * by tenths when they are all whole tenths and each slot's span is narrow, else sorted.
 */
type Columns = Counted | Sorted

interface Counted extends TenthTables {
  readonly _tag: "Counted"
  readonly start: Int32Array
}

interface Sorted {
  readonly _tag: "Sorted"
  readonly start: Int32Array
  /** Slot `s`'s values ascending: `sorted[start[s]..start[s + 1]]`. */
  readonly sorted: Float64Array
}

/**
 * For slot `s` whose values run from `lo[s]` to `lo[s] + top[s] - 2` tenths: `at[from[s] + k]`
 * counts its values below `lo[s] - 1 + k` tenths, for k in 0..top[s] + 1. A tenth is then ranked
 * in a slot by two lookups (the values below it and below the next), where a binary search would
 * take seven unpredictable steps; a tenth outside the slot's values is clamped to the entry just
 * below or just above them.
 */
interface TenthTables {
  readonly at: Uint16Array
  readonly from: Int32Array
  readonly lo: Int32Array
  readonly top: Int32Array
}

/** The tables cost at most this many entries (2 bytes each) per value held, else there are none. */
const MAX_TABLE_PER_VALUE = 4

/** The tables' layout for the slots' ranges of tenths (`slotLo`, `slotHi`), zeroed; none when too large. */
const slotTables = (start: Int32Array): TenthTables | undefined => {
  const from = new Int32Array(SLOTS)
  const lo = new Int32Array(SLOTS)
  const top = new Int32Array(SLOTS)
  let size = 0
  for (let s = 0; s < SLOTS; s++) {
    // Offsets within a slot must fit 16 bits (a slot holds one value a year).
    if (start[s + 1]! - start[s]! > 0xffff) return undefined
    // An empty slot is given the range [0, -1]: its three entries are all 0.
    const empty = start[s + 1] === start[s]
    lo[s] = empty ? 0 : slotLo[s]!
    top[s] = (empty ? -1 : slotHi[s]! - slotLo[s]!) + 2
    from[s] = size
    size += top[s]! + 2
    if (size > MAX_TABLE_PER_VALUE * (start[SLOTS]! + SLOTS)) return undefined
  }
  return { at: new Uint16Array(size), from, lo, top }
}

/** The least whole tenth t with t / 10 >= x (x not NaN), within the tenths values may have. */
const tenthAtOrAbove = (x: number): number => {
  let t = Math.min(Math.max(Math.ceil(x * 10), -MAX_TENTHS - 1), MAX_TENTHS + 1)
  // x * 10 may be an ulp off: a step either way settles it, t / 10 being how values are read.
  while (t > -MAX_TENTHS - 1 && (t - 1) / 10 >= x) t--
  while (t < MAX_TENTHS + 1 && t / 10 < x) t++
  return t
}

/** The leap-numbered calendar day and the year of a date. */
const calendarDayOf = (date: CivilDate.EpochDay): { readonly day: number; readonly year: number } => {
  const { year } = CivilDate.toYmd(date)
  const offset = date - CivilDate.fromYmd({ year, month: 1, day: 1 })
  return { day: offset >= FEB_29 && !CivilDate.isLeapYear(year) ? offset + 1 : offset, year }
}

/** What the views need of the grading rules, built once per history record. */
export interface Grading {
  /** Grades `value` (NaN for none) for `date` against the record's sample for that date. */
  readonly grade: (variable: Variable, date: CivilDate.EpochDay, value: number) => Grade
  readonly climatology: (variable: Variable, date: CivilDate.EpochDay) => Climatology
  /** The record's own values for [from, to] and their percentiles. */
  readonly gradeRecordRange: (
    variable: Variable,
    from: CivilDate.EpochDay,
    to: CivilDate.EpochDay
  ) => { readonly values: ReadonlyArray<number | null>; readonly percentiles: ReadonlyArray<number | null> }
}

export interface Grader extends Grading {
  readonly record: DailySeries
}

export interface GraderOptions {
  /** Below this sample size there is no percentile or label: 30 by default, as the API documents. */
  readonly minSample?: number
  /** When a variable's columns are built (its this-many-th date graded): COLUMNS_AFTER by default. */
  readonly columnsAfter?: number
}

export const makeGrader = (record: DailySeries, options: GraderOptions = {}): Grader => {
  const minSample = options.minSample ?? MIN_SAMPLE
  const columnsAfter = options.columnsAfter ?? COLUMNS_AFTER
  const length = record.tmax.length
  const firstYear = CivilDate.toYmd(record.start).year
  const lastYear = CivilDate.toYmd(record.start + length - 1).year
  const years = lastYear - firstYear + 1
  // Epoch day of each year's 1 January, so a window's centre is an addition, not a date conversion.
  const yearStart = Int32Array.from({ length: years + 1 }, (_, y) => CivilDate.fromYmd({ year: firstYear + y, month: 1, day: 1 }))
  const leapYear = Uint8Array.from({ length: years }, (_, y) => (yearStart[y + 1]! - yearStart[y]! === 366 ? 1 : 0))

  /** The record index of the first day of year index `y`'s window for a calendar day. */
  const windowStart = (y: number, day: number) => yearStart[y]! + centreIn(day, leapYear[y] === 1) - WINDOW - record.start

  // The slot of each day of the record, shared by the variables: a year's slots copied at a time.
  let slots: Uint16Array | undefined
  const slotsOfDays = (): Uint16Array => {
    if (slots !== undefined) return slots
    const keys = new Uint16Array(length)
    for (let y = 0; y < years; y++) {
      const from = Math.max(yearStart[y]! - record.start, 0)
      const to = Math.min(yearStart[y + 1]! - record.start, length)
      const template = leapYear[y] === 1 ? LEAP_YEAR_SLOTS : COMMON_YEAR_SLOTS
      const skip = from - (yearStart[y]! - record.start)
      keys.set(template.subarray(skip, skip + to - from), from)
    }
    const fileApart = (date: number, slot: number) => {
      const i = date - record.start
      if (i >= 0 && i < length) keys[i] = slot
    }
    fileApart(yearStart[0]!, FIRST_YEAR_SLOT)
    fileApart(yearStart[0]! + 1, FIRST_YEAR_SLOT + 1)
    fileApart(yearStart[years]! - 2, LAST_YEAR_SLOT)
    fileApart(yearStart[years]! - 1, LAST_YEAR_SLOT + 1)
    slots = keys
    return keys
  }

  /**
   * Every slot's values of a variable. Upstream values are whole tenths, in a narrow range for one
   * calendar day, so each slot's tenths are counted (one table for all slots, two passes over the
   * record) and never sorted. Where the slots' ranges are too wide for that (a few large rain
   * totals), the record is ordered by tenths (one counting sort over the whole variable) and then
   * filed by slot keeping that order (a second one), so each slot is sorted.
   */
  const buildColumns = (values: Float64Array): Columns => {
    const keys = slotsOfDays()
    scratchFor(length)
    const tenths = tenthsScratch
    const start = new Int32Array(SLOTS + 1)
    slotLo.fill(MAX_TENTHS + 1)
    slotHi.fill(-MAX_TENTHS - 1)
    let plain = true
    for (let i = 0; i < length; i++) {
      const v = values[i]!
      if (Number.isNaN(v)) continue
      const t = Math.round(v * 10)
      if (t / 10 !== v || t > MAX_TENTHS || t < -MAX_TENTHS) plain = false
      tenths[i] = t
      const s = keys[i]!
      start[s + 1]!++
      if (t < slotLo[s]!) slotLo[s] = t
      if (t > slotHi[s]!) slotHi[s] = t
    }
    for (let s = 1; s <= SLOTS; s++) start[s]! += start[s - 1]!
    const tables = plain ? slotTables(start) : undefined
    if (tables !== undefined) {
      // Each value counted just past its tenth's entry, then running sums within each slot.
      const { at, from, lo, top } = tables
      const shift = new Int32Array(SLOTS)
      for (let s = 0; s < SLOTS; s++) shift[s] = from[s]! - lo[s]! + 2
      for (let i = 0; i < length; i++) if (!Number.isNaN(values[i]!)) at[shift[keys[i]!]! + tenths[i]!]!++
      for (let s = 0; s < SLOTS; s++) {
        const end = from[s]! + top[s]! + 2
        for (let k = from[s]! + 1; k < end; k++) at[k]! += at[k - 1]!
      }
      return { _tag: "Counted", start, at, from, lo, top }
    }
    const sorted = new Float64Array(start[SLOTS]!)
    const at = start.slice()
    let lo = MAX_TENTHS
    let hi = -MAX_TENTHS
    for (let s = 0; s < SLOTS; s++) {
      lo = Math.min(lo, slotLo[s]!)
      hi = Math.max(hi, slotHi[s]!)
    }
    if (!plain || hi - lo > MAX_GLOBAL_RANGE) {
      // Not all tenths, or too wide a range to count: filed by slot, then each slot sorted.
      for (let i = 0; i < length; i++) if (!Number.isNaN(values[i]!)) sorted[at[keys[i]!]!++] = values[i]!
      for (let s = 0; s < SLOTS; s++) sorted.subarray(start[s]!, start[s + 1]!).sort()
      return { _tag: "Sorted", start, sorted }
    }
    // The slots of the record's days ordered by value (a stable counting sort over tenths) …
    const range = hi - lo + 1
    if (countScratch.length < range + 1) countScratch = new Int32Array(range + 1)
    const count = countScratch
    count.fill(0, 0, range + 1)
    for (let i = 0; i < length; i++) if (!Number.isNaN(values[i]!)) count[tenths[i]! - lo + 1]!++
    for (let t = 1; t <= range; t++) count[t]! += count[t - 1]!
    const order = orderScratch
    for (let i = 0; i < length; i++) if (!Number.isNaN(values[i]!)) order[count[tenths[i]! - lo]!++] = keys[i]!
    // … then each value, made again from its tenths, filed by slot in that order.
    let j = 0
    for (let t = 0; t < range; t++) {
      const end = count[t]!
      if (j === end) continue
      const v = (t + lo) / 10
      for (; j < end; j++) sorted[at[order[j]!]!++] = v
    }
    return { _tag: "Sorted", start, sorted }
  }

  // Per variable (tmax, tmin, precip): its columns once built, and how many dates it was asked for.
  const columns: Array<Columns | undefined> = [undefined, undefined, undefined]
  const asked = [0, 0, 0]
  const indexOf = (variable: Variable) => (variable === "tmax" ? 0 : variable === "tmin" ? 1 : 2)
  const columnsOf = (variable: Variable, dates: number): Columns | undefined => {
    const v = indexOf(variable)
    asked[v]! += dates
    if (columns[v] === undefined && asked[v]! >= columnsAfter) columns[v] = buildColumns(record[variable])
    return columns[v]
  }

  // The target year's own window values, which a sample from the columns leaves out: at most SPAN
  // of them, read from the record into a scratch buffer.
  const own = new Float64Array(SPAN)
  const taken = new Uint8Array(SPAN)
  const ownValues = (values: Float64Array, date: CivilDate.EpochDay, year: number): number => {
    if (year < firstYear || year > lastYear) return 0
    const first = date - WINDOW - record.start
    let count = 0
    for (let i = Math.max(first, 0); i < Math.min(first + SPAN, length); i++) {
      const v = values[i]!
      if (!Number.isNaN(v)) own[count++] = v
    }
    return count
  }

  /**
   * The extreme of the union of a calendar day's slots minus the own values, from the low end
   * (dir 1) or the high end (dir -1): the slots are walked in merged order, a value or a tenth at a
   * time, until one that is not all own values.
   */
  const cursor = new Int32Array(MAX_PARTS)
  const extremeSorted = (c: Sorted, day: number, count: number, dir: 1 | -1): number => {
    const { sorted, start } = c
    const from = PARTS_AT[day]!
    const parts = PARTS_AT[day + 1]! - from
    taken.fill(0)
    for (let p = 0; p < parts; p++) {
      const s = PARTS[from + p]!
      cursor[p] = dir === 1 ? start[s]! : start[s + 1]! - 1
    }
    for (;;) {
      let best = -1
      let value = Number.NaN
      for (let p = 0; p < parts; p++) {
        const s = PARTS[from + p]!
        const i = cursor[p]!
        if (i < start[s]! || i >= start[s + 1]!) continue
        const v = sorted[i]!
        if (best < 0 || (dir === 1 ? v < value : v > value)) {
          best = p
          value = v
        }
      }
      if (best < 0) return Number.NaN
      cursor[best]! += dir
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

  const extremeCounted = (c: Counted, day: number, count: number, dir: 1 | -1): number => {
    const { at, from, lo, start, top } = c
    let least = MAX_TENTHS
    let most = -MAX_TENTHS
    for (let p = PARTS_AT[day]!; p < PARTS_AT[day + 1]!; p++) {
      const s = PARTS[p]!
      if (start[s + 1] === start[s]) continue
      least = Math.min(least, lo[s]!)
      most = Math.max(most, lo[s]! + top[s]! - 2)
    }
    for (let t = dir === 1 ? least : most; t >= least && t <= most; t += dir) {
      let held = 0
      for (let p = PARTS_AT[day]!; p < PARTS_AT[day + 1]!; p++) {
        const s = PARTS[p]!
        const k = from[s]! + Math.min(Math.max(t - lo[s]! + 1, 0), top[s]!)
        held += at[k + 1]! - at[k]!
      }
      if (held === 0) continue
      const v = t / 10
      for (let j = 0; j < count; j++) if (own[j] === v) held--
      if (held > 0) return v
    }
    return Number.NaN
  }

  // What `rank` found for the last date it was asked about (grading is synchronous): the sample
  // size, the unrounded percentile (NaN when `x` is missing or the sample too small), and what the
  // extremes need.
  let rankedN = 0
  let rankedP = Number.NaN
  let rankedColumns: Columns | undefined
  let rankedDay = 0
  let rankedOwn = 0
  let scannedMin = Number.NaN
  let scannedMax = Number.NaN

  /** Ranks `x` in the sample counted straight from the record, year by year. */
  const rankScanned = (values: Float64Array, day: number, year: number, x: number): void => {
    let n = 0
    let less = 0
    let equal = 0
    let min = Infinity
    let max = -Infinity
    for (let y = 0; y < years; y++) {
      if (y === year - firstYear) continue
      const first = windowStart(y, day)
      const to = Math.min(first + SPAN, length)
      for (let i = Math.max(first, 0); i < to; i++) {
        const v = values[i]!
        if (Number.isNaN(v)) continue
        n++
        if (v < x) less++
        else if (v === x) equal++
        if (v < min) min = v
        if (v > max) max = v
      }
    }
    rankedColumns = undefined
    rankedN = n
    rankedP = Number.isNaN(x) || n < minSample || n === 0 ? Number.NaN : percentileFromCounts(less, equal, n)
    scannedMin = min
    scannedMax = max
  }

  /** Ranks `x` in a calendar day's columns minus the date's own window. */
  const rankColumns = (c: Columns, values: Float64Array, date: CivilDate.EpochDay, day: number, year: number, x: number): void => {
    const { start } = c
    const count = ownValues(values, date, year)
    let total = 0
    let less = 0
    let equal = 0
    if (c._tag === "Counted") {
      const { at, from, lo, top } = c
      // Values below x are those below its tenth (or the next above it); equal ones are that tenth's.
      const t = Number.isNaN(x) ? 0 : tenthAtOrAbove(x)
      const exact = t / 10 === x
      for (let p = PARTS_AT[day]!; p < PARTS_AT[day + 1]!; p++) {
        const s = PARTS[p]!
        total += start[s + 1]! - start[s]!
        const k = from[s]! + Math.min(Math.max(t - lo[s]! + 1, 0), top[s]!)
        less += at[k]!
        if (exact) equal += at[k + 1]! - at[k]!
      }
    } else {
      const { sorted } = c
      for (let p = PARTS_AT[day]!; p < PARTS_AT[day + 1]!; p++) {
        const s = PARTS[p]!
        const from = start[s]!
        const to = start[s + 1]!
        total += to - from
        const below = lowerBound(sorted, x, from, to)
        // Ties are few but for a dry day's rain, where a second search beats a walk.
        const above = below < to && sorted[below] === x ? upperBound(sorted, x, below + 1, to) : below
        less += below - from
        equal += above - below
      }
    }
    const n = total - count
    rankedColumns = c
    rankedDay = day
    rankedOwn = count
    rankedN = n
    if (Number.isNaN(x) || n < minSample || n === 0) {
      rankedP = Number.NaN
      return
    }
    for (let j = 0; j < count; j++) {
      if (own[j]! < x) less--
      else if (own[j] === x) equal--
    }
    rankedP = percentileFromCounts(less, equal, n)
  }

  const rank = (variable: Variable, date: CivilDate.EpochDay, x: number, c: Columns | undefined): void => {
    const i = date - record.start
    if (c !== undefined && i >= 0 && i < length) {
      // A day of the record: its calendar day is its slot's, its year one of the record's.
      rankColumns(c, record[variable], date, SLOT_DAY[slotsOfDays()[i]!]!, firstYear, x)
      return
    }
    const { day, year } = calendarDayOf(date)
    if (c === undefined) rankScanned(record[variable], day, year, x)
    else rankColumns(c, record[variable], date, day, year, x)
  }

  const grade = (variable: Variable, date: CivilDate.EpochDay, x: number): Grade => {
    rank(variable, date, x, columnsOf(variable, 1))
    const n = rankedN
    const p = rankedP
    const unit = unitOf(variable)
    if (Number.isNaN(x)) return { value: null, unit, percentile: null, label: null, n }
    if (Number.isNaN(p)) return { value: round(x, 2), unit, percentile: null, label: null, n }
    const c = rankedColumns
    const min = c === undefined ? scannedMin : c._tag === "Counted" ? extremeCounted(c, rankedDay, rankedOwn, 1) : extremeSorted(c, rankedDay, rankedOwn, 1)
    const max = c === undefined ? scannedMax : c._tag === "Counted" ? extremeCounted(c, rankedDay, rankedOwn, -1) : extremeSorted(c, rankedDay, rankedOwn, -1)
    return { value: round(x, 2), unit, percentile: round(p, 1), label: label(x, p, min, max), n }
  }

  // The calendar needs values and percentiles only: no labels, so no extremes.
  const gradeRecordRange = (variable: Variable, from: CivilDate.EpochDay, to: CivilDate.EpochDay) => {
    const c = columnsOf(variable, Math.max(to - from + 1, 0))
    const series = record[variable]
    const values: Array<number | null> = []
    const percentiles: Array<number | null> = []
    for (let date = from; date <= to; date++) {
      const i = date - record.start
      const x = i >= 0 && i < length ? series[i]! : Number.NaN
      rank(variable, date, x, c)
      values.push(Number.isNaN(x) ? null : round(x, 2))
      percentiles.push(Number.isNaN(rankedP) ? null : round(rankedP, 1))
    }
    return { values, percentiles }
  }

  // One date: its sample read from the record in the plain rule's order (years, then days), so the
  // mean's sum and the dates of the extremes (their first occurrence) are the plain rule's.
  const gathered = new Float64Array(years * SPAN)
  const climatology = (variable: Variable, date: CivilDate.EpochDay): Climatology => {
    const values = record[variable]
    const { day, year } = calendarDayOf(date)
    let n = 0
    let sum = 0
    let min = -1
    let max = -1
    for (let y = 0; y < years; y++) {
      if (y === year - firstYear) continue
      const first = windowStart(y, day)
      const to = Math.min(first + SPAN, length)
      for (let i = Math.max(first, 0); i < to; i++) {
        const v = values[i]!
        if (Number.isNaN(v)) continue
        gathered[n++] = v
        sum += v
        if (min < 0 || v < values[min]!) min = i
        if (max < 0 || v > values[max]!) max = i
      }
    }
    if (n === 0) {
      const none = { value: null, date: null }
      return { n, p10: null, p25: null, p50: null, p75: null, p90: null, mean: null, min: none, max: none }
    }
    const sorted = gathered.slice(0, n).sort()
    const q = (p: number) => round(quantileType8(sorted, p), 2)
    return {
      n,
      p10: q(0.1),
      p25: q(0.25),
      p50: q(0.5),
      p75: q(0.75),
      p90: q(0.9),
      mean: round(sum / n, 2),
      min: { value: round(values[min]!, 2), date: CivilDate.format(record.start + min) },
      max: { value: round(values[max]!, 2), date: CivilDate.format(record.start + max) }
    }
  }

  return { record, grade, gradeRecordRange, climatology }
}
