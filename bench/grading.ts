/**
 * Grading benchmark: a synthetic 85-year cell, timing what each view asks of the grader.
 *   pnpm bench:grading
 */
import { CivilDate, Grader } from "@climate-grade/core"

const start = CivilDate.fromYmd({ year: 1940, month: 1, day: 1 })
const today = CivilDate.fromYmd({ year: 2025, month: 11, day: 22 })
const n = today - start + 1
let seed = 42
const random = () => {
  seed = (Math.imul(seed ^ (seed >>> 15), 2246822507) + 0x9e3779b9) >>> 0
  return seed / 2 ** 32
}
const series = (base: number, swing: number, missing: number) =>
  Float64Array.from({ length: n }, (_, i) =>
    random() < missing ? Number.NaN : Math.round((base + swing * Math.sin((2 * Math.PI * i) / 365.25) + random() * 6) * 10) / 10
  )
// Upstream values are whole tenths (as Open-Meteo sends them), rain mostly none with a tail.
const record = {
  start,
  tmax: series(14, 10, 0.001),
  tmin: series(5, 8, 0.001),
  precip: series(0, 0, 0.001).map((v) => Math.max(0, Math.round((v - 4) ** 3 * 10) / 10))
}
const variables = ["tmax", "tmin", "precip"] as const

const time = (name: string, runs: number, f: () => void) => {
  const samples: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    f()
    samples.push(performance.now() - t0)
  }
  samples.sort((a, b) => a - b)
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!.toFixed(3)
  console.log(`${name.padEnd(58)} median ${at(0.5).padStart(8)} ms   p95 ${at(0.95).padStart(8)} ms   (${runs} runs)`)
}

console.log(`synthetic cell: ${n} days (${CivilDate.format(start)}..${CivilDate.format(today)}), 3 variables`)
// Each run builds a fresh grader, so every figure includes sorting the samples it touches.
time("grade view: today, 3 variables (cold grader)", 200, () => {
  const g = Grader.makeGrader(record)
  for (const v of variables) g.grade(v, today, 12)
})
time("forecast view: 16 days x 3 variables (cold grader)", 200, () => {
  const g = Grader.makeGrader(record)
  for (let d = today; d < today + 16; d++) for (const v of variables) g.grade(v, d, 12)
})
time("calendar view: 730 days x 3 variables (cold grader)", 50, () => {
  const g = Grader.makeGrader(record)
  for (const v of variables) g.gradeRecordRange(v, today - 729, today)
})
time("day view: 3 grades + 3 climatologies (cold grader)", 200, () => {
  const g = Grader.makeGrader(record)
  for (const v of variables) {
    g.grade(v, today - 10, 12)
    g.climatology(v, today - 10)
  }
})
const warm = Grader.makeGrader(record)
for (const v of variables) warm.gradeRecordRange(v, today - 729, today)
time("calendar view: 730 days x 3 variables (warm grader)", 200, () => {
  for (const v of variables) warm.gradeRecordRange(v, today - 729, today)
})
time("all four views (cold grader)", 50, () => {
  const g = Grader.makeGrader(record)
  for (const v of variables) {
    g.grade(v, today, 12)
    for (let d = today; d < today + 16; d++) g.grade(v, d, 12)
    g.gradeRecordRange(v, today - 729, today)
    g.grade(v, today - 10, 12)
    g.climatology(v, today - 10)
  }
})
