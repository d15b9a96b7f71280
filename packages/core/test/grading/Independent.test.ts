/**
 * Grading checked against an independent implementation: scipy's percentileofscore and numpy's
 * median_unbiased quantiles, with the sample rule written again in Python (reference.py), on
 * random samples with ties, a synthetic 45-year record, and the real Seattle record of 2012–2015.
 * The trend's yearly statistics and period rankings likewise, against numpy's means and sums
 * over datetime64 years and spans shifted with Python's datetime, on generated records. And the
 * spells (thresholds with numpy's linear percentiles, every heat wave, cold spell, dry and wet
 * spell with its ranks, now, top, years and recent) against a loop-by-loop Python version.
 * It runs the `python3` on PATH (PYTHON names another), which needs scipy and numpy: `.ci/run`
 * makes sure of it, and in CI a missing scipy fails the run; elsewhere the test is skipped, and the
 * run says so at its end.
 */
import { execFile, execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { CivilDate, Grader, Percentile, Sample, Spells, Trend } from "@climate-grade/core"
import * as Skips from "@climate-grade/testing/Skips"

const PYTHON = process.env.PYTHON ?? "python3"
const script = join(import.meta.dirname, "reference.py")

const hasScipy = (() => {
  try {
    execFileSync(PYTHON, ["-c", "import scipy, numpy"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()
if (!hasScipy && process.env.CI !== undefined) {
  throw new Error(`CI must have scipy and numpy for ${PYTHON}: the grading comparison cannot be skipped there`)
}

/** Python's answer to `request`, without blocking this process meanwhile (a minute under load: a
 * worker that does not answer vitest for that long is reported as an error). */
const python = <A>(request: unknown): Promise<A> =>
  new Promise((done, fail) => {
    const child = execFile(PYTHON, [script], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) =>
      error === null ? done(JSON.parse(stdout) as A) : fail(error)
    )
    child.stdin!.end(JSON.stringify(request))
  })

/** The payload's rounding, applied to both sides. */
const r1 = (x: number | null) => (x === null ? null : Percentile.round(x, 1))
const r2 = (x: number | null) => (x === null ? null : Percentile.round(x, 2))

let seed = 12345
const random = () => {
  seed = (Math.imul(seed ^ (seed >>> 15), 2246822507) + 0x9e3779b9) >>> 0
  return seed / 2 ** 32
}

const seattle = () => {
  // The package exports only its index (build/index.js); its data folder sits beside build/.
  const root = dirname(dirname(createRequire(import.meta.url).resolve("vega-datasets")))
  const csv = join(root, "data/seattle-weather.csv")
  const rows = readFileSync(csv, "utf8").trim().split("\n").slice(1).map((line) => line.split(","))
  const start = CivilDate.parse(rows[0]![0]!)!
  rows.forEach((row, i) => expect(CivilDate.parse(row[0]!)!).toBe(start + i))
  const column = (k: number) => Float64Array.from(rows, (row) => Number(row[k]))
  return { start, precip: column(1), tmax: column(2), tmin: column(3) }
}

describe.runIf(
  Skips.unless(hasScipy, "grading against scipy and numpy", `${PYTHON} on PATH cannot import scipy and numpy (Debian's python3-scipy, or pip)`)
)("grading against scipy and numpy", () => {
  it("percentile ranks and quantile bands of random samples with ties", async () => {
    const cases = Array.from({ length: 300 }, (_, c) => {
      const size = 1 + Math.floor(random() * (c % 3 === 0 ? 20 : 500))
      const discrete = c % 2 === 0
      const sample = Array.from({ length: size }, () =>
        discrete ? Math.floor(random() * 12) / 2 : Math.round(random() * 4000 - 2000) / 100
      )
      const xs = [...sample.slice(0, 5), -100, 100, 2.5, 0]
      return { sample, xs }
    })
    const answers = await python<Array<{ p: Array<number>; q: Array<number> }>>({ kind: "samples", cases })
    cases.forEach((c, i) => {
      const sorted = Float64Array.from(c.sample).sort()
      c.xs.forEach((x, j) => {
        const ours = Percentile.percentileOfScore(sorted, x)
        expect(Math.abs(ours - answers[i]!.p[j]!)).toBeLessThan(1e-9)
        expect(r1(ours)).toBe(r1(answers[i]!.p[j]!))
      })
      ;[0.1, 0.25, 0.5, 0.75, 0.9].forEach((p, k) => {
        const ours = Percentile.quantileType8(sorted, p)
        expect(Math.abs(ours - answers[i]!.q[k]!)).toBeLessThan(1e-9)
        expect(r2(ours)).toBe(r2(answers[i]!.q[k]!))
      })
    })
  })

  const compareRecord = async (record: { start: number; tmax: Float64Array; tmin: Float64Array; precip: Float64Array }, targets: Array<number>) => {
    const grader = Grader.makeGrader(record, { minSample: 1 })
    for (const variable of ["tmax", "tmin", "precip"] as const) {
      const values = Array.from(record[variable], (v) => (Number.isNaN(v) ? null : v))
      const answers = await python<Array<{ n: number; p: number | null; q: Array<number> | null; min: number | null; max: number | null }>>({
        kind: "record",
        start: CivilDate.format(record.start),
        values,
        targets: targets.map(CivilDate.format)
      })
      targets.forEach((date, i) => {
        const expected = answers[i]!
        const value = date - record.start < values.length && date >= record.start ? record[variable][date - record.start]! : Number.NaN
        const graded = grader.grade(variable, date, value)
        expect([CivilDate.format(date), variable, graded.n]).toEqual([CivilDate.format(date), variable, expected.n])
        expect([CivilDate.format(date), variable, graded.percentile]).toEqual([CivilDate.format(date), variable, r1(expected.p)])
        const climate = grader.climatology(variable, date)
        expect([climate.p10, climate.p25, climate.p50, climate.p75, climate.p90]).toEqual(
          expected.q === null ? [null, null, null, null, null] : expected.q.map(r2)
        )
        expect([climate.min.value, climate.max.value]).toEqual([r2(expected.min), r2(expected.max)])
        expect(Sample.sample(record, variable, date).length).toBe(expected.n)
      })
    }
  }

  it("every day of the Seattle record 2012–2015 (vega-datasets), three variables", async () => {
    const record = seattle()
    const targets = Array.from({ length: record.tmax.length }, (_, i) => record.start + i)
    await compareRecord(record, targets)
  }, 120_000)

  it("a synthetic 45-year record with gaps, at every calendar day of two years", async () => {
    const start = CivilDate.fromYmd({ year: 1975, month: 1, day: 1 })
    const n = CivilDate.fromYmd({ year: 2019, month: 12, day: 31 }) - start + 1
    const series = (scale: number, missing: number) =>
      Float64Array.from({ length: n }, (_, i) =>
        random() < missing ? Number.NaN : Math.round((Math.sin((2 * Math.PI * i) / 365.25) * scale + random() * scale) * 10) / 10
      )
    const record = { start, tmax: series(15, 0.02), tmin: series(8, 0.02), precip: series(3, 0.1) }
    const targets = Array.from({ length: 731 }, (_, i) => CivilDate.fromYmd({ year: 2015, month: 1, day: 1 }) + i)
    await compareRecord(record, targets)
  }, 120_000)

  const trendCase = (from: CivilDate.Ymd, to: CivilDate.Ymd, missing: (day: number) => boolean) => {
    const start = CivilDate.fromYmd(from)
    const n = CivilDate.fromYmd(to) - start + 1
    const series = (base: number, swing: number, noise: number) =>
      Float64Array.from({ length: n }, (_, i) =>
        missing(start + i) || random() < 0.002
          ? Number.NaN
          : Math.round((base + i / 3000 + swing * Math.sin((2 * Math.PI * i) / 365.25) + random() * noise) * 10) / 10
      )
    const precip = series(0, 0, 8).map((v) => (Number.isNaN(v) ? v : Math.max(0, Math.round((v - 4) ** 3) / 10)))
    // The last day holds values: the record ends there.
    const record = { start, tmax: series(14, 10, 6), tmin: series(4, 8, 6), precip }
    for (const v of ["tmax", "tmin", "precip"] as const) record[v][n - 1] = 1
    return record
  }

  type Standing = { value: number | null; rank: number | null; of: number; highest: unknown; lowest: unknown; exact: number | null }
  interface TrendAnswer {
    first: string
    last: string
    years: Array<Record<string, number | null>>
    periods: Record<string, { from: string; to: string; variables: Record<string, Standing> }>
  }

  const compareTrend = async (record: ReturnType<typeof trendCase>) => {
    const values = (v: "tmax" | "tmin" | "precip") => Array.from(record[v], (x) => (Number.isNaN(x) ? null : x))
    const expected = await python<TrendAnswer>({
      kind: "trend",
      start: CivilDate.format(record.start),
      tmax: values("tmax"),
      tmin: values("tmin"),
      precip: values("precip")
    })
    const ours = Trend.build(record)
    expect([CivilDate.format(ours.first), CivilDate.format(ours.last)]).toEqual([expected.first, expected.last])
    expect(ours.years).toEqual(
      expected.years.map(({ days, precip, tmax, tmin, year }) => ({ year, days, tmax, tmin, precip }))
    )
    // The unrounded numpy statistic lies within half a tenth of ours.
    for (const [i, year] of expected.years.entries()) {
      for (const v of ["tmax", "tmin", "precip"] as const) {
        const exact = year[`${v}_exact`]
        if (exact !== null && exact !== undefined) expect(Math.abs(ours.years[i]![v]! - exact)).toBeLessThanOrEqual(0.05 + 1e-9)
      }
    }
    for (const name of ["month", "season", "year"] as const) {
      const period = expected.periods[name]!
      expect([CivilDate.format(ours.periods[name].span.from), CivilDate.format(ours.periods[name].span.to)]).toEqual([period.from, period.to])
      for (const v of ["tmax", "tmin", "precip"] as const) {
        const { exact: _, ...standing } = period.variables[v]!
        expect([name, v, ours.periods[name].variables[v]]).toEqual([name, v, standing])
      }
    }
    return { ours, expected }
  }

  it("trend: 85 years from 1940 ending on 29 February, with gaps and a short year, against numpy", async () => {
    const gap = [CivilDate.fromYmd({ year: 1957, month: 4, day: 1 }), CivilDate.fromYmd({ year: 1957, month: 7, day: 1 })]
    const { ours } = await compareTrend(
      trendCase({ year: 1940, month: 1, day: 1 }, { year: 2024, month: 2, day: 29 }, (day) => day >= gap[0]! && day < gap[1]!)
    )
    // The comparison is not empty: many years ranked, the short year has no statistics.
    expect(ours.periods.month.variables.tmax.of).toBeGreaterThan(60)
    expect(ours.years.find((y) => y.year === 1957)!.tmax).toBeNull()
    expect(ours.years.filter((y) => y.tmax !== null).length).toBeGreaterThan(80)
  }, 60_000)

  it("trend: a record from mid-July 1975 to a December day, against numpy", async () => {
    const { ours } = await compareTrend(trendCase({ year: 1975, month: 7, day: 15 }, { year: 2025, month: 12, day: 10 }, () => false))
    expect(ours.years[0]!.tmax).toBeNull()
    expect(ours.periods.season.variables.tmin.of).toBeGreaterThan(40)
  }, 60_000)
  const spellsCase = (from: CivilDate.Ymd, to: CivilDate.Ymd, nanRate: number) => {
    const start = CivilDate.fromYmd(from)
    const n = CivilDate.fromYmd(to) - start + 1
    const tmax = new Float64Array(n)
    const tmin = new Float64Array(n)
    const precip = new Float64Array(n)
    for (let i = 0; i < n; i++) {
      const season = Math.sin((2 * Math.PI * (i - 110)) / 365.25)
      // Slow warming, so that later heat waves outrank the baseline's.
      tmax[i] = random() < nanRate ? Number.NaN : Math.round((14 + i / 8000 + 10 * season + 8 * (random() - 0.5)) * 10) / 10
      tmin[i] = random() < nanRate ? Number.NaN : Math.round((tmax[i]! - 6 - 6 * random()) * 10) / 10
      const wet = random()
      precip[i] = random() < nanRate ? Number.NaN : wet < 0.65 ? 0 : Math.round(30 * (wet - 0.65) ** 2 * 100) / 10
    }
    return { start, tmax, tmin, precip }
  }

  const compareSpells = async (series: ReturnType<typeof spellsCase>, recordLast: number, today: number) => {
    const values = (v: "tmax" | "tmin" | "precip") => Array.from(series[v], (x) => (Number.isNaN(x) ? null : x))
    const expected = await python<Spells.SpellsJson>({
      kind: "spells",
      start: CivilDate.format(series.start),
      recordLast: CivilDate.format(recordLast),
      today: CivilDate.format(today),
      tmax: values("tmax"),
      tmin: values("tmin"),
      precip: values("precip")
    })
    const ours = Spells.toJson(Spells.build({ series, recordLast, today }))
    expect(ours.thresholds).toEqual(expected.thresholds)
    for (const kind of Spells.KINDS) expect([kind, ours.top[kind]]).toEqual([kind, expected.top[kind]])
    expect(ours).toEqual(expected)
    return ours
  }

  it("spells: 87 years from 1940 with a forecast tail and gaps, against numpy", async () => {
    const series = spellsCase({ year: 1940, month: 1, day: 1 }, { year: 2026, month: 12, day: 20 }, 0.001)
    const last = series.start + series.tmax.length - 1
    const ours = await compareSpells(series, last - 20, last - 15)
    // Not empty: every kind found many times, spells in the forecast.
    for (const kind of Spells.KINDS) expect(ours.top[kind]).toHaveLength(10)
    expect(ours.top.heat[0]!.of).toBeGreaterThan(100)
    expect(ours.recent.some((x) => x.forecast)).toBe(true)
    expect(ours.years).toHaveLength(87)
    expect(ours.recent.length).toBeGreaterThan(50)
  }, 120_000)

  it("spells: a record from mid-July 1975 (the first 30 whole years its baseline), against numpy", async () => {
    const series = spellsCase({ year: 1975, month: 7, day: 15 }, { year: 2010, month: 3, day: 1 }, 0.01)
    const last = series.start + series.tmax.length - 1
    const ours = await compareSpells(series, last, last)
    expect(ours.baseline).toEqual({ from: 1976, to: 2005 })
    expect(ours.top.cold.length).toBeGreaterThan(3)
  }, 120_000)
})
