/**
 * Words and numbers for people: unit conversion, labels in plain words, the headline sentence.
 * Pure functions, so the wording is tested without a browser.
 */
import { type SampleBounds, shownLabel, standingWords, tieOf, tieWords } from "@climate-grade/core/grading/Ties"
import type { DayPayload, Grade, GradeLabel, Units, Variable } from "./payloads.js"

export const VARIABLES: ReadonlyArray<Variable> = ["tmax", "tmin", "precip"]

export const VARIABLE_NAME: Record<Variable, string> = { tmax: "High", tmin: "Low", precip: "Precipitation" }
export const VARIABLE_NOUN: Record<Variable, string> = { tmax: "high", tmin: "low", precip: "precipitation" }

/** The label in words, as a person would say it. */
export const LABEL_WORDS: Record<GradeLabel, string> = {
  "record-low": "record low",
  "much-below": "much below normal",
  below: "below normal",
  "near-normal": "near normal",
  above: "above normal",
  "much-above": "much above normal",
  "record-high": "record high"
}

/** Precipitation labels read better as dry/wet. */
const PRECIP_WORDS: Record<GradeLabel, string> = {
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

/** The label a calendar cell's percentile falls in (the calendar carries no labels; records are not knowable there). */
export const labelOfPercentile = (p: number): GradeLabel =>
  p < 10 ? "much-below" : p < 100 / 3 ? "below" : p <= 200 / 3 ? "near-normal" : p <= 90 ? "above" : "much-above"

export const isTemperature = (unit: "°C" | "mm") => unit === "°C"

/** A value in the chosen units, unrounded. */
export const convert = (value: number, unit: "°C" | "mm", units: Units): number =>
  units === "metric" ? value : unit === "°C" ? (value * 9) / 5 + 32 : value / 25.4

export const unitSymbol = (unit: "°C" | "mm", units: Units): string =>
  units === "metric" ? unit : unit === "°C" ? "°F" : "in"

/** A number with the digits its unit deserves: tenths for °C, °F and mm, hundredths for inches. */
export const formatNumber = (value: number, unit: "°C" | "mm", units: Units): string => {
  const digits = units === "imperial" && unit === "mm" ? 2 : 1
  const text = convert(value, unit, units).toFixed(digits)
  // "-0.0" says nothing a person needs; a real minus sign reads better than a hyphen.
  const clean = Number(text) === 0 ? (0).toFixed(digits) : text
  return clean.replace("-", "−")
}

/** Every number printed with its unit, e.g. "31.2 °C", "0.49 in". */
export const formatValue = (value: number | null, unit: "°C" | "mm", units: Units): string =>
  value === null ? "no value" : `${formatNumber(value, unit, units)} ${unitSymbol(unit, units)}`

/** A percentile as printed: whole numbers unless the payload's tenth matters at the ends. */
export const formatPercentile = (p: number): string => {
  const rounded = Math.round(p)
  // Never "0" or "100" for a day that is not past every other: that is what a record says.
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

export interface HeadlineContext {
  readonly variable: Variable
  readonly grade: Grade
  readonly units: Units
  /** First year of the record, when known ("since 1940"). */
  readonly sinceYear: number | null
  /** The record the value beat, for record days: the previous extreme and its year. */
  readonly previous?: { readonly value: number | null; readonly date: string | null } | undefined
  /** "Today's", "Tomorrow's", or "On 3 March 2025 the"… */
  readonly when?: string
  /** The sample's lowest and highest value, when the day's climatology is at hand: a value equal to one is a tie. */
  readonly bounds?: SampleBounds | undefined
}

const since = (year: number | null) => (year === null ? "in the record" : `since ${year}`)

/**
 * One sentence that says how unusual a value is, e.g. "Today's high of 31.2 °C is warmer than 96% of
 * days around this date since 1940 — much above normal."
 */
export const headline = (c: HeadlineContext): string => {
  const { variable, grade, units } = c
  const when = c.when ?? "Today's"
  const noun = VARIABLE_NOUN[variable]
  if (grade.value === null) return `${when} ${noun} has no value yet.`
  const value = formatValue(grade.value, grade.unit, units)
  const subject = `${when} ${noun} of ${value}`
  const period = since(c.sinceYear)
  if (grade.label === "record-high" || grade.label === "record-low") {
    const high = grade.label === "record-high"
    const word =
      variable === "precip" ? "the wettest" : high ? (variable === "tmin" ? "the warmest low" : "the hottest") : variable === "tmin" ? "the coldest low" : "the coldest high"
    const previous =
      c.previous !== undefined && c.previous.value !== null
        ? ` (the previous ${high ? "highest" : "lowest"}: ${formatValue(c.previous.value, grade.unit, units)}${c.previous.date === null ? "" : ` in ${c.previous.date.slice(0, 4)}`})`
        : ""
    return `${subject} is ${word} for this time of year ${period} — a ${high ? "record high" : "record low"}${previous}.`
  }
  if (grade.percentile === null || grade.label === null) {
    return `${subject} cannot be graded: only ${grade.n} comparable days are held, and a percentile needs at least 30.`
  }
  const p = grade.percentile
  const words = labelWords(variable, shownLabel(variable, grade, c.bounds) ?? grade.label)
  // A value that many days share is described by where the tie sits, not by its percentile
  // (which counts the tie half below, half above).
  const tie = tieOf(variable, grade, c.bounds)
  if (tie !== null && tie.at === "dry") {
    return `No precipitation ${when === "Today's" ? "today" : "that day"}: ${tieWords(variable, tie)} ${period}.`
  }
  if (tie !== null) return `${subject} is ${tieWords(variable, tie)} ${period}.`
  return `${subject} is ${standingWords(variable, p, formatPercentile)} around this date ${period} — ${words}.`
}

const MONTHS = [
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
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

/** Days since the epoch of a YYYY-MM-DD date (UTC arithmetic: calendar dates carry no zone). */
export const dayNumber = (date: string): number => {
  const [y, m, d] = date.split("-").map(Number)
  return Math.round(Date.UTC(y!, m! - 1, d!) / 86_400_000)
}

export const dateOfDay = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10)

export const addDays = (date: string, days: number): string => dateOfDay(dayNumber(date) + days)

export const monthName = (month: number) => MONTHS[month - 1]!
export const shortMonth = (month: number) => MONTHS[month - 1]!.slice(0, 3)

/** "Mon 3 March 2025" */
export const longDate = (date: string): string => {
  const [y, m, d] = date.split("-").map(Number)
  const weekday = WEEKDAYS[new Date(Date.UTC(y!, m! - 1, d!)).getUTCDay()]!
  return `${weekday} ${d} ${monthName(m!)} ${y}`
}

/** "Mon 3 Mar" */
export const shortDate = (date: string): string => {
  const [y, m, d] = date.split("-").map(Number)
  const weekday = WEEKDAYS[new Date(Date.UTC(y!, m! - 1, d!)).getUTCDay()]!
  return `${weekday} ${d} ${shortMonth(m!)}`
}

export const weekday = (date: string): string => {
  const [y, m, d] = date.split("-").map(Number)
  return WEEKDAYS[new Date(Date.UTC(y!, m! - 1, d!)).getUTCDay()]!
}

/** "When" for a headline: today, tomorrow, or the date. */
export const whenWords = (date: string, today: string): string => {
  const diff = dayNumber(date) - dayNumber(today)
  if (diff === 0) return "Today's"
  if (diff === 1) return "Tomorrow's"
  if (diff === -1) return "Yesterday's"
  return `The ${longDate(date)}`
}

/** "52.50°N 13.50°E" */
export const formatCoordinates = (lat: number, lon: number): string =>
  `${Math.abs(lat).toFixed(2)}°${lat < 0 ? "S" : "N"} ${Math.abs(lon).toFixed(2)}°${lon < 0 ? "W" : "E"}`

/** The 0.25° grid the service grades (cell centres at multiples of 0.25°). */
export const snap = (x: number) => Math.round(x * 4) / 4

/** The first year of the record, from a sample size: a date's sample holds 5 days of every other year. */
export const sinceYearOf = (n: number, today: string): number | null =>
  n < 5 ? null : Number(today.slice(0, 4)) - Math.round(n / 5)

/** The most unusual graded value: records first, then the furthest from the 50th percentile (as the card picks it). */
export const mostUnusual = (grades: Readonly<Record<Variable, Grade>>, bounds?: Partial<Record<Variable, SampleBounds>>): Variable | null => {
  const graded = VARIABLES.filter((v) => grades[v].label !== null && grades[v].percentile !== null)
  if (graded.length === 0) return null
  const weight = (v: Variable) => {
    const g = grades[v]
    // A value the median day shares is as ordinary as can be, whatever its percentile.
    if (g.label !== "near-normal" && shownLabel(v, g, bounds?.[v]) === "near-normal") return 0
    return g.label === "record-high" || g.label === "record-low" ? 1000 : Math.abs(g.percentile! - 50)
  }
  return [...graded].sort((a, b) => weight(b) - weight(a))[0]!
}

/**
 * The one thing to say about the day at the top: its most unusual grade, or that it is an ordinary
 * day. `day` names it when it is not today (a stored copy of an earlier day).
 */
export const verdict = (grades: Readonly<Record<Variable, Grade>>, day?: string, bounds?: Partial<Record<Variable, SampleBounds>>): string => {
  const top = mostUnusual(grades, bounds)
  const when = day === undefined ? "Today" : longDate(day)
  const whose = (noun: string) => (day === undefined ? `Today's ${noun}` : `The ${noun} on ${longDate(day)}`)
  if (top === null) return `${when} cannot be graded here${day === undefined ? " yet" : ""}.`
  const g = grades[top]
  const label = shownLabel(top, g, bounds?.[top])!
  if (label === "near-normal") return `${when} is an ordinary day here for the time of year.`
  if (label === "record-high" || label === "record-low") {
    return `${whose(VARIABLE_NOUN[top])} is a ${label === "record-high" ? "record high" : "record low"} for the time of year.`
  }
  return `${whose(VARIABLE_NOUN[top])} is ${labelWords(top, label)} for the time of year.`
}

export const SITE_NAME = "Climate grade"
/** The main page's own title (its HTML's), for the welcome page. */
export const WELCOME_TITLE = "Climate grade — how unusual is today's weather?"

/** The place as the page names it: the name picked in the search, else the cell's label, else its coordinates. */
export const placeName = (cell: { readonly lat: number; readonly lon: number; readonly label: string | null }, name: string | null): string =>
  name ?? cell.label ?? formatCoordinates(cell.lat, cell.lon)

/**
 * The document's title for a place: for today, the same words as the server's head for the place's
 * address (the card package's `ShareText.forGrade`), so a tab, a history entry and a shared link's
 * preview agree; for a stored copy of another day, that day; without grades, the place alone.
 */
export const placeTitle = (
  place: string,
  day: { readonly date: string; readonly isToday: boolean; readonly grades: Readonly<Record<Variable, Grade>> | null } | null,
  units: Units
): string => {
  if (day === null || day.grades === null) return `${place} — ${SITE_NAME}`
  if (!day.isToday) return `${place}, ${longDate(day.date)} — ${SITE_NAME}`
  const top = mostUnusual(day.grades)
  const g = top === null ? null : day.grades[top]
  const label = top === null || g === null ? null : shownLabel(top, g)
  const words =
    top === null || g === null || label === null
      ? "today's weather against its history"
      : label === "near-normal"
        ? "an ordinary day for the time of year"
        : `${VARIABLE_NOUN[top]} ${formatValue(g.value, g.unit, units)}, ${labelWords(top, label)}`
  return `${place} today: ${words} — ${SITE_NAME}`
}

/** "Today's", "Yesterday's", or "On Sun 22 November 2026 the": a headline's subject for the day shown. */
export const dayWhen = (date: string, today: string): string => {
  const diff = dayNumber(date) - dayNumber(today)
  return diff === 0 ? "Today's" : diff === -1 ? "Yesterday's" : `On ${longDate(date)} the`
}

/** Each variable's sample bounds from a day view of `date` (its climatology), for the words of ties. */
export const boundsOf = (day: DayPayload | null, date: string): Partial<Record<Variable, SampleBounds>> | undefined => {
  if (day === null || day.date !== date) return undefined
  const of = (v: Variable): SampleBounds => {
    const c = day.variables[v].climatology
    return { min: c.min.value, max: c.max.value, p50: c.p50 }
  }
  return { tmax: of("tmax"), tmin: of("tmin"), precip: of("precip") }
}

/** Whether the service says its weather is made up (`pnpm demo`: the server marks its pages' `<html data-demo>`). */
export const isDemo = (): boolean => typeof document !== "undefined" && document.documentElement.dataset.demo === "1"

/**
 * An instant as the page writes times: its date as the page writes dates, the time on a 24-hour
 * clock and the zone named, e.g. "Sat 28 November 2026, 03:05 CET". In `timeZone`, else this
 * device's zone.
 */
export const formatStamp = (ms: number, timeZone?: string): string => {
  const parts = new Intl.DateTimeFormat("en-GB", {
    ...(timeZone === undefined ? {} : { timeZone }),
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZoneName: "short"
  }).formatToParts(ms)
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? ""
  return `${longDate(`${get("year")}-${get("month")}-${get("day")}`)}, ${get("hour")}:${get("minute")} ${get("timeZoneName")}`
}
