/**
 * Words and numbers for people: unit conversion, labels in plain words, the headline sentence.
 * Pure functions, so the wording is tested without a browser.
 */
import { type SampleBounds, shownLabel, standingWords, tieOf, tieWords } from "@climate-grade/core/grading/Ties"
import { Percentile, Words } from "@climate-grade/core/rules"
import type { DayPayload, Grade, Units, Variable } from "./payloads.js"

export const {
  VARIABLES,
  VARIABLE_NAME,
  VARIABLE_NOUN,
  LABEL_WORDS,
  labelWords,
  convert,
  unitSymbol,
  formatNumber,
  formatValue,
  formatPercentile,
  ordinal,
  longDate,
  sinceYearOf,
  formatCoordinates,
  mostUnusual
} = Words

/** The label a calendar cell's percentile falls in (the calendar carries no labels; records are not knowable there). */
export const labelOfPercentile = Percentile.labelOfPercentile

export const isTemperature = (unit: "°C" | "mm") => unit === "°C"

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

const { MONTHS, WEEKDAYS } = Words

/** Days since the epoch of a YYYY-MM-DD date (UTC arithmetic: calendar dates carry no zone). */
export const dayNumber = (date: string): number => {
  const [y, m, d] = date.split("-").map(Number)
  return Math.round(Date.UTC(y!, m! - 1, d!) / 86_400_000)
}

export const dateOfDay = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10)

export const addDays = (date: string, days: number): string => dateOfDay(dayNumber(date) + days)

export const monthName = (month: number) => MONTHS[month - 1]!
export const shortMonth = (month: number) => MONTHS[month - 1]!.slice(0, 3)

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
