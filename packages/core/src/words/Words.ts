/**
 * Words and numbers for people, said the same way wherever a grade is shown: the site's pages, the
 * share card and a shared link's preview, the command line. Plain functions, no IO.
 */
import type { Label } from "../grading/Percentile.js"
import { type SampleBounds, shownLabel } from "../grading/Ties.js"
import type { Variable } from "../weather/DailySeries.js"

export type Units = "metric" | "imperial"
export type Unit = "°C" | "mm"

/** What the words need of a grade (the payloads' `Grade`). */
export interface Graded {
  readonly value: number | null
  readonly label: Label | null
  readonly percentile: number | null
}

export const VARIABLES: ReadonlyArray<Variable> = ["tmax", "tmin", "precip"]
export const VARIABLE_NAME: Readonly<Record<Variable, string>> = { tmax: "High", tmin: "Low", precip: "Precipitation" }
export const VARIABLE_NOUN: Readonly<Record<Variable, string>> = { tmax: "high", tmin: "low", precip: "precipitation" }

/** The label in words, as a person would say it. */
export const LABEL_WORDS: Readonly<Record<Label, string>> = {
  "record-low": "record low",
  "much-below": "much below normal",
  below: "below normal",
  "near-normal": "near normal",
  above: "above normal",
  "much-above": "much above normal",
  "record-high": "record high"
}

/** Precipitation labels read better as dry/wet. */
export const PRECIP_WORDS: Readonly<Record<Label, string>> = {
  "record-low": "record low",
  "much-below": "much drier than normal",
  below: "drier than normal",
  "near-normal": "near normal",
  above: "wetter than normal",
  "much-above": "much wetter than normal",
  "record-high": "record wet"
}

export const labelWords = (variable: Variable, label: Label): string =>
  variable === "precip" ? PRECIP_WORDS[label] : LABEL_WORDS[label]

/** A value in the chosen units, unrounded. */
export const convert = (value: number, unit: Unit, units: Units): number =>
  units === "metric" ? value : unit === "°C" ? (value * 9) / 5 + 32 : value / 25.4

export const unitSymbol = (unit: Unit, units: Units): string => (units === "metric" ? unit : unit === "°C" ? "°F" : "in")

/** A number with the digits its unit deserves: tenths for °C, °F and mm, hundredths for inches. */
export const formatNumber = (value: number, unit: Unit, units: Units): string => {
  const digits = units === "imperial" && unit === "mm" ? 2 : 1
  const text = convert(value, unit, units).toFixed(digits)
  // "-0.0" says nothing a person needs; a real minus sign reads better than a hyphen.
  const clean = Number(text) === 0 ? (0).toFixed(digits) : text
  return clean.replace("-", "−")
}

/** Every number printed with its unit, e.g. "31.2 °C", "0.49 in", or "no value". */
export const formatValue = (value: number | null, unit: Unit, units: Units): string =>
  value === null ? "no value" : `${formatNumber(value, unit, units)} ${unitSymbol(unit, units)}`

/** A percentile as printed: whole numbers unless the payload's tenth matters at the ends. */
export const formatPercentile = (p: number): string => {
  const rounded = Math.round(p)
  // Never "0" or "100" for a day that is not past every other: that is what a record says.
  if (rounded === 0 && p > 0) return Math.max(0.1, p).toFixed(1)
  if (rounded === 100 && p < 100) return Math.min(99.9, p).toFixed(1)
  return String(rounded)
}

/** "96th", "1st", "0.4th". */
export const ordinal = (p: number): string => {
  const text = formatPercentile(p)
  if (text.includes(".")) return `${text}th`
  const n = Number(text)
  const tens = n % 100
  if (tens >= 11 && tens <= 13) return `${n}th`
  return `${n}${n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th"}`
}

export const MONTHS: ReadonlyArray<string> = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December"
]
export const WEEKDAYS: ReadonlyArray<string> = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

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

const isRecord = (g: Graded) => g.label === "record-high" || g.label === "record-low"

/**
 * The most unusual graded value: records first, then the furthest from the 50th percentile; null when
 * none is graded. A value shown as near normal for its ties (`Ties.shownLabel`) is as ordinary as can be.
 */
export const mostUnusual = (
  grades: Readonly<Record<Variable, Graded>>,
  bounds?: Partial<Record<Variable, SampleBounds>>
): Variable | null => {
  const graded = VARIABLES.filter((v) => grades[v].label !== null && grades[v].percentile !== null)
  if (graded.length === 0) return null
  const weight = (v: Variable) => {
    const g = grades[v]
    if (g.label !== "near-normal" && shownLabel(v, g, bounds?.[v]) === "near-normal") return 0
    return isRecord(g) ? 1000 : Math.abs(g.percentile! - 50)
  }
  return [...graded].sort((a, b) => weight(b) - weight(a))[0]!
}
