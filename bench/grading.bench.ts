/**
 * Grading benchmark (vitest bench): a synthetic 85-year cell, timing what each view asks of the
 * grader.
 *   pnpm bench:grading
 */
import { CivilDate, Grader } from "@climate-grade/core"
import { bench, describe } from "vitest"
// The trend view's own import, apart from the grader's (kept separate so edits there and here do not collide).
import { Views } from "@climate-grade/core"

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

// Each run of a "cold grader" case builds a fresh grader, so its figure includes sorting the
// samples it touches; vitest bench reports hz, mean, p75/p99 and the run count per case.
describe(`grading a synthetic cell of ${n} days (${CivilDate.format(start)}..${CivilDate.format(today)}), 3 variables`, () => {
  bench("grade view: today, 3 variables (cold grader)", () => {
    const g = Grader.makeGrader(record)
    for (const v of variables) g.grade(v, today, 12)
  })
  bench("forecast view: 16 days x 3 variables (cold grader)", () => {
    const g = Grader.makeGrader(record)
    for (let d = today; d < today + 16; d++) for (const v of variables) g.grade(v, d, 12)
  })
  bench("calendar view: 730 days x 3 variables (cold grader)", () => {
    const g = Grader.makeGrader(record)
    for (const v of variables) g.gradeRecordRange(v, today - 729, today)
  })
  bench("day view: 3 grades + 3 climatologies (cold grader)", () => {
    const g = Grader.makeGrader(record)
    for (const v of variables) {
      g.grade(v, today - 10, 12)
      g.climatology(v, today - 10)
    }
  })
  const warm = Grader.makeGrader(record)
  for (const v of variables) warm.gradeRecordRange(v, today - 729, today)
  bench("calendar view: 730 days x 3 variables (warm grader)", () => {
    for (const v of variables) warm.gradeRecordRange(v, today - 729, today)
  })
  bench("all four views (cold grader)", () => {
    const g = Grader.makeGrader(record)
    for (const v of variables) {
      g.grade(v, today, 12)
      for (let d = today; d < today + 16; d++) g.grade(v, d, 12)
      g.gradeRecordRange(v, today - 729, today)
      g.grade(v, today - 10, 12)
      g.climatology(v, today - 10)
    }
  })
})

// The trend view (climate context): its payload built from nothing but the record, for an
// 87-year record (1940 to late 2026, every calendar year partly or wholly held). Target ≤ 5 ms.
describe("trend view of an 87-year record", () => {
  const first = CivilDate.fromYmd({ year: 1940, month: 1, day: 1 })
  const last = CivilDate.fromYmd({ year: 2026, month: 11, day: 21 })
  let s = 7
  const next = () => {
    s = (Math.imul(s ^ (s >>> 15), 2246822507) + 0x9e3779b9) >>> 0
    return s / 2 ** 32
  }
  const days = last - first + 1
  const values = (base: number) =>
    Float64Array.from({ length: days }, (_, i) =>
      next() < 0.001 ? Number.NaN : Math.round((base + 10 * Math.sin((2 * Math.PI * i) / 365.25) + next() * 6) * 10) / 10
    )
  const history = { start: first, tmax: values(14), tmin: values(5), precip: values(0).map((v) => Math.max(0, v)) }
  const cell = { lat: 52.5, lon: 13.5, label: "Berlin, DE", timezone: "Europe/Berlin" }
  bench("trend payload: yearly statistics, baseline, 3 periods x 3 variables ranked (cold)", () => {
    Views.trend({ cell, history })
  })
  bench("trend payload, built and serialised to JSON (cold)", () => {
    JSON.stringify(Views.trend({ cell, history }))
  })
})
