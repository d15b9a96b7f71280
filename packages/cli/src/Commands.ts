/**
 * The three commands over a series read from a file: each gives the API's payload (without `view`,
 * `v` and `cell`, which name a service's cell) and the same facts as lines for a person.
 */
import { CivilDate, Grader, Spells, Views, Words } from "@climate-grade/core/rules"
import type { Table, Variable } from "./Csv.js"

export interface Output {
  readonly json: unknown
  readonly text: string
}

/** The cell a file stands for: the views want one, and it is dropped from what they give. */
const NO_CELL = { lat: 0, lon: 0, label: null, timezone: "UTC" }

const withoutEnvelope = <A extends { readonly view?: unknown; readonly v?: unknown; readonly cell?: unknown }>(payload: A) => {
  const { view: _view, v: _v, cell: _cell, ...rest } = payload
  return rest
}

const UNIT: Readonly<Record<Variable, "°C" | "mm">> = { tmax: "°C", tmin: "°C", precip: "mm" }
const num = (value: number | null, variable: Variable) => Words.formatValue(value, UNIT[variable], "metric")
const pad = (text: string, width: number) => text.padEnd(width)

export class DateError extends Error {}

/** `climate-grade grade`: the date's values graded against the file's other years, with their climatology. */
export const grade = (table: Table, dateText: string | undefined): Output => {
  const last = Views.lastDay(table.series)
  let date = last
  if (dateText !== undefined) {
    const parsed = CivilDate.parse(dateText)
    if (parsed === undefined) throw new DateError(`--date ${JSON.stringify(dateText)} is not a calendar date YYYY-MM-DD`)
    date = parsed
  }
  const payload = withoutEnvelope(
    Views.day({ cell: NO_CELL, date, history: table.series, forecast: null, grading: Grader.makeGrader(table.series) })
  )
  const lines = [`${Words.longDate(payload.date)}${payload.source === "none" ? " (not in the file: its climatology alone)" : ""}`]
  for (const variable of table.variables) {
    const g = payload.variables[variable]
    const c = g.climatology
    const standing =
      g.percentile === null || g.label === null
        ? g.value === null
          ? "no value"
          : `not graded: ${g.n} comparable days, a percentile needs 30`
        : `${Words.ordinal(g.percentile)} percentile (${g.percentile}), ${Words.labelWords(variable, g.label)} [${g.label}]`
    lines.push(`${pad(Words.VARIABLE_NAME[variable], 14)} ${pad(num(g.value, variable), 10)} ${standing}, n ${g.n}`)
    if (c.n > 0) {
      const band = (name: string, x: number | null) => `${name} ${x === null ? "–" : Words.formatNumber(x, UNIT[variable], "metric")}`
      lines.push(
        `${pad("", 14)} ${[band("p10", c.p10), band("p25", c.p25), band("p50", c.p50), band("p75", c.p75), band("p90", c.p90), band("mean", c.mean)].join("  ")}`,
        `${pad("", 14)} lowest ${num(c.min.value, variable)} on ${c.min.date ?? "–"}, highest ${num(c.max.value, variable)} on ${c.max.date ?? "–"}`
      )
    }
  }
  return { json: payload, text: `${lines.join("\n")}\n` }
}

const PERIOD_NAME = { month: "Month so far", season: "Season so far", year: "Year so far" } as const

/** `climate-grade trend`: the years' means and sums, and where the month, season and year so far stand. */
export const trend = (table: Table): Output => {
  const payload = withoutEnvelope(Views.trend({ cell: NO_CELL, history: table.series }))
  const lines = [
    `${payload.first} to ${payload.last}, ${payload.years.length} years; baseline ${payload.baseline === null ? "none (fewer than 30 whole years)" : `${payload.baseline.from}–${payload.baseline.to}`}`
  ]
  for (const period of ["month", "season", "year"] as const) {
    const p = payload.periods[period]
    lines.push("", `${PERIOD_NAME[period]} (${p.from} to ${p.to})`)
    for (const variable of table.variables) {
      const s = p.variables[variable]
      const what = variable === "precip" ? "total" : "mean"
      lines.push(
        s.value === null || s.rank === null
          ? `  ${pad(Words.VARIABLE_NAME[variable], 14)} no ${what}: a day of it is missing`
          : `  ${pad(Words.VARIABLE_NAME[variable], 14)} ${what} ${pad(num(s.value, variable), 10)} rank ${s.rank} of ${s.of} (1 = highest); highest ${s.highest === null ? "–" : `${num(s.highest.value, variable)} in ${s.highest.year}`}, lowest ${s.lowest === null ? "–" : `${num(s.lowest.value, variable)} in ${s.lowest.year}`}`
      )
    }
  }
  lines.push("", `year  days  ${table.variables.map((v) => pad(v === "precip" ? "precip (sum)" : `${v} (mean)`, 13)).join("")}`)
  for (const y of payload.years) {
    lines.push(`${y.year}  ${String(y.days).padStart(4)}  ${table.variables.map((v) => pad(y[v] === null ? "–" : String(y[v]), 13)).join("")}`)
  }
  return { json: payload, text: `${lines.join("\n")}\n` }
}

const KIND_NAME = { heat: "Heat waves", cold: "Cold spells", dry: "Dry spells", wet: "Wet spells" } as const

/** `climate-grade spells`: every heat wave, cold spell, dry and wet spell of the file, ranked. */
export const spells = (table: Table): Output => {
  const last = Views.lastDay(table.series)
  const payload = Spells.toJson(Spells.build({ series: table.series, recordLast: last, today: last }))
  const describe = (s: Spells.SpellJson) =>
    `${s.start} to ${s.end}, ${s.days} days` +
    (s.peak !== undefined ? `, peak ${s.peak} °C², ${s.severity}, ${s.rank_peak}${ordinalSuffix(s.rank_peak!)} by peak` : "") +
    (s.total !== undefined ? `, ${s.total} mm, ${s.rank_total}${ordinalSuffix(s.rank_total!)} wettest` : "") +
    `, ${s.rank_days}${ordinalSuffix(s.rank_days)} longest of ${s.of}`
  const lines = [
    `${payload.first} to ${payload.last}; baseline ${payload.baseline === null ? "none: no heat waves or cold spells without 30 whole years" : `${payload.baseline.from}–${payload.baseline.to}`}`
  ]
  if (payload.thresholds !== null) {
    const t = payload.thresholds
    lines.push(`thresholds: t95 ${t.t95} °C, t05 ${t.t05} °C, ehf85 ${t.ehf85 ?? "–"} °C², cf85 ${t.cf85 ?? "–"} °C²`)
  }
  for (const kind of ["heat", "cold", "dry", "wet"] as const) {
    const top = payload.top[kind]
    lines.push("", `${KIND_NAME[kind]}: ${top.length === 0 ? "none" : `${top[0]!.of}, the top ${top.length}`}`)
    for (const s of top) lines.push(`  ${describe(s)}`)
  }
  return { json: payload, text: `${lines.join("\n")}\n` }
}

const ordinalSuffix = (n: number) => {
  const tens = n % 100
  if (tens >= 11 && tens <= 13) return "th"
  return n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th"
}
