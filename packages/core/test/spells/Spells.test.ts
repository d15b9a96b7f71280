/**
 * The spell rules without IO, on series whose answer is known by construction (a flat series has
 * no spell, one injected hot week makes exactly one heat wave of that week's length, a null day
 * splits a run, …), and against a plain reference (every window and run found day by day, ranks
 * by counting every pair) on random series.
 */
import { describe, expect, it } from "@effect/vitest"
import { CivilDate, Percentile, Spells } from "@climate-grade/core"
import * as FastCheck from "effect/FastCheck"

const d = (year: number, month: number, day: number) => CivilDate.fromYmd({ year, month, day })
type Series = { start: number; tmax: Float64Array; tmin: Float64Array; precip: Float64Array }

const seeded = (seed: number) => {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 2246822507) + 0x9e3779b9) >>> 0
    return s / 2 ** 32
  }
}

/** A series from `from` to `to` of the same values every day. */
const flat = (from: number, to: number, t = 15, precip = 0): Series => {
  const n = to - from + 1
  return {
    start: from,
    tmax: new Float64Array(n).fill(t + 5),
    tmin: new Float64Array(n).fill(t - 5),
    precip: new Float64Array(n).fill(precip)
  }
}

/** A seasonal, noisy series with a 1961–1990 baseline in it, whole tenths, dry days two in three. */
const noisy = (seed: number, from = d(1950, 1, 1), to = d(2000, 12, 31)): Series => {
  const random = seeded(seed)
  const n = to - from + 1
  const tmax = new Float64Array(n)
  const tmin = new Float64Array(n)
  const precip = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const season = Math.sin((2 * Math.PI * (i - 110)) / 365.25)
    tmax[i] = Math.round((14 + 10 * season + 8 * (random() - 0.5)) * 10) / 10
    tmin[i] = Math.round((tmax[i]! - 6 - 6 * random()) * 10) / 10
    const wet = random()
    precip[i] = wet < 0.65 ? 0 : Math.round(30 * (wet - 0.65) ** 2 * 100) / 10
  }
  return { start: from, tmax, tmin, precip }
}

const build = (s: Series, today = s.start + s.tmax.length - 1, recordLast = today) =>
  Spells.build({ series: s, recordLast, today })

describe("spells: answers known by construction", () => {
  it("a flat series has no spell of any kind, dry days aside", () => {
    const s = flat(d(1950, 1, 1), d(2000, 12, 31), 15, 0.5)
    const out = build(s)
    expect(out.baseline).toEqual({ from: 1961, to: 1990 })
    // Every t equals t95 and t05: no factor is positive.
    expect(out.thresholds).toEqual({ t95: 15, t05: 15, ehf85: null, cf85: null })
    expect([out.all.heat.length, out.all.cold.length, out.all.wet.length]).toEqual([0, 0, 0])
    // 0.5 mm every day: the whole series is one dry spell.
    expect(out.all.dry).toHaveLength(1)
    expect(out.all.dry[0]!.days).toBe(s.tmax.length)
    const rainy = build(flat(d(1950, 1, 1), d(2000, 12, 31), 15, 1))
    expect(rainy.all.dry).toHaveLength(0)
    expect(rainy.all.wet).toHaveLength(1)
    expect(rainy.all.wet[0]!.value).toBeCloseTo(rainy.all.wet[0]!.days, 6)
  })

  /**
   * 1950–2000 at t = `base`, but every 16th day of the baseline at `other` (6.25% of its days): so
   * t95 (or t05, when `other` is below) is exactly `other`, and no baseline day passes it.
   */
  const stepped = (base: number, other: number): Series => {
    const s = flat(d(1950, 1, 1), d(2000, 12, 31), base)
    for (let day = d(1961, 1, 1); day <= d(1990, 12, 31); day += 16) {
      s.tmax[day - s.start] = other + 5
      s.tmin[day - s.start] = other - 5
    }
    return s
  }
  const inject = (s: Series, from: number, days: number, t: number) => {
    for (let k = 0; k < days; k++) {
      s.tmax[from - s.start + k] = t + 5
      s.tmin[from - s.start + k] = t - 5
    }
  }

  it("one injected hot week is exactly one heat wave of that week", () => {
    const s = stepped(0, 30)
    // Windows of three hot days have m3 = 40 > t95 = 30; those of two, 80/3 < 30.
    inject(s, d(1995, 7, 10), 7, 40)
    const out = build(s)
    expect([out.thresholds!.t95, out.thresholds!.t05]).toEqual([30, 0])
    expect(out.all.heat).toHaveLength(1)
    const wave = out.all.heat[0]!
    expect([CivilDate.format(wave.start), CivilDate.format(wave.end), wave.days]).toEqual(["1995-07-10", "1995-07-16", 7])
    // The first window: m3 = 40 over an acclimatisation mean of 0: (40 − 30) × 40.
    expect(wave.value).toBe(400)
    expect([wave.rankDays, wave.rankValue, wave.of, wave.forecast]).toEqual([1, 1, 1, false])
    expect(out.all.cold).toHaveLength(0)
    expect(out.years.find((y) => y.year === 1995)!.heatDays).toBe(7)
    expect(out.years.filter((y) => y.heatDays > 0)).toHaveLength(1)
  })

  it("one injected cold week is exactly one cold spell, with a positive peak", () => {
    const s = stepped(30, 0)
    inject(s, d(1999, 1, 5), 7, -10)
    const out = build(s)
    expect(out.all.heat).toHaveLength(0)
    expect(out.all.cold.map((x) => [CivilDate.format(x.start), x.days])).toEqual([["1999-01-05", 7]])
    expect(out.all.cold[0]!.value).toBe(400) // (0 − (−10)) × (30 − (−10))
    expect(out.years.find((y) => y.year === 1999)!.coldDays).toBe(7)
  })

  it("a hot spell shorter than three days still makes a three-day heat wave; two apart make two", () => {
    const s = flat(d(1950, 1, 1), d(2000, 12, 31))
    const at = d(1996, 8, 1) - s.start
    s.tmax[at] = 65 // one day of t = 35 lifts m3 of the windows that hold it
    s.tmin[at] = 5
    const one = build(s)
    // Windows at at−2, at−1, at: their m3 = 15 + 20/3 > 15, so days at−2 … at+2.
    expect(one.all.heat.map((x) => x.days)).toEqual([5])
    s.tmax[at + 40] = 65
    s.tmin[at + 40] = 5
    const two = build(s)
    expect(two.all.heat.map((x) => x.days)).toEqual([5, 5])
    expect(two.all.heat.map((x) => x.rankDays)).toEqual([1, 1])
  })

  it("a null day splits a run of any kind", () => {
    const s = stepped(0, 30)
    const week = d(1995, 7, 10)
    inject(s, week, 12, 40)
    s.tmin[week - s.start + 6] = Number.NaN
    s.precip[week - s.start + 6] = Number.NaN
    const out = build(s)
    // t is null on day 6: the windows that hold it are gone, and the next 30 days' windows lack
    // a whole acclimatisation period, so the run before the null stands alone.
    expect(out.all.heat.map((x) => [CivilDate.format(x.start), x.days])).toEqual([["1995-07-10", 6]])
    // One dry spell (every day at 0 mm) is cut in two by the null.
    const around = out.all.dry.filter((x) => x.start <= week + 6 + 1 && x.end >= week + 6 - 1)
    expect(around.map((x) => [x.end - week, x.start - week])).toEqual([
      [5, around[0]!.start - week],
      [around[1]!.end - week, 7]
    ])
  })

  it("dry spells need five dry days and wet spells three wet days; totals are the rain's sum", () => {
    const s = flat(d(2000, 1, 1), d(2000, 3, 31), 15, 5)
    const dryAt = 10
    for (let k = 0; k < 4; k++) s.precip[dryAt + k] = 0.9 // four dry days: no spell
    for (let k = 0; k < 5; k++) s.precip[30 + k] = 0 // five: one
    const out = build(s)
    expect(out.all.dry.map((x) => [x.start - s.start, x.days])).toEqual([[30, 5]])
    expect(out.all.wet.map((x) => x.days)).toEqual([10, 16, s.tmax.length - 35])
    expect(out.all.wet[0]!.value).toBe(50)
    // No baseline (fewer than 30 years): no heat or cold, no thresholds.
    expect(out.baseline).toBeNull()
    expect(out.thresholds).toBeNull()
    const twoWet = flat(d(2000, 1, 1), d(2000, 1, 10), 15, 0)
    twoWet.precip[3] = 1
    twoWet.precip[4] = 2
    expect(build(twoWet).all.wet).toHaveLength(0)
  })

  it("ranks count the strictly better: ties share a rank, of counts the kind", () => {
    const s = flat(d(2000, 1, 1), d(2000, 12, 31), 15, 0)
    // Wet runs of 3, 4, 3 and 5 days with totals 3, 8, 3 and 5 mm.
    const runs: Array<[number, number, number]> = [
      [10, 3, 1],
      [30, 4, 2],
      [50, 3, 1],
      [70, 5, 1]
    ]
    for (const [from, days, mm] of runs) for (let k = 0; k < days; k++) s.precip[from + k] = mm
    const wet = build(s).all.wet
    expect(wet.map((x) => [x.days, x.value, x.rankDays, x.rankValue, x.of])).toEqual([
      [3, 3, 3, 3, 4],
      [4, 8, 2, 1, 4],
      [3, 3, 3, 3, 4],
      [5, 5, 1, 2, 4]
    ])
    const top = build(s).top.wet
    expect(top.map((x) => x.start - s.start)).toEqual([30, 70, 10, 50])
  })

  it("severity by the peak against ehf85; forecast days, now and recent by today", () => {
    const s = noisy(7)
    const th = Spells.thresholds(s, { from: 1961, to: 1990 })!
    expect(th.ehf85).not.toBeNull()
    const recordLast = d(2000, 12, 15)
    const today = d(2000, 12, 20)
    const out = Spells.build({ series: s, recordLast, today, thresholds: th })
    for (const x of [...out.all.heat]) {
      expect(x.severity).toBe(x.value >= 3 * th.ehf85! ? "extreme" : x.value >= th.ehf85! ? "severe" : "low")
    }
    expect(out.all.heat.some((x) => x.severity === "severe" || x.severity === "extreme")).toBe(true)
    for (const kind of Spells.KINDS) for (const x of out.all[kind]) expect(x.forecast).toBe(x.end > recordLast)
    expect(out.now.every((x) => x.end >= today)).toBe(true)
    expect(out.now).toEqual(Spells.KINDS.flatMap((k) => out.all[k]).filter((x) => x.end >= today).sort((a, b) => a.start - b.start))
    expect(out.recent.length).toBeGreaterThan(out.now.length)
    expect(out.recent.every((x) => x.end >= today - 730)).toBe(true)
    expect(out.years.map((y) => y.year)).toEqual(Array.from({ length: 51 }, (_, k) => 1950 + k))
  })

  it("the series: the record to its last day (nulls kept), then the forecast after it", () => {
    const record = flat(d(2000, 1, 1), d(2000, 1, 10), 10, 0)
    record.tmax[9] = Number.NaN
    const forecast = flat(d(2000, 1, 5), d(2000, 1, 20), 20, 3)
    const s = Spells.series(record, d(2000, 1, 10), forecast)
    expect(s.start).toBe(record.start)
    expect(s.tmax.length).toBe(20)
    expect(Array.from(s.tmax.subarray(8, 12))).toEqual([15, Number.NaN, 25, 25])
    expect(s.precip[9]).toBe(0)
    expect(s.precip[10]).toBe(3)
    // A forecast that begins after a gap leaves the gap null.
    const late = Spells.series(record, d(2000, 1, 10), flat(d(2000, 1, 13), d(2000, 1, 14)))
    expect(Array.from(late.tmin.subarray(9, 14))).toEqual([5, Number.NaN, Number.NaN, 10, 10])
  })

  it("json: rounding, dates and only each kind's fields", () => {
    const s = flat(d(1950, 1, 1), d(2000, 12, 31), 15, 0)
    const week = d(1995, 7, 10) - s.start
    for (let k = 0; k < 7; k++) {
      s.tmax[week + k] = 35.04
      s.tmin[week + k] = 25.01
    }
    const json = Spells.toJson(build(s, d(2000, 12, 31)))
    const wave = json.top.heat[0]!
    expect(Object.keys(wave)).toEqual(["kind", "start", "end", "days", "peak", "severity", "rank_days", "rank_peak", "of", "forecast"])
    expect(wave.peak).toBe(Percentile.round((30.025 - 15) * (30.025 - 15), 1))
    expect(Object.keys(json.top.dry[0]!)).toEqual(["kind", "start", "end", "days", "rank_days", "of", "forecast"])
    expect(json.first).toBe("1950-01-01")
    expect(json.thresholds!.t95).toBe(15)
  })
})

/** The rules again, plainly: every window, then the flagged days, then runs; ranks by counting. */
const reference = (s: Series, recordLast: number) => {
  const n = s.tmax.length
  const t = Array.from({ length: n }, (_, i) => (s.tmax[i]! + s.tmin[i]!) / 2)
  const ok = (i: number) => i >= 0 && i < n && !Number.isNaN(t[i]!)
  const baseline = Spells.build({ series: s, recordLast, today: recordLast }).baseline
  const th = Spells.thresholds(s, baseline)
  const runsOf = (flag: Array<boolean>, minDays: number) => {
    const out: Array<[number, number]> = []
    for (let i = 0; i < n; i++) {
      if (!flag[i]) continue
      let j = i
      while (j + 1 < n && flag[j + 1]) j++
      if (j - i + 1 >= minDays) out.push([i, j])
      i = j
    }
    return out
  }
  const factors = (sign: 1 | -1, threshold: number) => {
    const f = new Array<number>(n).fill(Number.NaN)
    for (let i = 30; i + 2 < n; i++) {
      let good = ok(i) && ok(i + 1) && ok(i + 2)
      let sum = 0
      for (let k = i - 30; k < i; k++) {
        good &&= ok(k)
        sum += t[k]!
      }
      if (!good) continue
      const m3 = (t[i]! + t[i + 1]! + t[i + 2]!) / 3
      f[i] = sign * (m3 - threshold) * Math.max(1, sign * (m3 - sum / 30))
    }
    const flag = new Array<boolean>(n).fill(false)
    f.forEach((v, i) => {
      if (v > 0) flag[i] = flag[i + 1] = flag[i + 2] = true
    })
    return runsOf(flag, 1).map(([a, b]) => ({ a, b, value: Math.max(...f.slice(a, b - 1).filter((v) => v > 0)) }))
  }
  const heat = th === null ? [] : factors(1, th.t95)
  const cold = th === null ? [] : factors(-1, th.t05)
  const p = Array.from(s.precip)
  const dry = runsOf(p.map((v) => !Number.isNaN(v) && v < 1), 5).map(([a, b]) => ({ a, b, value: Number.NaN }))
  const wet = runsOf(p.map((v) => !Number.isNaN(v) && v >= 1), 3).map(([a, b]) => ({
    a,
    b,
    value: p.slice(a, b + 1).reduce((x, y) => x + y, 0)
  }))
  const ranked = (runs: Array<{ a: number; b: number; value: number }>) =>
    runs.map((r) => ({
      start: s.start + r.a,
      end: s.start + r.b,
      days: r.b - r.a + 1,
      value: r.value,
      rankDays: 1 + runs.filter((o) => o.b - o.a > r.b - r.a).length,
      rankValue: Number.isNaN(r.value) ? null : 1 + runs.filter((o) => o.value > r.value).length,
      of: runs.length
    }))
  return { heat: ranked(heat), cold: ranked(cold), dry: ranked(dry), wet: ranked(wet) }
}

const seriesArb = FastCheck.record({
  seed: FastCheck.integer(),
  years: FastCheck.constantFrom(2, 31, 33),
  nanRate: FastCheck.constantFrom(0, 0.001, 0.02),
  spread: FastCheck.constantFrom(1, 8)
}).map(({ nanRate, seed, spread, years }): Series => {
  const random = seeded(seed)
  const start = d(1960, 1, 1) + Math.floor(random() * 300)
  const n = years * 365
  const v = (base: number) =>
    Float64Array.from({ length: n }, (_, i) =>
      random() < nanRate ? Number.NaN : Math.round((base + 6 * Math.sin((2 * Math.PI * i) / 365.25) + random() * spread) * 10) / 10
    )
  const precip = Float64Array.from({ length: n }, () => (random() < nanRate ? Number.NaN : random() < 0.6 ? 0 : Math.floor(random() * 40) / 10))
  return { start, tmax: v(20), tmin: v(10), precip }
})

describe("spells against a plain reference", () => {
  it.prop("every spell, its peak or total, and its ranks", [seriesArb], ([s]) => {
    const recordLast = s.start + s.tmax.length - 20
    const ours = Spells.build({ series: s, recordLast, today: recordLast })
    const expected = reference(s, recordLast)
    for (const kind of Spells.KINDS) {
      expect(
        ours.all[kind].map(({ days, end, of, rankDays, rankValue, start, value }) => ({ start, end, days, value, rankDays, rankValue, of }))
      ).toEqual(expected[kind])
      for (const x of ours.all[kind]) expect(x.forecast).toBe(x.end > recordLast)
    }
  }, { fastCheck: { numRuns: 12 } })
})
