/**
 * A CSV of daily values read into the core's series: a header row naming `date` and any of `tmax`,
 * `tmin`, `precip` (°C and mm), one row a day, dates ascending; an empty cell is a missing value,
 * and a date the file skips is a day with every value missing. Anything else is refused with the
 * row (the file's line, the header being row 1) and the column it is in.
 */
import { CivilDate, type DailySeries } from "@climate-grade/core/rules"

export const VARIABLES = ["tmax", "tmin", "precip"] as const
export type Variable = (typeof VARIABLES)[number]

export class CsvError extends Error {
  constructor(
    readonly row: number,
    readonly column: string | null,
    readonly reason: string
  ) {
    super(column === null ? `row ${row}: ${reason}` : `row ${row}, column ${column}: ${reason}`)
  }
}

export interface Table {
  readonly series: DailySeries.DailySeries
  /** The variables the header names, in its order. */
  readonly variables: ReadonlyArray<Variable>
}

const isVariable = (name: string): name is Variable => (VARIABLES as ReadonlyArray<string>).includes(name)

/** A field with its surrounding spaces and one pair of double quotes taken off. */
const field = (raw: string): string => {
  const t = raw.trim()
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1).replaceAll('""', '"').trim() : t
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/

export const parse = (text: string): Table => {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/)
  // Trailing empty lines end the file; an empty line inside it is refused below.
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop()
  if (lines.length === 0) throw new CsvError(1, null, "the file is empty; expected a header row naming date and any of tmax, tmin, precip")
  const header = lines[0]!.split(",").map((name) => field(name).toLowerCase())
  const dateAt = header.indexOf("date")
  if (dateAt < 0) throw new CsvError(1, null, `the header names no date column (it names ${header.map((h) => JSON.stringify(h)).join(", ")})`)
  const columns: Array<{ readonly at: number; readonly variable: Variable }> = []
  header.forEach((name, at) => {
    if (at === dateAt) return
    if (!isVariable(name)) throw new CsvError(1, `${at + 1} (${JSON.stringify(name)})`, "not a column this reads; use date, tmax, tmin, precip")
    if (columns.some((c) => c.variable === name)) throw new CsvError(1, `${at + 1} (${name})`, "named twice")
    columns.push({ at, variable: name })
  })
  if (header.filter((h) => h === "date").length > 1) throw new CsvError(1, null, "the date column is named twice")
  if (lines.length === 1) throw new CsvError(2, null, "no data rows after the header")

  const columnName = (at: number) => `${at + 1} (${header[at]})`
  const rows: Array<{ readonly day: number; readonly values: ReadonlyArray<number> }> = []
  for (let i = 1; i < lines.length; i++) {
    const row = i + 1
    const cells = lines[i]!.split(",")
    if (cells.length !== header.length) {
      throw new CsvError(row, cells.length < header.length ? columnName(cells.length) : `${header.length + 1}`, `expected ${header.length} fields as the header has, found ${cells.length}`)
    }
    const dateText = field(cells[dateAt]!)
    const day = CivilDate.parse(dateText)
    if (day === undefined) throw new CsvError(row, columnName(dateAt), `${JSON.stringify(dateText)} is not a calendar date YYYY-MM-DD`)
    const previous = rows[rows.length - 1]
    if (previous !== undefined && day <= previous.day) {
      throw new CsvError(row, columnName(dateAt), `${dateText} ${day === previous.day ? "repeats the row before" : "comes before the row above"}; dates must ascend`)
    }
    const values = columns.map(({ at }) => {
      const text = field(cells[at]!)
      if (text === "") return Number.NaN
      if (!NUMBER.test(text)) throw new CsvError(row, columnName(at), `${JSON.stringify(text)} is not a number`)
      return Number(text)
    })
    rows.push({ day, values })
  }

  const start = rows[0]!.day
  const length = rows[rows.length - 1]!.day - start + 1
  const arrays = {
    tmax: new Float64Array(length).fill(Number.NaN),
    tmin: new Float64Array(length).fill(Number.NaN),
    precip: new Float64Array(length).fill(Number.NaN)
  }
  for (const { day, values } of rows) {
    columns.forEach(({ variable }, k) => {
      arrays[variable][day - start] = values[k]!
    })
  }
  return { series: { start, ...arrays }, variables: columns.map((c) => c.variable) }
}
