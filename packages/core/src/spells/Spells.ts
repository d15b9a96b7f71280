/**
 * Spells: heat waves (the Excess Heat Factor of Nairn & Fawcett 2015), cold spells (its mirror),
 * dry and wet spells, found over a cell's series (the record, then the forecast) and each ranked
 * against every other of its kind at that place (the rules: docs/api.md "Spells").
 *
 * Pure functions without IO. The baseline's thresholds are a function of the record alone (but
 * for an edge case, `thresholdsHeld`), so a caller computes them once per record and passes them
 * in; a build is then one pass over the series for the daily mean temperature (and where it is
 * missing), one for the factors and runs of all four kinds, and a sort per kind for the ranks.
 */
import * as CivilDate from "../CivilDate.js"
import { quantileLinear, round, upperBound } from "../grading/Percentile.js"
import * as Baseline from "../trend/Baseline.js"
import type { DailySeries } from "../weather/DailySeries.js"

export const KINDS = ["heat", "cold", "dry", "wet"] as const
export type Kind = (typeof KINDS)[number]
export type Severity = "low" | "severe" | "extreme"

/** EHF's acclimatisation period: the mean of the 30 days before a window. */
export const ACCLIMATISATION = 30
/** EHF's window: today and the two days after. */
export const WINDOW = 3
/** ETCCDI's wet-day threshold (mm): a dry day has less, a wet day at least this. */
export const WET_DAY_MM = 1
export const DRY_MIN_DAYS = 5
export const WET_MIN_DAYS = 3
/** How many spells of each kind `top` lists. */
export const TOP = 10
/** `recent` reaches back this many days before today. */
export const RECENT_DAYS = 730

export interface Thresholds {
  /** The 95th and 5th percentiles (linear) of the baseline's daily mean temperatures (°C). */
  readonly t95: number
  readonly t05: number
  /** The 85th percentile (linear) of the positive EHF / CF of the baseline's days (°C²); null when none is positive. */
  readonly ehf85: number | null
  readonly cf85: number | null
}

export interface Spell {
  readonly kind: Kind
  readonly start: CivilDate.EpochDay
  readonly end: CivilDate.EpochDay
  readonly days: number
  /** Heat and cold: the peak factor (°C²); wet: the total (mm); dry: NaN. Unrounded. */
  readonly value: number
  /** Heat and cold only; null for dry and wet. */
  readonly severity: Severity | null
  /** 1 + the spells of its kind that are strictly longer. */
  readonly rankDays: number
  /** 1 + the spells of its kind with a strictly larger value; null for dry spells. */
  readonly rankValue: number | null
  /** How many spells of its kind the series holds. */
  readonly of: number
  /** Whether any of its days is past the record's last day. */
  readonly forecast: boolean
}

export interface YearCount {
  readonly year: number
  readonly heatDays: number
  readonly coldDays: number
  /** The longest dry spell that ends in the year; 0 when none does. */
  readonly dryLongest: number
  readonly wetDays: number
}

export interface Spells {
  /** The record's first and last day, and the series' last day (the last forecast day). */
  readonly first: CivilDate.EpochDay
  readonly last: CivilDate.EpochDay
  readonly until: CivilDate.EpochDay
  readonly baseline: Baseline.Baseline | null
  readonly thresholds: Thresholds | null
  /** Every spell of each kind, by start. */
  readonly all: Readonly<Record<Kind, ReadonlyArray<Spell>>>
  /** The spells that include today or start after it, by start (kinds in KINDS order on a tie). */
  readonly now: ReadonlyArray<Spell>
  /** Per kind, the TOP best ranked, ties by the earlier start. */
  readonly top: Readonly<Record<Kind, ReadonlyArray<Spell>>>
  readonly years: ReadonlyArray<YearCount>
  /** The spells that end on or after today − RECENT_DAYS, by start. */
  readonly recent: ReadonlyArray<Spell>
}

const lastOf = (series: DailySeries) => series.start + series.tmax.length - 1

/**
 * The series spells are found in: the record's values for every date up to `recordLast` (a null
 * there stays null), then the forecast's for the days after it, to the forecast's last day.
 */
export const series = (record: DailySeries, recordLast: CivilDate.EpochDay, forecast: DailySeries | null): DailySeries => {
  const start = record.start
  const until = Math.max(recordLast, forecast === null ? recordLast : lastOf(forecast))
  const n = until - start + 1
  const make = (k: "tmax" | "tmin" | "precip") => {
    const out = new Float64Array(n).fill(Number.NaN)
    const own = record[k]
    out.set(own.subarray(0, Math.max(0, Math.min(own.length, recordLast - start + 1))))
    if (forecast !== null) {
      const values = forecast[k]
      // The forecast's days after the record: from index `from` of the forecast on.
      const from = Math.max(0, recordLast + 1 - forecast.start)
      if (from < values.length) out.set(values.subarray(from), forecast.start + from - start)
    }
    return out
  }
  return { start, tmax: make("tmax"), tmin: make("tmin"), precip: make("precip") }
}

/** t = (tmax + tmin) / 2 for every day of the series, NaN where either is missing. */
export const meanTemperature = (s: DailySeries): Float64Array => {
  const n = s.tmax.length
  const t = new Float64Array(n)
  const { tmax, tmin } = s
  for (let i = 0; i < n; i++) t[i] = (tmax[i]! + tmin[i]!) / 2
  return t
}

/** Prefix counts of missing t: entry i counts the days before i without one. */
const missingBefore = (t: Float64Array): Int32Array => {
  const out = new Int32Array(t.length + 1)
  for (let i = 0; i < t.length; i++) out[i + 1] = out[i]! + (Number.isNaN(t[i]!) ? 1 : 0)
  return out
}

/** Whether day i has a window: t on i, i+1, i+2 and on each of the 30 days before. */
const hasWindow = (missing: Int32Array, i: number): boolean =>
  i >= ACCLIMATISATION && i + WINDOW < missing.length && missing[i + WINDOW]! === missing[i - ACCLIMATISATION]!

/** The window's mean, (t(i) + t(i+1) + t(i+2)) / 3. */
const m3At = (t: Float64Array, i: number): number => (t[i]! + t[i + 1]! + t[i + 2]!) / 3

/**
 * The mean t of the 30 days before i, summed afresh in order (not a running sum, so a window's
 * value does not depend on where in the series it lies). Asked only where a factor is positive:
 * its sign is that of m3 − t95 (t05 − m3), the other term being at least 1.
 */
const acclimatisedAt = (t: Float64Array, i: number): number => {
  let sum = 0
  for (let k = i - ACCLIMATISATION; k < i; k++) sum += t[k]!
  return sum / ACCLIMATISATION
}

/** EHF(i) = (m3 − t95) × max(1, m3 − acc). */
export const ehf = (m3: number, acc: number, t95: number): number => (m3 - t95) * Math.max(1, m3 - acc)
/** CF(i) = (t05 − m3) × max(1, acc − m3): cold is positive. */
export const cf = (m3: number, acc: number, t05: number): number => (t05 - m3) * Math.max(1, acc - m3)

/** The days [from, to] of the series by index, clamped into it. */
const baselineRange = (s: DailySeries, baseline: Baseline.Baseline) => ({
  from: Math.max(0, CivilDate.fromYmd({ year: baseline.from, month: 1, day: 1 }) - s.start),
  to: Math.min(s.tmax.length - 1, CivilDate.fromYmd({ year: baseline.to, month: 12, day: 31 }) - s.start)
})

/**
 * The thresholds of a series over a baseline: t95 and t05 over the baseline's days with a t,
 * then ehf85 and cf85 over the baseline's positive factors. Null without a baseline or a t in it.
 * `t` may be given when already computed (the daily means of `s`).
 */
export const thresholds = (s: DailySeries, baseline: Baseline.Baseline | null, t = meanTemperature(s)): Thresholds | null => {
  if (baseline === null) return null
  const { from, to } = baselineRange(s, baseline)
  const values: Array<number> = []
  for (let i = from; i <= to; i++) if (!Number.isNaN(t[i]!)) values.push(t[i]!)
  if (values.length === 0) return null
  const sorted = Float64Array.from(values).sort()
  const t95 = quantileLinear(sorted, 0.95)
  const t05 = quantileLinear(sorted, 0.05)
  const heat: Array<number> = []
  const cold: Array<number> = []
  const missing = missingBefore(t)
  for (let i = from; i <= to; i++) {
    if (!hasWindow(missing, i)) continue
    const m3 = m3At(t, i)
    if (m3 > t95) heat.push(ehf(m3, acclimatisedAt(t, i), t95))
    if (m3 < t05) cold.push(cf(m3, acclimatisedAt(t, i), t05))
  }
  const p85 = (xs: Array<number>) => (xs.length === 0 ? null : quantileLinear(Float64Array.from(xs).sort(), 0.85))
  return { t95, t05, ehf85: p85(heat), cf85: p85(cold) }
}

/**
 * Whether thresholds computed from the record alone hold for any forecast after it: true unless
 * a baseline day's window reaches past the record's last day (a record that ends within two days
 * of its baseline's end), when the forecast's first days enter them.
 */
export const thresholdsHeld = (record: DailySeries, recordLast: CivilDate.EpochDay): boolean => {
  const baseline = Baseline.of(record.start, recordLast)
  return baseline === null || CivilDate.fromYmd({ year: baseline.to, month: 12, day: 31 }) + WINDOW - 1 <= recordLast
}

/** Severity of a heat wave or cold spell by its peak against the baseline's 85th percentile. */
export const severity = (peak: number, p85: number | null): Severity =>
  p85 !== null && peak >= 3 * p85 ? "extreme" : p85 !== null && peak >= p85 ? "severe" : "low"

/** A spell as found, before it is ranked. */
interface Found {
  readonly start: number
  end: number
  value: number
}

/**
 * Runs of days flagged by windows: a window at i with a positive factor flags i, i+1 and i+2;
 * windows come in increasing i, and one that starts at most a day after the current run's end
 * extends it (a maximal run of consecutive flagged days), keeping the largest factor.
 */
class WindowRuns {
  readonly runs: Array<Found> = []
  private current: Found | undefined
  add(i: number, factor: number) {
    const c = this.current
    if (c !== undefined && i <= c.end + 1) {
      c.end = i + WINDOW - 1
      if (factor > c.value) c.value = factor
      return
    }
    this.current = { start: i, end: i + WINDOW - 1, value: factor }
    this.runs.push(this.current)
  }
}

/** 1 + how many of `values` are strictly greater, for each, by one sort and a binary search each. */
const ranks = (values: ReadonlyArray<number>): Array<number> => {
  const sorted = Float64Array.from(values).sort()
  return values.map((v) => 1 + sorted.length - upperBound(sorted, v))
}

/**
 * The TOP spells of lowest rank, ties by the earlier start, from spells in start order: one pass
 * keeping the best so far in order (a later spell of equal rank never displaces an earlier one).
 */
const best = (spells: ReadonlyArray<Spell>, rank: (x: Spell) => number): Array<Spell> => {
  const kept: Array<Spell> = []
  for (const x of spells) {
    const r = rank(x)
    if (kept.length === TOP && r >= rank(kept[TOP - 1]!)) continue
    let at = kept.length
    while (at > 0 && rank(kept[at - 1]!) > r) at--
    kept.splice(at, 0, x)
    if (kept.length > TOP) kept.pop()
  }
  return kept
}

export interface BuildInput {
  readonly series: DailySeries
  /** The record's last day: days after it are the forecast's. */
  readonly recordLast: CivilDate.EpochDay
  /** The cell's local today. */
  readonly today: CivilDate.EpochDay
  /**
   * The baseline's thresholds when held (computed once per record with `thresholds`); computed
   * here when absent.
   */
  readonly thresholds?: Thresholds | null
}

const byStart = (a: Spell, b: Spell) => a.start - b.start

export const build = (input: BuildInput): Spells => {
  const s = input.series
  const n = s.tmax.length
  const first = s.start
  const last = input.recordLast
  const until = first + n - 1
  const baseline = Baseline.of(first, last)
  const t = meanTemperature(s)
  const held = input.thresholds !== undefined ? input.thresholds : thresholds(s, baseline, t)
  const th = baseline === null ? null : held

  // One pass: the factors and their runs, and the dry and wet runs.
  const heat = new WindowRuns()
  const cold = new WindowRuns()
  const dry: Array<Found> = []
  const wet: Array<Found> = []
  let dryFrom = -1
  let wetFrom = -1
  let wetTotal = 0
  const precip = s.precip
  const missing = missingBefore(t)
  for (let i = 0; i <= n; i++) {
    if (i < n && th !== null && hasWindow(missing, i)) {
      const m3 = m3At(t, i)
      if (m3 > th.t95) heat.add(i, ehf(m3, acclimatisedAt(t, i), th.t95))
      if (m3 < th.t05) cold.add(i, cf(m3, acclimatisedAt(t, i), th.t05))
    }
    // Past the last day, p is NaN: it ends whatever run is open.
    const p = i < n ? precip[i]! : Number.NaN
    const isDry = p < WET_DAY_MM
    const isWet = p >= WET_DAY_MM
    if (!isDry && dryFrom >= 0) {
      if (i - dryFrom >= DRY_MIN_DAYS) dry.push({ start: dryFrom, end: i - 1, value: Number.NaN })
      dryFrom = -1
    }
    if (!isWet && wetFrom >= 0) {
      if (i - wetFrom >= WET_MIN_DAYS) wet.push({ start: wetFrom, end: i - 1, value: wetTotal })
      wetFrom = -1
      wetTotal = 0
    }
    if (isDry && dryFrom < 0) dryFrom = i
    if (isWet) {
      if (wetFrom < 0) wetFrom = i
      wetTotal += p
    }
  }

  const finish = (kind: Kind, found: ReadonlyArray<Found>): Array<Spell> => {
    const days = found.map((f) => f.end - f.start + 1)
    const byDays = ranks(days)
    const byValue = kind === "dry" ? undefined : ranks(found.map((f) => f.value))
    const p85 = kind === "heat" ? (th?.ehf85 ?? null) : kind === "cold" ? (th?.cf85 ?? null) : null
    return found.map((f, k) => ({
      kind,
      start: first + f.start,
      end: first + f.end,
      days: days[k]!,
      value: f.value,
      severity: kind === "heat" || kind === "cold" ? severity(f.value, p85) : null,
      rankDays: byDays[k]!,
      rankValue: byValue === undefined ? null : byValue[k]!,
      of: found.length,
      forecast: first + f.end > last
    }))
  }
  const all = { heat: finish("heat", heat.runs), cold: finish("cold", cold.runs), dry: finish("dry", dry), wet: finish("wet", wet) }

  const topOf = (kind: Kind): Array<Spell> => (kind === "dry" ? best(all[kind], (x) => x.rankDays) : best(all[kind], (x) => x.rankValue!))
  // Every kind's spells are in start order already: a stable sort keeps KINDS order on a tie.
  const every = [...all.heat, ...all.cold, ...all.dry, ...all.wet]
  const now = every.filter((x) => x.end >= input.today).sort(byStart)
  const recent = every.filter((x) => x.end >= input.today - RECENT_DAYS).sort(byStart)

  return {
    first,
    last,
    until,
    baseline,
    thresholds: th,
    all,
    now,
    top: { heat: topOf("heat"), cold: topOf("cold"), dry: topOf("dry"), wet: topOf("wet") },
    years: yearCounts(first, until, all),
    recent
  }
}

/** Every calendar year of [first, until]: heat-, cold- and wet-spell days and the longest dry spell ending in it. */
const yearCounts = (first: number, until: number, all: Readonly<Record<Kind, ReadonlyArray<Spell>>>): Array<YearCount> => {
  const y0 = CivilDate.toYmd(first).year
  const y1 = CivilDate.toYmd(until).year
  const count = y1 - y0 + 1
  const jan1 = Int32Array.from({ length: count + 1 }, (_, k) => CivilDate.fromYmd({ year: y0 + k, month: 1, day: 1 }))
  const yearIndex = (date: number) => upperBound(jan1, date) - 1
  const days = { heat: new Int32Array(count), cold: new Int32Array(count), wet: new Int32Array(count) }
  for (const kind of ["heat", "cold", "wet"] as const) {
    for (const x of all[kind]) {
      for (let y = yearIndex(x.start); y <= yearIndex(x.end); y++) {
        days[kind][y]! += Math.min(x.end, jan1[y + 1]! - 1) - Math.max(x.start, jan1[y]!) + 1
      }
    }
  }
  const dryLongest = new Int32Array(count)
  for (const x of all.dry) {
    const y = yearIndex(x.end)
    if (x.days > dryLongest[y]!) dryLongest[y] = x.days
  }
  return Array.from({ length: count }, (_, y) => ({
    year: y0 + y,
    heatDays: days.heat[y]!,
    coldDays: days.cold[y]!,
    dryLongest: dryLongest[y]!,
    wetDays: days.wet[y]!
  }))
}

/** A spell as the API shows it: dates as YYYY-MM-DD, peaks and totals to 0.1, only its kind's fields. */
export interface SpellJson {
  readonly kind: Kind
  readonly start: string
  readonly end: string
  readonly days: number
  readonly peak?: number
  readonly total?: number
  readonly severity?: Severity
  readonly rank_days: number
  readonly rank_peak?: number
  readonly rank_total?: number
  readonly of: number
  readonly forecast: boolean
}

/** The view's body without `view`, `v` and `cell` (what the command line's `--json` prints too). */
export interface SpellsJson {
  readonly first: string
  readonly last: string
  readonly until: string
  readonly baseline: { readonly from: number; readonly to: number } | null
  readonly thresholds: { readonly t95: number; readonly t05: number; readonly ehf85: number | null; readonly cf85: number | null } | null
  readonly now: ReadonlyArray<SpellJson>
  readonly top: { readonly heat: ReadonlyArray<SpellJson>; readonly cold: ReadonlyArray<SpellJson>; readonly dry: ReadonlyArray<SpellJson>; readonly wet: ReadonlyArray<SpellJson> }
  readonly years: ReadonlyArray<{ readonly year: number; readonly heat_days: number; readonly cold_days: number; readonly dry_longest: number; readonly wet_days: number }>
  readonly recent: ReadonlyArray<SpellJson>
}

export const spellJson = (x: Spell): SpellJson => {
  const start = CivilDate.format(x.start)
  const end = CivilDate.format(x.end)
  switch (x.kind) {
    case "heat":
    case "cold":
      return {
        kind: x.kind,
        start,
        end,
        days: x.days,
        peak: round(x.value, 1),
        severity: x.severity!,
        rank_days: x.rankDays,
        rank_peak: x.rankValue!,
        of: x.of,
        forecast: x.forecast
      }
    case "wet":
      return {
        kind: x.kind,
        start,
        end,
        days: x.days,
        total: round(x.value, 1),
        rank_days: x.rankDays,
        rank_total: x.rankValue!,
        of: x.of,
        forecast: x.forecast
      }
    case "dry":
      return { kind: x.kind, start, end, days: x.days, rank_days: x.rankDays, of: x.of, forecast: x.forecast }
  }
}

const r2 = (x: number | null) => (x === null ? null : round(x, 2))

export const toJson = (spells: Spells): SpellsJson => ({
  first: CivilDate.format(spells.first),
  last: CivilDate.format(spells.last),
  until: CivilDate.format(spells.until),
  baseline: spells.baseline,
  thresholds:
    spells.thresholds === null
      ? null
      : { t95: round(spells.thresholds.t95, 2), t05: round(spells.thresholds.t05, 2), ehf85: r2(spells.thresholds.ehf85), cf85: r2(spells.thresholds.cf85) },
  now: spells.now.map(spellJson),
  top: {
    heat: spells.top.heat.map(spellJson),
    cold: spells.top.cold.map(spellJson),
    dry: spells.top.dry.map(spellJson),
    wet: spells.top.wet.map(spellJson)
  },
  years: spells.years.map((y) => ({
    year: y.year,
    heat_days: y.heatDays,
    cold_days: y.coldDays,
    dry_longest: y.dryLongest,
    wet_days: y.wetDays
  })),
  recent: spells.recent.map(spellJson)
})
