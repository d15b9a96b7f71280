/**
 * The climate context of a cell's record (`GET /trend`): every calendar year's means and
 * sums, the baseline, and how this month, season and year so far stand against the same span of
 * every earlier year.
 *
 * One pass over the record builds running sums and counts of each variable; every span after
 * that (a year, a period, a period shifted back k years) is two subtractions, so an 87-year
 * record costs one scan and a few hundred lookups, never a re-scan per year.
 */
import * as CivilDate from "../CivilDate.js"
import * as DailySeries from "../weather/DailySeries.js"
import type { Variable } from "../weather/DailySeries.js"
import * as Baseline from "./Baseline.js"
import * as Ranking from "./Ranking.js"
import * as Spans from "./Spans.js"

/** A year's mean or sum is shown only over at least this many days with a value. */
export const MIN_YEAR_VALUES = 300

/**
 * Rounds to 0.1, halves upwards. Ranks are taken on these rounded values, and rounding half up
 * commutes with adding whole tenths, so where 0 °C lies cannot change a rank (half away from
 * zero would round −0.05 and 0.05 apart and then tie them after a shift of 0.1). The 1e-9
 * absorbs the binary error of a mean that is a true half (e.g. 12.25).
 */
export const round = (x: number): number => Math.floor(x * 10 + 0.5 + 1e-9) / 10

/** A year of the record: its days between the record's ends and each variable's mean (sum for precipitation). */
export interface YearStats {
  readonly year: number
  readonly days: number
  readonly tmax: number | null
  readonly tmin: number | null
  readonly precip: number | null
}

export interface PeriodStanding {
  readonly span: Spans.Span
  readonly variables: Readonly<Record<Variable, Ranking.Standing>>
}

export interface Trend {
  readonly first: CivilDate.EpochDay
  readonly last: CivilDate.EpochDay
  readonly baseline: Baseline.Baseline | null
  readonly years: ReadonlyArray<YearStats>
  readonly periods: Readonly<Record<Spans.Period, PeriodStanding>>
}

/** Running sums and counts of values: entry i covers the record's days before index i. */
interface Running {
  readonly sum: Float64Array
  readonly count: Int32Array
}

/** The running sums of all three variables, in one pass over the record. */
const running = (series: DailySeries.DailySeries): Readonly<Record<Variable, Running>> => {
  const n = DailySeries.length(series)
  const make = (): Running => ({ sum: new Float64Array(n + 1), count: new Int32Array(n + 1) })
  const out = { tmax: make(), tmin: make(), precip: make() }
  const { precip, tmax, tmin } = series
  let sx = 0
  let sn = 0
  let sp = 0
  let cx = 0
  let cn = 0
  let cp = 0
  for (let i = 0; i < n; i++) {
    const x = tmax[i]!
    const m = tmin[i]!
    const p = precip[i]!
    if (!Number.isNaN(x)) {
      sx += x
      cx++
    }
    if (!Number.isNaN(m)) {
      sn += m
      cn++
    }
    if (!Number.isNaN(p)) {
      sp += p
      cp++
    }
    out.tmax.sum[i + 1] = sx
    out.tmax.count[i + 1] = cx
    out.tmin.sum[i + 1] = sn
    out.tmin.count[i + 1] = cn
    out.precip.sum[i + 1] = sp
    out.precip.count[i + 1] = cp
  }
  return out
}

/** The statistic of a variable over values summing to `sum`: the mean for temperatures, the sum for precipitation. */
const statistic = (variable: Variable, sum: number, count: number) => round(variable === "precip" ? sum : sum / count)

export const build = (series: DailySeries.DailySeries): Trend => {
  const first = series.start
  const last = series.start + DailySeries.length(series) - 1
  const sums = running(series)
  /** Values and their sum over [from, to], a span inside the record. */
  const over = (variable: Variable, from: number, to: number) => {
    const r = sums[variable]
    const i = from - first
    const j = to - first + 1
    return { sum: r.sum[j]! - r.sum[i]!, count: r.count[j]! - r.count[i]! }
  }

  const years: Array<YearStats> = []
  for (let year = Spans.yearOf(first); year <= Spans.yearOf(last); year++) {
    const from = Math.max(first, CivilDate.fromYmd({ year, month: 1, day: 1 }))
    const to = Math.min(last, CivilDate.fromYmd({ year, month: 12, day: 31 }))
    const stat = (variable: Variable) => {
      const { count, sum } = over(variable, from, to)
      return count < MIN_YEAR_VALUES ? null : statistic(variable, sum, count)
    }
    years.push({ year, days: to - from + 1, tmax: stat("tmax"), tmin: stat("tmin"), precip: stat("precip") })
  }

  /** The statistic over a span, or null when the span leaves the record or misses a day of the variable. */
  const whole = (variable: Variable, span: Spans.Span): number | null => {
    if (span.from < first || span.to > last) return null
    const { count, sum } = over(variable, span.from, span.to)
    return count === span.to - span.from + 1 ? statistic(variable, sum, count) : null
  }

  const standing = (span: Spans.Span): PeriodStanding => {
    const year = Spans.yearOf(span.to)
    // Every earlier span that starts inside the record (each ends before `last`).
    const earlier: Array<{ readonly year: number; readonly span: Spans.Span }> = []
    for (let k = 1; ; k++) {
      const shifted = Spans.shiftedBack(span, k)
      if (shifted.from < first) break
      earlier.push({ year: year - k, span: shifted })
    }
    const rank = (variable: Variable) => {
      const compared: Array<Ranking.YearValue> = []
      for (const e of earlier) {
        const value = whole(variable, e.span)
        if (value !== null) compared.push({ year: e.year, value })
      }
      return Ranking.standing({ year, value: whole(variable, span) }, compared)
    }
    return { span, variables: { tmax: rank("tmax"), tmin: rank("tmin"), precip: rank("precip") } }
  }

  const spans = Spans.periods(last)
  return {
    first,
    last,
    baseline: Baseline.of(first, last),
    years,
    periods: { month: standing(spans.month), season: standing(spans.season), year: standing(spans.year) }
  }
}
