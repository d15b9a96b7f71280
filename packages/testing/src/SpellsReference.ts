/**
 * The spell rules written again for tests, plainly and apart from the core's: dates with
 * JavaScript's UTC `Date`, every window's factor computed on its own, the flagged days marked,
 * then runs read off them, ranks by counting every pair. Slow (quadratic ranks) and obvious, so a
 * test can compare the service's `/spells` with it field by field.
 */

export interface ReferenceInput {
  /** The series' first day, YYYY-MM-DD; day i is start + i. */
  readonly start: string
  /** The record's last day: later days are the forecast's. */
  readonly recordLast: string
  readonly today: string
  readonly tmax: ReadonlyArray<number | null>
  readonly tmin: ReadonlyArray<number | null>
  readonly precip: ReadonlyArray<number | null>
}

const DAY_MS = 86_400_000
const toDay = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS
const toDate = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10)
const yearOf = (day: number) => new Date(day * DAY_MS).getUTCFullYear()

/** The payloads' rounding: half away from zero, forgiving a binary half. */
const round = (x: number, digits: number) => {
  const f = 10 ** digits
  const r = Math.round(Math.abs(x) * f + 1e-9) / f
  return x < 0 ? -r : r
}

/** numpy's percentile, linear. */
const percentile = (values: ReadonlyArray<number>, q: number) => {
  const s = [...values].sort((a, b) => a - b)
  const h = (s.length - 1) * q
  const lo = Math.floor(h)
  const hi = Math.min(lo + 1, s.length - 1)
  const g = h - lo
  const diff = s[hi]! - s[lo]!
  return g >= 0.5 ? s[hi]! - diff * (1 - g) : s[lo]! + diff * g
}

interface Run {
  readonly a: number
  readonly b: number
  readonly value: number
  readonly severity?: string
}

export const spells = (input: ReferenceInput) => {
  const start = toDay(input.start)
  const recordLast = toDay(input.recordLast)
  const today = toDay(input.today)
  const n = input.tmax.length
  const t = Array.from({ length: n }, (_, i) =>
    input.tmax[i] === null || input.tmin[i] === null ? null : (input.tmax[i]! + input.tmin[i]!) / 2
  )
  const first = new Date(start * DAY_MS)
  const holds = (from: number, to: number) => start <= toDay(`${from}-01-01`) && recordLast >= toDay(`${to}-12-31`)
  const y0 = first.getUTCMonth() === 0 && first.getUTCDate() === 1 ? first.getUTCFullYear() : first.getUTCFullYear() + 1
  const baseline = holds(1961, 1990) ? { from: 1961, to: 1990 } : holds(y0, y0 + 29) ? { from: y0, to: y0 + 29 } : null

  const runsOf = (flag: ReadonlyArray<boolean>, least: number): Array<[number, number]> => {
    const out: Array<[number, number]> = []
    for (let i = 0; i < n; i++) {
      if (!flag[i]) continue
      let j = i
      while (j + 1 < n && flag[j + 1]) j++
      if (j - i + 1 >= least) out.push([i, j])
      i = j
    }
    return out
  }

  const runs: Record<string, Array<Run>> = { heat: [], cold: [] }
  let thresholds: { t95: number; t05: number; ehf85: number | null; cf85: number | null } | null = null
  if (baseline !== null) {
    const b0 = Math.max(0, toDay(`${baseline.from}-01-01`) - start)
    const b1 = Math.min(n - 1, toDay(`${baseline.to}-12-31`) - start)
    const bt = t.slice(b0, b1 + 1).filter((v): v is number => v !== null)
    if (bt.length > 0) {
      const t95 = percentile(bt, 0.95)
      const t05 = percentile(bt, 0.05)
      const ehf: Array<number | null> = new Array(n).fill(null)
      const cf: Array<number | null> = new Array(n).fill(null)
      for (let i = 30; i + 2 < n; i++) {
        if (t.slice(i - 30, i + 3).some((v) => v === null)) continue
        let acc = 0
        for (let k = i - 30; k < i; k++) acc += t[k]!
        acc /= 30
        const m3 = (t[i]! + t[i + 1]! + t[i + 2]!) / 3
        ehf[i] = (m3 - t95) * Math.max(1, m3 - acc)
        cf[i] = (t05 - m3) * Math.max(1, acc - m3)
      }
      const positive = (f: Array<number | null>) => f.slice(b0, b1 + 1).filter((v): v is number => v !== null && v > 0)
      const p85 = (xs: Array<number>) => (xs.length === 0 ? null : percentile(xs, 0.85))
      const ehf85 = p85(positive(ehf))
      const cf85 = p85(positive(cf))
      thresholds = { t95, t05, ehf85, cf85 }
      for (const [kind, f, p] of [
        ["heat", ehf, ehf85],
        ["cold", cf, cf85]
      ] as const) {
        const flag = new Array<boolean>(n).fill(false)
        f.forEach((v, i) => {
          if (v !== null && v > 0) flag[i] = flag[i + 1] = flag[i + 2] = true
        })
        for (const [a, b] of runsOf(flag, 1)) {
          const peak = Math.max(...f.slice(a, b - 1).filter((v): v is number => v !== null && v > 0))
          const severity = p === null || peak < p ? "low" : peak >= 3 * p ? "extreme" : "severe"
          runs[kind]!.push({ a, b, value: peak, severity })
        }
      }
    }
  }
  const p = input.precip
  const precipRuns = (test: (v: number) => boolean, least: number) =>
    runsOf(
      p.map((v) => v !== null && test(v)),
      least
    ).map(([a, b]) => {
      let total = 0
      for (let k = a; k <= b; k++) total += p[k]!
      return { a, b, value: total }
    })
  runs.dry = precipRuns((v) => v < 1, 5)
  runs.wet = precipRuns((v) => v >= 1, 3)

  const kinds = ["heat", "cold", "dry", "wet"] as const
  const spellsOf: Record<string, Array<Record<string, unknown>>> = {}
  for (const kind of kinds) {
    const found = runs[kind]!
    spellsOf[kind] = found.map((r) => {
      const days = r.b - r.a + 1
      const item: Record<string, unknown> = { kind, start: toDate(start + r.a), end: toDate(start + r.b), days }
      if (kind === "heat" || kind === "cold") {
        item.peak = round(r.value, 1)
        item.severity = r.severity
      }
      if (kind === "wet") item.total = round(r.value, 1)
      item.rank_days = 1 + found.filter((o) => o.b - o.a + 1 > days).length
      if (kind === "heat" || kind === "cold") item.rank_peak = 1 + found.filter((o) => o.value > r.value).length
      if (kind === "wet") item.rank_total = 1 + found.filter((o) => o.value > r.value).length
      item.of = found.length
      item.forecast = start + r.b > recordLast
      return item
    })
  }
  const byStart = (a: Record<string, unknown>, b: Record<string, unknown>) => toDay(a.start as string) - toDay(b.start as string)
  const every = kinds.flatMap((k) => spellsOf[k]!)
  const rankKey = { heat: "rank_peak", cold: "rank_peak", dry: "rank_days", wet: "rank_total" } as const
  const top = Object.fromEntries(
    kinds.map((k) => [
      k,
      [...spellsOf[k]!].sort((a, b) => (a[rankKey[k]] as number) - (b[rankKey[k]] as number) || byStart(a, b)).slice(0, 10)
    ])
  )
  const until = start + n - 1
  const years = []
  for (let year = yearOf(start); year <= yearOf(until); year++) {
    const inside = (x: Record<string, unknown>) => {
      let count = 0
      for (let d = toDay(x.start as string); d <= toDay(x.end as string); d++) if (yearOf(d) === year) count++
      return count
    }
    const sum = (k: string) => spellsOf[k]!.reduce((s, x) => s + inside(x), 0)
    years.push({
      year,
      heat_days: sum("heat"),
      cold_days: sum("cold"),
      dry_longest: Math.max(0, ...spellsOf.dry!.filter((x) => yearOf(toDay(x.end as string)) === year).map((x) => x.days as number)),
      wet_days: sum("wet")
    })
  }
  const r2 = (x: number | null) => (x === null ? null : round(x, 2))
  return {
    first: toDate(start),
    last: toDate(recordLast),
    until: toDate(until),
    baseline,
    thresholds:
      thresholds === null
        ? null
        : { t95: r2(thresholds.t95), t05: r2(thresholds.t05), ehf85: r2(thresholds.ehf85), cf85: r2(thresholds.cf85) },
    now: every.filter((x) => toDay(x.end as string) >= today).sort(byStart),
    top,
    years,
    recent: every.filter((x) => toDay(x.end as string) >= today - 730).sort(byStart)
  }
}
