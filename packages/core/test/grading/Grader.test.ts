import { describe, expect, it } from "@effect/vitest"
import { CivilDate, Grader, Percentile, Sample } from "@climate-grade/core"
import * as FastCheck from "effect/FastCheck"

const d = (year: number, month: number, day: number) => CivilDate.fromYmd({ year, month, day })

/** A record with values from a small set (so ties are common) and NaN gaps. */
const recordArb = FastCheck.record({
  startYear: FastCheck.integer({ min: 1990, max: 2000 }),
  startDay: FastCheck.integer({ min: 0, max: 364 }),
  years: FastCheck.integer({ min: 1, max: 40 }),
  seed: FastCheck.integer(),
  nanRate: FastCheck.constantFrom(0, 0.05, 0.3),
  // Whole tenths are counted per calendar day when each day's range is narrow (0–6.0), else over
  // the whole variable (halves to 20); a range too wide to count (tenths to 1,000,000) and
  // arbitrary doubles take the ordinary sort.
  kind: FastCheck.constantFrom("narrow", "halves", "wide", "doubles")
}).map(({ kind, nanRate, seed, startDay, startYear, years }) => {
  let s = seed >>> 0
  const next = () => {
    s = (Math.imul(s ^ (s >>> 15), 2246822507) + 0x9e3779b9) >>> 0
    return s / 2 ** 32
  }
  const start = d(startYear, 1, 1) + startDay
  const n = Math.round(years * 365.25)
  const value = () =>
    kind === "narrow"
      ? Math.round(next() * 60) / 10
      : kind === "halves"
        ? Math.round(next() * 40) / 2
        : kind === "wide"
          ? Math.round(next() * 1e7) / 10
          : next() * 20
  const make = () => Float64Array.from({ length: n }, () => (next() < nanRate ? Number.NaN : value()))
  return { start, tmax: make(), tmin: make(), precip: make() }
})

/** The least number above x (x finite and not -0). */
const nextUp = (x: number) => {
  if (x === 0) return Number.MIN_VALUE
  const bits = new BigInt64Array(Float64Array.of(x).buffer)
  bits[0] = bits[0]! + (x > 0 ? 1n : -1n)
  return new Float64Array(bits.buffer)[0]!
}

const reference = (record: ReturnType<typeof recordArb.generate>["value"], date: number, x: number) => {
  const values = Sample.sample(record, "tmax", date).map((v) => v.value)
  const sorted = Float64Array.from(values).sort()
  const n = sorted.length
  if (Number.isNaN(x)) return { value: null, percentile: null, label: null, n }
  if (n < 30) return { value: Percentile.round(x, 2), percentile: null, label: null, n }
  const p = Percentile.percentileOfScore(sorted, x)
  return {
    value: Percentile.round(x, 2),
    percentile: Percentile.round(p, 1),
    label: Percentile.label(x, p, sorted[0]!, sorted[n - 1]!),
    n
  }
}

describe("Grader", () => {
  it.prop(
    "equals the plain sample rule on random records: gaps, ties, leap days, windows across New Year",
    [recordArb, FastCheck.integer({ min: -400, max: 20000 }), FastCheck.constantFrom(0, 5, 10, 12.5, 20, Number.NaN)],
    ([record, offset, x]) => {
      const grader = Grader.makeGrader(record)
      // Targets inside, before and after the record, and the hard calendar days.
      const length = record.tmax.length
      const last = record.start + length - 1
      const year = CivilDate.toYmd(record.start + (offset % Math.max(1, length))).year
      const targets = [
        record.start + (offset % Math.max(1, length)),
        d(year, 2, 29 - (CivilDate.isLeapYear(year) ? 0 : 1)),
        d(year, 2, 28),
        d(year, 1, 1),
        d(year, 12, 31),
        last + 3,
        record.start - 2
      ]
      for (const date of targets) {
        const fast = grader.grade("tmax", date, x)
        expect({ ...fast, unit: undefined }).toEqual({ ...reference(record, date, x), unit: undefined })
      }
      const leapYear = 2000
      expect(grader.grade("tmax", d(leapYear, 2, 29), 10).n).toBe(Sample.sample(record, "tmax", d(leapYear, 2, 29)).length)
    }
  )

  it("both ways of counting a sample equal the plain rule on every calendar day, at the record's edges", () => {
    const probes = [10, 2.55, 0.1 + 0.2, 2.9999999999999996, -0, 1e300, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0.05]
    // Columns (a union of slots, counted or sorted, no sample gathered) and scans of the record:
    // the union must be each year's window exactly, where leap and common years or the record's
    // first and last years disagree about which day is next, with gaps and ties.
    FastCheck.assert(
      FastCheck.property(recordArb, FastCheck.integer({ min: 0, max: 1_000_000 }), (record, pick) => {
        const columns = Grader.makeGrader(record, { columnsAfter: 0 })
        const scans = Grader.makeGrader(record, { columnsAfter: Number.POSITIVE_INFINITY })
        const first = CivilDate.toYmd(record.start).year
        const last = CivilDate.toYmd(record.start + record.tmax.length - 1).year
        const middle = first + (pick % (last - first + 1))
        for (const year of new Set([first - 1, first, middle, last, last + 1])) {
          for (let date = d(year, 1, 1); date <= d(year, 12, 31); date++) {
            const i = date - record.start
            // The date's own value (tied with its own window, which the sample leaves out), the next
            // number above it (1.7 + 1 ulp, times 10, rounds to 17, yet it is above 1.7), or a
            // probe: counted columns rank what is not a whole tenth by the tenth at or above it.
            const own = i >= 0 && i < record.tmax.length ? record.tmax[i]! : Number.NaN
            const x = [own, nextUp(own), probes[(pick + date) % probes.length]!][(pick + date) % 3]!
            const expected = { ...reference(record, date, x), unit: "°C" }
            expect([CivilDate.format(date), columns.grade("tmax", date, x)]).toEqual([CivilDate.format(date), expected])
            expect([CivilDate.format(date), scans.grade("tmax", date, x)]).toEqual([CivilDate.format(date), expected])
          }
        }
      }),
      { numRuns: 25 }
    )
  })

  it.prop("a range grades each day of the record as grade() does, from columns or scans", [recordArb], ([record]) => {
    const columns = Grader.makeGrader(record, { columnsAfter: 0 })
    const scans = Grader.makeGrader(record)
    const from = record.start + 100
    const to = Math.min(record.start + 140, record.start + record.tmax.length - 1)
    const range = columns.gradeRecordRange("precip", from, to)
    expect(scans.gradeRecordRange("precip", from, to)).toEqual(range)
    for (let date = from; date <= to; date++) {
      const single = scans.grade("precip", date, record.precip[date - record.start]!)
      expect([range.values[date - from], range.percentiles[date - from]]).toEqual([single.value, single.percentile])
    }
  })

  it("the window excludes the centre year but reaches into it from the neighbouring centres", () => {
    // Two years of data: 2019 and 2020. Target 2020-01-01: only centre 2019-01-01 counts,
    // whose window is 2018-12-30..2019-01-03; the record starts 2019-01-01, so 3 values.
    const start = d(2019, 1, 1)
    const n = d(2020, 12, 31) - start + 1
    const record = {
      start,
      tmax: Float64Array.from({ length: n }, (_, i) => i),
      tmin: new Float64Array(n),
      precip: new Float64Array(n)
    }
    expect(Sample.sample(record, "tmax", d(2020, 1, 1)).map((v) => CivilDate.format(v.date))).toEqual([
      "2019-01-01",
      "2019-01-02",
      "2019-01-03"
    ])
    // Target 2019-12-31: centre 2020-12-31 (window to 2021-01-02, outside) — 2020-12-29..31.
    expect(Sample.sample(record, "tmax", d(2019, 12, 31)).map((v) => CivilDate.format(v.date))).toEqual([
      "2020-12-29",
      "2020-12-30",
      "2020-12-31"
    ])
    // Target 2020-02-29 in 2019 (common year) centres on 2019-02-28.
    expect(Sample.sample(record, "tmax", d(2020, 2, 29)).map((v) => CivilDate.format(v.date))).toEqual([
      "2019-02-26",
      "2019-02-27",
      "2019-02-28",
      "2019-03-01",
      "2019-03-02"
    ])
    // Target 2019-02-28 centres on 2020-02-28, whose window holds the leap day.
    expect(Sample.sample(record, "tmax", d(2019, 2, 28)).map((v) => CivilDate.format(v.date))).toEqual([
      "2020-02-26",
      "2020-02-27",
      "2020-02-28",
      "2020-02-29",
      "2020-03-01"
    ])
  })

  it("percentile of score, kind mean, with ties", () => {
    const sorted = Float64Array.from([1, 2, 2, 3, 4])
    expect(Percentile.percentileOfScore(sorted, 2)).toBe(40) // (1 + 0.5·2)/5
    expect(Percentile.percentileOfScore(sorted, 0)).toBe(0)
    expect(Percentile.percentileOfScore(sorted, 5)).toBe(100)
    expect(Percentile.percentileOfScore(sorted, 3)).toBe(70)
  })

  it("labels at every boundary, and records beyond the sample", () => {
    const L = (p: number) => Percentile.label(5, p, 0, 10)
    expect([L(9.99), L(10), L(33.33), L(100 / 3), L(66.66), L(200 / 3), L(66.67), L(90), L(90.01)]).toEqual([
      "much-below",
      "below",
      "below",
      "near-normal",
      "near-normal",
      "near-normal",
      "above",
      "above",
      "much-above"
    ])
    expect(Percentile.label(10.1, 100, 0, 10)).toBe("record-high")
    expect(Percentile.label(10, 99, 0, 10)).toBe("much-above")
    expect(Percentile.label(-0.1, 0, 0, 10)).toBe("record-low")
    expect(Percentile.label(0, 1, 0, 10)).toBe("much-below")
  })

  it("n < 30 gives no percentile and no label; 30 does", () => {
    // Six years of a constant 1.0: each target has 5 values a year from the other years.
    const build = (years: number) => {
      const start = d(2000, 1, 1)
      const n = d(2000 + years - 1, 12, 31) - start + 1
      return Grader.makeGrader({ start, tmax: new Float64Array(n).fill(1), tmin: new Float64Array(n), precip: new Float64Array(n) })
    }
    const target = d(2000, 6, 15)
    expect(build(7).grade("tmax", target, 2)).toEqual({ value: 2, unit: "°C", percentile: 100, label: "record-high", n: 30 })
    const short = build(6).grade("tmax", target, 2)
    expect(short).toEqual({ value: 2, unit: "°C", percentile: null, label: null, n: 25 })
    // One value removed: 29.
    const start = d(2000, 1, 1)
    const n = d(2006, 12, 31) - start + 1
    const tmax = new Float64Array(n).fill(1)
    tmax[d(2001, 6, 15) - start] = Number.NaN
    const g = Grader.makeGrader({ start, tmax, tmin: new Float64Array(n), precip: new Float64Array(n) })
    expect(g.grade("tmax", target, 2)).toMatchObject({ n: 29, percentile: null, label: null })
  })

  it("type-8 quantiles match numpy's median_unbiased", () => {
    const sorted = Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    // numpy.quantile(np.arange(1, 11), [.1, .25, .5, .75, .9], method="median_unbiased"), numpy 1.24
    const expected = [1.3666666666666667, 2.9166666666666665, 5.5, 8.083333333333334, 9.633333333333333]
    ;[0.1, 0.25, 0.5, 0.75, 0.9].forEach((p, i) => expect(Percentile.quantileType8(sorted, p)).toBeCloseTo(expected[i]!, 12))
    expect(Percentile.quantileType8(Float64Array.from([3]), 0.9)).toBe(3)
  })

  it("climatology: bands, mean and the dated extremes of the sample", () => {
    const start = d(2000, 1, 1)
    const n = d(2003, 12, 31) - start + 1
    const tmax = Float64Array.from({ length: n }, (_, i) => (i % 7) + 0.5)
    const g = Grader.makeGrader({ start, tmax, tmin: new Float64Array(n), precip: new Float64Array(n) })
    const target = d(2003, 3, 10)
    const values = Sample.sample(g.record, "tmax", target)
    const c = g.climatology("tmax", target)
    expect(c.n).toBe(values.length)
    const sorted = Float64Array.from(values.map((v) => v.value)).sort()
    expect(c.p50).toBe(Percentile.round(Percentile.quantileType8(sorted, 0.5), 2))
    expect(c.min.value).toBe(sorted[0])
    expect(c.max.value).toBe(sorted[sorted.length - 1])
    const firstMin = values.find((v) => v.value === sorted[0])!
    expect(c.min.date).toBe(CivilDate.format(firstMin.date))
    const empty = Grader.makeGrader({ start, tmax: new Float64Array(n).fill(Number.NaN), tmin: tmax, precip: tmax })
    expect(empty.climatology("tmax", target)).toMatchObject({ n: 0, p50: null, mean: null, min: { value: null, date: null } })
  })
})
