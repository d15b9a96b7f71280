/**
 * The trend rules without IO: yearly statistics, the period spans, the spans
 * shifted back by whole years, ranking and the baseline. A plain reference written again here
 * (JavaScript's UTC Date for the calendar, a day-by-day scan of every span) is the oracle for
 * random records; the calendar's hard cases are spelled out as examples.
 */
import { describe, expect, it } from "@effect/vitest"
import { Baseline, CivilDate, Ranking, Spans, Trend } from "@climate-grade/core"
import * as FastCheck from "effect/FastCheck"

const d = (year: number, month: number, day: number) => CivilDate.fromYmd({ year, month, day })
const variables = ["tmax", "tmin", "precip"] as const
type Variable = (typeof variables)[number]
type Series = { start: number; tmax: Float64Array; tmin: Float64Array; precip: Float64Array }

const seeded = (seed: number) => {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 2246822507) + 0x9e3779b9) >>> 0
    return s / 2 ** 32
  }
}

/**
 * Records that start on any day of a year (or end on a hard one: 29 February, the ends of a
 * year, the first of a season), run 1–35 years, hold whole tenths from a small set (so rounded
 * values tie often), single missing days, and sometimes a long gap that leaves a year under 300
 * values.
 */
const recordArb = FastCheck.record({
  startYear: FastCheck.integer({ min: 1955, max: 2000 }),
  startDay: FastCheck.oneof(FastCheck.constant(0), FastCheck.integer({ min: 0, max: 365 })),
  // Records under a year and a bit are a third of them: periods that start before the record.
  length: FastCheck.oneof(
    FastCheck.integer({ min: 1, max: 35 * 366 }),
    FastCheck.integer({ min: 1, max: 400 }),
    FastCheck.integer({ min: 1, max: 35 * 366 })
  ),
  seed: FastCheck.integer(),
  nanRate: FastCheck.constantFrom(0, 0, 0.0005, 0.01),
  gap: FastCheck.option(FastCheck.record({ at: FastCheck.nat(), days: FastCheck.integer({ min: 1, max: 120 }) }), { nil: undefined }),
  spread: FastCheck.constantFrom(3, 40),
  end: FastCheck.option(
    FastCheck.tuple(
      FastCheck.integer({ min: 1990, max: 2030 }),
      FastCheck.constantFrom([2, 29], [2, 28], [3, 1], [12, 1], [12, 31], [1, 1], [11, 30])
    ),
    { nil: undefined }
  )
}).map(({ end, gap, length, nanRate, seed, spread, startDay, startYear }): Series => {
  const random = seeded(seed)
  // 29 February in a leap year (every fourth year from 1988 to 2028 is one).
  const last = end === undefined ? undefined : d(end[1][1] === 29 ? end[0] - (end[0] % 4) : end[0], end[1][0]!, end[1][1]!)
  const start = last === undefined ? d(startYear, 1, 1) + startDay : last - length + 1
  const make = (base: number) =>
    Float64Array.from({ length }, (_, i) =>
      random() < nanRate || (gap !== undefined && i >= gap.at % length && i < (gap.at % length) + gap.days)
        ? Number.NaN
        : base + Math.floor(random() * spread) / 10
    )
  // A record's last day has a value (the record ends there).
  const series = { start, tmax: make(-1), tmin: make(-5), precip: make(0) }
  for (const v of variables) if (Number.isNaN(series[v][length - 1]!)) series[v][length - 1] = 1
  return series
})

// ---- the reference: UTC Date arithmetic and a scan of every span ----

const DAY_MS = 86_400_000
const dateOf = (epochDay: number) => new Date(epochDay * DAY_MS)
const epochDayOf = (year: number, monthIndex: number, day: number) => Date.UTC(year, monthIndex, day) / DAY_MS
const referenceRound = (x: number) => Math.floor(x * 10 + 0.5 + 1e-9) / 10

const reference = (series: Series) => {
  const n = series.tmax.length
  const first = series.start
  const last = series.start + n - 1
  const at = (v: Variable, day: number) => (day >= first && day <= last ? series[v][day - first]! : Number.NaN)
  const stat = (v: Variable, values: Array<number>) => {
    const sum = values.reduce((a, b) => a + b, 0)
    return referenceRound(v === "precip" ? sum : sum / values.length)
  }
  const years = []
  for (let year = dateOf(first).getUTCFullYear(); year <= dateOf(last).getUTCFullYear(); year++) {
    let days = 0
    const values: Record<Variable, Array<number>> = { tmax: [], tmin: [], precip: [] }
    for (let day = first; day <= last; day++) {
      if (dateOf(day).getUTCFullYear() !== year) continue
      days++
      for (const v of variables) if (!Number.isNaN(at(v, day))) values[v].push(at(v, day))
    }
    const one = (v: Variable) => (values[v].length < 300 ? null : stat(v, values[v]))
    years.push({ year, days, tmax: one("tmax"), tmin: one("tmin"), precip: one("precip") })
  }
  const end = dateOf(last)
  const [Y, M] = [end.getUTCFullYear(), end.getUTCMonth()]
  const seasonFirst = M === 11 ? epochDayOf(Y, 11, 1) : M < 2 ? epochDayOf(Y - 1, 11, 1) : epochDayOf(Y, M - ((M - 2) % 3), 1)
  const spans = { month: epochDayOf(Y, M, 1), season: seasonFirst, year: epochDayOf(Y, 0, 1) }
  /** The same month and day `k` years back; 29 February becomes 28 February where that year has none. */
  const back = (day: number, k: number) => {
    const date = dateOf(day)
    const y = date.getUTCFullYear() - k
    const moved = epochDayOf(y, date.getUTCMonth(), date.getUTCDate())
    return dateOf(moved).getUTCMonth() === date.getUTCMonth() ? moved : epochDayOf(y, date.getUTCMonth(), date.getUTCDate() - 1)
  }
  const spanValue = (v: Variable, from: number, to: number) => {
    if (from < first) return null
    const values: Array<number> = []
    for (let day = from; day <= to; day++) {
      if (Number.isNaN(at(v, day))) return null
      values.push(at(v, day))
    }
    return stat(v, values)
  }
  const period = (from: number) => {
    const standing = (v: Variable) => {
      const own = spanValue(v, from, last)
      const all: Array<{ year: number; value: number }> = []
      for (let k = 1; back(from, k) >= first; k++) {
        const value = spanValue(v, back(from, k), back(last, k))
        if (value !== null) all.push({ year: Y - k, value })
      }
      const of = all.length + 1
      if (own === null) return { value: null, rank: null, of, highest: null, lowest: null }
      all.push({ year: Y, value: own })
      const byYear = [...all].sort((a, b) => a.year - b.year)
      const highest = byYear.reduce((a, b) => (b.value > a.value ? b : a))
      const lowest = byYear.reduce((a, b) => (b.value < a.value ? b : a))
      return { value: own, rank: 1 + all.filter((x) => x.value > own).length, of, highest, lowest }
    }
    return { span: { from, to: last }, variables: { tmax: standing("tmax"), tmin: standing("tmin"), precip: standing("precip") } }
  }
  return {
    first,
    last,
    years,
    periods: { month: period(spans.month), season: period(spans.season), year: period(spans.year) }
  }
}

const record = (from: number, to: number, value: (v: Variable, day: number) => number): Series => {
  const length = to - from + 1
  const make = (v: Variable) => Float64Array.from({ length }, (_, i) => value(v, from + i))
  return { start: from, tmax: make("tmax"), tmin: make("tmin"), precip: make("precip") }
}

describe("Trend.build", () => {
  it("equals the reference on random records: mid-year starts, gaps, short years, ties, leap days", () => {
    const seen = { ranked: 0, tied: 0, missingOwn: 0, shortYear: 0, midYearStart: 0, wholeYear: 0 }
    FastCheck.assert(
      FastCheck.property(recordArb, (series) => {
        const { baseline: _, ...built } = Trend.build(series)
        expect(built).toEqual(reference(series))
        for (const p of Object.values(built.periods)) {
          for (const s of Object.values(p.variables)) {
            if (s.value === null) seen.missingOwn++
            else if (s.of >= 3) seen.ranked++
            // An earlier year with the same rounded value named as an extreme: a tie decided by the earliest year.
            const year = Spans.yearOf(built.last)
            if ((s.highest?.value === s.value && s.highest?.year !== year) || (s.lowest?.value === s.value && s.lowest?.year !== year)) seen.tied++
          }
        }
        if (built.years.some((y) => y.tmax === null && y.days >= 300)) seen.shortYear++
        if (built.years.some((y) => y.tmax !== null)) seen.wholeYear++
        if (CivilDate.toYmd(series.start).day !== 1) seen.midYearStart++
      }),
      { numRuns: 150 }
    )
    // The generators reach every case the rule distinguishes. Seen over 150 runs (counts per period
    // and variable for the first three): ~550-700 ranked against 2 or more years, ~230-250 ties named
    // by the earliest year, ~400-500 periods missing a day, 25-40 records with a short year, ~70-80
    // mid-year starts, ~80-100 with a whole year's statistics. Ten of any is far below a chance shortfall.
    expect(seen.ranked).toBeGreaterThan(10)
    expect(seen.tied).toBeGreaterThan(10)
    expect(seen.missingOwn).toBeGreaterThan(10)
    expect(seen.shortYear).toBeGreaterThan(10)
    expect(seen.midYearStart).toBeGreaterThan(10)
    expect(seen.wholeYear).toBeGreaterThan(10)
  }, 120_000)

  it("a period raised above every other year ranks 1 and is the highest; lowered below all, it ranks last and is the lowest", () => {
    const seen = { ranked: 0, outside: 0 }
    FastCheck.assert(
      FastCheck.property(
        recordArb,
        FastCheck.constantFrom(...Spans.PERIODS),
        FastCheck.constantFrom(...variables),
        (series, period, variable) => {
          const span = Spans.periods(series.start + series.tmax.length - 1)[period]
          const year = Spans.yearOf(span.to)
          const moved = (by: number) => {
            const values = Float64Array.from(series[variable])
            // Whole days: the period itself then misses none.
            for (let day = Math.max(span.from, series.start); day <= span.to; day++) {
              const i = day - series.start
              values[i] = (Number.isNaN(values[i]!) ? 0 : values[i]!) + by
            }
            const inside = span.from >= series.start
            return { standing: Trend.build({ ...series, [variable]: values }).periods[period].variables[variable], inside }
          }
          const { inside, standing: high } = moved(10_000)
          const low = moved(-10_000).standing
          if (!inside) {
            // A period that starts before the record misses days: nothing to rank.
            seen.outside++
            expect([high.value, high.rank, low.value, low.rank]).toEqual([null, null, null, null])
            return
          }
          if (high.of > 1) seen.ranked++
          expect(high.rank).toBe(1)
          expect(high.highest).toEqual({ year, value: high.value })
          expect(low.rank).toBe(low.of)
          expect(low.lowest).toEqual({ year, value: low.value })
        }
      ),
      { numRuns: 200 }
    )
    // Most records are over a year long and their periods start inside them; records shorter than
    // a year often start after 1 January. Seen: ~100 ranked and 30-40 outside in 200 runs.
    expect(seen.ranked).toBeGreaterThan(20)
    expect(seen.outside).toBeGreaterThan(5)
  })

  it.prop(
    "adding whole tenths to every temperature changes no rank, no count and no extreme year; each value moves by the same",
    [recordArb, FastCheck.integer({ min: -400, max: 400 })],
    ([series, tenths]) => {
      const shift = (values: Float64Array) => values.map((v) => v + tenths / 10)
      const before = Trend.build(series)
      const after = Trend.build({ ...series, tmax: shift(series.tmax), tmin: shift(series.tmin) })
      const moved = (x: number | null) => (x === null ? null : Math.round(x * 10) + tenths)
      const tenthsOf = (x: number | null) => (x === null ? null : Math.round(x * 10))
      for (const period of Spans.PERIODS) {
        for (const v of ["tmax", "tmin"] as const) {
          const [b, a] = [before.periods[period].variables[v], after.periods[period].variables[v]]
          expect([a.rank, a.of, a.highest?.year, a.lowest?.year]).toEqual([b.rank, b.of, b.highest?.year, b.lowest?.year])
          expect(tenthsOf(a.value)).toEqual(moved(b.value))
          expect(tenthsOf(a.highest?.value ?? null)).toEqual(moved(b.highest?.value ?? null))
        }
      }
      for (const [i, year] of before.years.entries()) {
        expect(tenthsOf(after.years[i]!.tmax)).toEqual(moved(year.tmax))
        expect(tenthsOf(after.years[i]!.tmin)).toEqual(moved(year.tmin))
      }
    }
  )

  it("a 29 February end: compared with 28 February in common years and 29 February in leap years", () => {
    const series = record(d(2000, 1, 1), d(2024, 2, 29), () => 1)
    const t = Trend.build(series)
    const month = t.periods.month
    expect([CivilDate.format(month.span.from), CivilDate.format(month.span.to)]).toEqual(["2024-02-01", "2024-02-29"])
    // precip 1 mm a day: a leap February sums 29, a common one 28.
    expect(month.variables.precip).toEqual({
      value: 29,
      rank: 1,
      of: 25,
      highest: { year: 2000, value: 29 },
      lowest: { year: 2001, value: 28 }
    })
    expect(Spans.shiftedBack(month.span, 1)).toEqual({ from: d(2023, 2, 1), to: d(2023, 2, 28) })
    expect(Spans.shiftedBack(month.span, 4)).toEqual({ from: d(2020, 2, 1), to: d(2020, 2, 29) })
    // The year so far: 60 days in 2024, 59 in 2023.
    expect(t.periods.year.variables.precip.lowest).toEqual({ year: 2001, value: 59 })
    // Winter from 1 December 2023.
    expect(CivilDate.format(t.periods.season.span.from)).toBe("2023-12-01")
    expect(t.periods.season.variables.precip).toMatchObject({ value: 91, of: 24, lowest: { year: 2001, value: 90 } })
  })

  it("December opens the next year's winter: DJF runs from 1 December, named by the year of its end", () => {
    expect(CivilDate.format(Spans.seasonStart(d(2024, 12, 10)))).toBe("2024-12-01")
    expect(CivilDate.format(Spans.seasonStart(d(2025, 1, 15)))).toBe("2024-12-01")
    expect(CivilDate.format(Spans.seasonStart(d(2025, 2, 28)))).toBe("2024-12-01")
    expect(CivilDate.format(Spans.seasonStart(d(2025, 3, 1)))).toBe("2025-03-01")
    expect(CivilDate.format(Spans.seasonStart(d(2025, 5, 31)))).toBe("2025-03-01")
    expect(CivilDate.format(Spans.seasonStart(d(2025, 8, 31)))).toBe("2025-06-01")
    expect(CivilDate.format(Spans.seasonStart(d(2025, 11, 30)))).toBe("2025-09-01")
    // Each year's winter a little wetter: the one ending 15 January 2025 is the wettest.
    const series = record(d(1990, 1, 1), d(2025, 1, 15), (v, day) => (v === "precip" ? Spans.yearOf(day) - 1980 : 1))
    const season = Trend.build(series).periods.season
    expect(CivilDate.format(season.span.from)).toBe("2024-12-01")
    // 31 December days of 2024 (44 mm each) and 15 January days of 2025 (45 mm each).
    expect(season.variables.precip).toMatchObject({ value: 31 * 44 + 15 * 45, rank: 1, of: 35 })
    // The oldest winter that fits starts on 1 December 1990, ends 15 January 1991, and is named 1991.
    expect(season.variables.precip.lowest).toEqual({ year: 1991, value: 31 * 10 + 15 * 11 })
  })

  it("a record that starts mid-year: its first year is partial and has no statistics; spans before it are not compared", () => {
    const series = record(d(1990, 7, 15), d(2025, 11, 21), () => 2)
    const t = Trend.build(series)
    expect(t.years[0]).toEqual({ year: 1990, days: 170, tmax: null, tmin: null, precip: null })
    expect(t.years[1]).toEqual({ year: 1991, days: 365, tmax: 2, tmin: 2, precip: 730 })
    expect(t.years.at(-1)).toEqual({ year: 2025, days: 325, tmax: 2, tmin: 2, precip: 650 })
    expect(t.years).toHaveLength(36)
    expect(t.baseline).toEqual({ from: 1991, to: 2020 })
    // 1990's "year so far" would start on 1 January 1990, before the record: 1991–2025 compared.
    expect(t.periods.year.variables.tmax.of).toBe(35)
    // November 1990 lies in the record.
    expect(t.periods.month.variables.tmax.of).toBe(36)
    // A record that starts within this very month: the month misses days, nothing is ranked.
    const young = Trend.build(record(d(2025, 11, 5), d(2025, 11, 21), () => 2))
    expect(young.periods.month.variables.tmax).toEqual({ value: null, rank: null, of: 1, highest: null, lowest: null })
    expect(young.years).toEqual([{ year: 2025, days: 17, tmax: null, tmin: null, precip: null }])
    expect(young.baseline).toBeNull()
  })

  it("a year with fewer than 300 values has no statistics; 300 are enough", () => {
    const missing = new Set<number>()
    // 2001: 65 days missing (300 left); 2002: 66 (299 left); only tmax.
    for (let i = 0; i < 65; i++) missing.add(d(2001, 3, 1) + i)
    for (let i = 0; i < 66; i++) missing.add(d(2002, 3, 1) + i)
    const series = record(d(2000, 1, 1), d(2003, 12, 31), (v, day) => (v === "tmax" && missing.has(day) ? Number.NaN : 3))
    const years = Trend.build(series).years
    expect(years.map((y) => [y.year, y.days, y.tmax, y.tmin])).toEqual([
      [2000, 366, 3, 3],
      [2001, 365, 3, 3],
      [2002, 365, null, 3],
      [2003, 365, 3, 3]
    ])
  })

  it("a missing day: this period's value, rank and extremes are null; an earlier span missing one is not compared", () => {
    const base = record(d(2000, 1, 1), d(2010, 6, 20), () => 5)
    const withHole = (day: number) => {
      const tmin = Float64Array.from(base.tmin)
      tmin[day - base.start] = Number.NaN
      return Trend.build({ ...base, tmin })
    }
    const own = withHole(d(2010, 6, 3)).periods.month.variables
    expect(own.tmin).toEqual({ value: null, rank: null, of: 11, highest: null, lowest: null })
    expect(own.tmax).toMatchObject({ value: 5, rank: 1, of: 11 })
    const earlier = withHole(d(2004, 6, 20)).periods.month.variables.tmin
    expect(earlier).toMatchObject({ value: 5, of: 10 })
    // The day after the span's end does not count.
    expect(withHole(d(2004, 6, 21)).periods.month.variables.tmin.of).toBe(11)
  })

  it("ranks are taken on rounded values: 10.05 reads 10.1 and ties 10.1", () => {
    // A two-day month (the record ends on the 2nd): means 10.15, 10.1, 10.05 in 2022, 2023, 2024.
    const values = new Map([
      [d(2022, 3, 1), 10.1],
      [d(2022, 3, 2), 10.2],
      [d(2023, 3, 1), 10.1],
      [d(2023, 3, 2), 10.1],
      [d(2024, 3, 1), 10.0],
      [d(2024, 3, 2), 10.1]
    ])
    const series = record(d(2022, 1, 1), d(2024, 3, 2), (_, day) => values.get(day) ?? 0)
    expect(Trend.build(series).periods.month.variables.tmax).toEqual({
      value: 10.1,
      rank: 2,
      of: 3,
      highest: { year: 2022, value: 10.2 },
      lowest: { year: 2023, value: 10.1 }
    })
  })

  it("rounds halves upwards, negative ones too", () => {
    expect([Trend.round(12.25), Trend.round(-12.25), Trend.round(-0.05), Trend.round(0.05), Trend.round(-0.04)]).toEqual([
      12.3, -12.2, 0, 0.1, 0
    ])
    expect(Object.is(Trend.round(-0.04), 0)).toBe(true)
  })
})

describe("Ranking.standing", () => {
  const yearValues = FastCheck.uniqueArray(
    FastCheck.record({ year: FastCheck.integer({ min: 1900, max: 2100 }), value: FastCheck.integer({ min: -5, max: 5 }) }),
    { selector: (x) => x.year, minLength: 1, maxLength: 60 }
  )

  it("ranks every year 1..of as a competition ranking (1224), a permutation of 1..of without ties, whatever the order", () => {
    const seen = { withTies: 0, withoutTies: 0 }
    FastCheck.assert(
      FastCheck.property(yearValues, FastCheck.integer(), (all, seed) => {
        const random = seeded(seed)
        const shuffled = [...all].sort(() => random() - 0.5)
        const ranks = all.map((own) => {
          const others = all.filter((x) => x !== own)
          const s = Ranking.standing(own, others)
          // The order of the compared years changes nothing.
          expect(Ranking.standing(own, shuffled.filter((x) => x !== own))).toEqual(s)
          expect(s.of).toBe(all.length)
          expect(s.rank).toBeGreaterThanOrEqual(1)
          expect(s.rank).toBeLessThanOrEqual(s.of)
          return s.rank!
        })
        const descending = [...all].map((x) => x.value).sort((a, b) => b - a)
        const competition = descending.map((v) => 1 + descending.indexOf(v))
        expect([...ranks].sort((a, b) => a - b)).toEqual(competition)
        if (new Set(all.map((x) => x.value)).size === all.length) {
          seen.withoutTies++
          expect([...ranks].sort((a, b) => a - b)).toEqual(all.map((_, i) => i + 1))
        } else seen.withTies++
      }),
      { numRuns: 300 }
    )
    // 11 values over up to 60 years: ties in most runs, none in the short ones.
    expect(seen.withTies).toBeGreaterThan(30)
    expect(seen.withoutTies).toBeGreaterThan(10)
  })

  it.prop("the extremes are this year and the compared ones' highest and lowest, the earliest year on a tie", [yearValues], ([all]) => {
    const [own, ...others] = all
    const s = Ranking.standing(own!, others)
    const earliestOf = (value: number) => Math.min(...all.filter((x) => x.value === value).map((x) => x.year))
    const max = Math.max(...all.map((x) => x.value))
    const min = Math.min(...all.map((x) => x.value))
    expect(s.highest).toEqual({ year: earliestOf(max), value: max })
    expect(s.lowest).toEqual({ year: earliestOf(min), value: min })
  })

  it("a missing value: no rank and no extremes, but the compared years still count", () => {
    expect(Ranking.standing({ year: 2025, value: null }, [{ year: 2024, value: 1 }])).toEqual({
      value: null,
      rank: null,
      of: 2,
      highest: null,
      lowest: null
    })
  })
})

describe("Baseline.of", () => {
  it("1961–1990 when the record holds all of it, else the first 30 whole years, else none", () => {
    expect(Baseline.of(d(1940, 1, 1), d(2025, 11, 21))).toEqual({ from: 1961, to: 1990 })
    expect(Baseline.of(d(1961, 1, 1), d(1990, 12, 31))).toEqual({ from: 1961, to: 1990 })
    expect(Baseline.of(d(1961, 1, 2), d(2025, 11, 21))).toEqual({ from: 1962, to: 1991 })
    expect(Baseline.of(d(1980, 1, 1), d(2025, 11, 21))).toEqual({ from: 1980, to: 2009 })
    expect(Baseline.of(d(1996, 1, 1), d(2025, 12, 30))).toBeNull()
    expect(Baseline.of(d(1996, 1, 1), d(2025, 12, 31))).toEqual({ from: 1996, to: 2025 })
    expect(Baseline.of(d(1950, 6, 1), d(1990, 12, 30))).toEqual({ from: 1951, to: 1980 })
  })
})
