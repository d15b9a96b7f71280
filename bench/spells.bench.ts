/**
 * The spells view's build (vitest bench): an 87-year record (1940 to late 2026) and a 16-day
 * forecast after it, as the server builds it: with the baseline's thresholds held (computed once
 * per record and kept with its grading), and, apart, what computing them costs that once.
 * Target: ≤ 5 ms for the view with its thresholds held.
 *   pnpm bench:spells
 */
import { CivilDate, Spells, Views } from "@climate-grade/core"
import { bench, describe } from "vitest"

const first = CivilDate.fromYmd({ year: 1940, month: 1, day: 1 })
const last = CivilDate.fromYmd({ year: 2026, month: 11, day: 21 })
let s = 11
const next = () => {
  s = (Math.imul(s ^ (s >>> 15), 2246822507) + 0x9e3779b9) >>> 0
  return s / 2 ** 32
}
const days = (from: number, to: number, warming: number) => {
  const n = to - from + 1
  const tmax = new Float64Array(n)
  const tmin = new Float64Array(n)
  const precip = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    const season = Math.sin((2 * Math.PI * (from + i - 110)) / 365.25)
    tmax[i] = next() < 0.001 ? Number.NaN : Math.round((14 + warming * (from + i - first) + 10 * season + 8 * (next() - 0.5)) * 10) / 10
    tmin[i] = Math.round((tmax[i]! - 6 - 6 * next()) * 10) / 10
    const wet = next()
    precip[i] = wet < 0.65 ? 0 : Math.round(30 * (wet - 0.65) ** 2 * 100) / 10
  }
  return { start: from, tmax, tmin, precip }
}
const record = days(first, last, 1 / 12_000)
const today = last + 5
const forecast = days(today - 7, today + 15, 1 / 12_000)
const cell = { lat: 52.5, lon: 13.5, label: "Berlin, DE", timezone: "Europe/Berlin" }
const held = Spells.thresholds(record, { from: 1961, to: 1990 })

describe(`spells view of an 87-year record (${CivilDate.format(first)}..${CivilDate.format(last)}) and a 16-day forecast`, () => {
  bench("the view's payload, thresholds held (what a request builds)", () => {
    Views.spells({ cell, history: record, forecast: forecast, today, thresholds: held })
  })
  bench("the view's payload, thresholds computed too (a record's first build)", () => {
    Views.spells({ cell, history: record, forecast: forecast, today })
  })
  bench("the thresholds alone (once per record)", () => {
    Spells.thresholds(record, { from: 1961, to: 1990 })
  })
})
