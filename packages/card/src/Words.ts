/**
 * The words and numbers the card and a shared link's preview print: the same as the site's
 * (apps/site/src/format.ts), which they must match so a preview reads like the page it opens.
 * The site's bundle cannot import this package (nor this package the site's), so the few rules
 * needed are restated here; apps/site/test/ShareWords.test.ts holds the two to the same answers.
 */
import type { Grade, GradePayload } from "@climate-grade/core/data/Payloads"
import { shownLabel } from "@climate-grade/core/grading/Ties"

export type GradeLabel = NonNullable<Grade["label"]>

export type Units = "metric" | "imperial"
export type Variable = "tmax" | "tmin" | "precip"

export const VARIABLES: ReadonlyArray<Variable> = ["tmax", "tmin", "precip"]
export const VARIABLE_NAME: Readonly<Record<Variable, string>> = { tmax: "High", tmin: "Low", precip: "Precipitation" }
export const VARIABLE_NOUN: Readonly<Record<Variable, string>> = { tmax: "high", tmin: "low", precip: "precipitation" }

const LABEL_WORDS: Readonly<Record<GradeLabel, string>> = {
  "record-low": "record low",
  "much-below": "much below normal",
  below: "below normal",
  "near-normal": "near normal",
  above: "above normal",
  "much-above": "much above normal",
  "record-high": "record high"
}

const PRECIP_WORDS: Readonly<Record<GradeLabel, string>> = {
  "record-low": "record low",
  "much-below": "much drier than normal",
  below: "drier than normal",
  "near-normal": "near normal",
  above: "wetter than normal",
  "much-above": "much wetter than normal",
  "record-high": "record wet"
}

export const labelWords = (variable: Variable, label: GradeLabel): string =>
  variable === "precip" ? PRECIP_WORDS[label] : LABEL_WORDS[label]

const convert = (value: number, unit: "°C" | "mm", units: Units): number =>
  units === "metric" ? value : unit === "°C" ? (value * 9) / 5 + 32 : value / 25.4

export const unitSymbol = (unit: "°C" | "mm", units: Units): string =>
  units === "metric" ? unit : unit === "°C" ? "°F" : "in"

/** Tenths for °C, °F and mm, hundredths for inches; a real minus sign, never "−0.0". */
export const formatNumber = (value: number, unit: "°C" | "mm", units: Units): string => {
  const digits = units === "imperial" && unit === "mm" ? 2 : 1
  const text = convert(value, unit, units).toFixed(digits)
  const clean = Number(text) === 0 ? (0).toFixed(digits) : text
  return clean.replace("-", "−")
}

/** "31.2 °C", "0.49 in", or "no value". */
export const formatValue = (value: number | null, unit: "°C" | "mm", units: Units): string =>
  value === null ? "no value" : `${formatNumber(value, unit, units)} ${unitSymbol(unit, units)}`

/** Whole numbers, except that 0 and 100 are kept for what is past every other day (a record). */
export const formatPercentile = (p: number): string => {
  const rounded = Math.round(p)
  if (rounded === 0 && p > 0) return Math.max(0.1, p).toFixed(1)
  if (rounded === 100 && p < 100) return Math.min(99.9, p).toFixed(1)
  return String(rounded)
}

export const ordinal = (p: number): string => {
  const text = formatPercentile(p)
  if (text.includes(".")) return `${text}th`
  const n = Number(text)
  const tens = n % 100
  if (tens >= 11 && tens <= 13) return `${n}th`
  return `${n}${n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th"}`
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

/** "Mon 3 March 2025" */
export const longDate = (date: string): string => {
  const [y, m, d] = date.split("-").map(Number)
  const weekday = WEEKDAYS[new Date(Date.UTC(y!, m! - 1, d!)).getUTCDay()]!
  return `${weekday} ${d} ${MONTHS[m! - 1]!} ${y}`
}

/** The first year of the record, from a sample size: a date's sample holds 5 days of every other year. */
export const sinceYearOf = (n: number, date: string): number | null =>
  n < 5 ? null : Number(date.slice(0, 4)) - Math.round(n / 5)

/** "52.50°N 13.50°E" */
export const formatCoordinates = (lat: number, lon: number): string =>
  `${Math.abs(lat).toFixed(2)}°${lat < 0 ? "S" : "N"} ${Math.abs(lon).toFixed(2)}°${lon < 0 ? "W" : "E"}`

/** The place as the server knows it: the cell's label, else its coordinates. */
export const placeLabel = (grade: GradePayload): string => grade.cell.label ?? formatCoordinates(grade.cell.lat, grade.cell.lon)

const isRecord = (g: Grade) => g.label === "record-high" || g.label === "record-low"

/** The most unusual of today's graded values (records first, then the furthest from the 50th percentile), as the site's verdict picks it. */
export const mostUnusual = (grade: GradePayload): Variable | null => {
  const graded = VARIABLES.filter((v) => grade.variables[v].label !== null && grade.variables[v].percentile !== null)
  if (graded.length === 0) return null
  const weight = (v: Variable) => {
    const g = grade.variables[v]
    // A dry day where most days are dry is as ordinary as can be, whatever its percentile (core's Ties).
    if (g.label !== "near-normal" && shownLabel(v, g) === "near-normal") return 0
    return isRecord(g) ? 1000 : Math.abs(g.percentile! - 50)
  }
  return [...graded].sort((a, b) => weight(b) - weight(a))[0]!
}
