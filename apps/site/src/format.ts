/**
 * Words and numbers for people: unit conversion, labels in plain words, the headline sentence.
 * Pure functions, so the wording is tested without a browser.
 */
import { type SampleBounds, shownLabel, standingShare, type Tie, tieOf } from "@climate-grade/core/grading/Ties"
import { PageMessages as Messages, Percentile, Words } from "@climate-grade/core/rules"
import { dayAndMonthIn, longDateIn, monthIn, shortDateIn, weekdayIn, weekdayLongIn, weekdayOf } from "./i18n/dates.js"
import { dateWords, lang, w } from "./i18n/index.js"
import type { DayPayload, Grade, Units, Variable } from "./payloads.js"

export const { VARIABLES, LABEL_WORDS, convert, unitSymbol, ordinal, sinceYearOf, formatCoordinates, mostUnusual } = Words

type Label = Parameters<typeof Words.labelWords>[1]

/** The words below are the page's language's: English's are the core's `Words`, the others the core's `Messages`. */
const english = () => lang() === "en"

/** "High", "Höchstwert"…: a variable's name in the page's language (read as `VARIABLE_NAME[v]`). */
export const VARIABLE_NAME: Readonly<Record<Variable, string>> = {
  get tmax() {
    return english() ? Words.VARIABLE_NAME.tmax : Messages.variableName(lang(), "tmax")
  },
  get tmin() {
    return english() ? Words.VARIABLE_NAME.tmin : Messages.variableName(lang(), "tmin")
  },
  get precip() {
    return english() ? Words.VARIABLE_NAME.precip : Messages.variableName(lang(), "precip")
  }
}

/** "high", "Höchstwert"…: the noun a sentence uses. */
export const VARIABLE_NOUN: Readonly<Record<Variable, string>> = {
  get tmax() {
    return english() ? Words.VARIABLE_NOUN.tmax : Messages.variableNoun(lang(), "tmax")
  },
  get tmin() {
    return english() ? Words.VARIABLE_NOUN.tmin : Messages.variableNoun(lang(), "tmin")
  },
  get precip() {
    return english() ? Words.VARIABLE_NOUN.precip : Messages.variableNoun(lang(), "precip")
  }
}

export const labelWords = (variable: Variable, label: Label): string =>
  english() ? Words.labelWords(variable, label) : Messages.labelWords(lang(), variable, label)

/** A number with the digits its unit deserves, in the page's language's way ("31,2" in German). */
export const formatNumber = (value: number, unit: "°C" | "mm", units: Units): string =>
  english()
    ? Words.formatNumber(value, unit, units)
    : Messages.formatDecimal(lang(), Words.convert(value, unit, units), units === "imperial" && unit === "mm" ? 2 : 1)

/**
 * Left-to-right text (a value with its unit, coordinates) kept whole inside right-to-left text: in
 * Arabic "11.1 °C" would otherwise read "°C 11.1". Unicode's isolates, invisible; other languages as is.
 */
export const ltr = (text: string): string => (lang() === "ar" ? `\u2066${text}\u2069` : text)

export const formatValue = (value: number | null, unit: "°C" | "mm", units: Units): string =>
  english() ? Words.formatValue(value, unit, units) : value === null ? Messages.formatValue(lang(), value, unit, units) : ltr(Messages.formatValue(lang(), value, unit, units))

export const formatPercentile = (p: number): string => (english() ? Words.formatPercentile(p) : Messages.formatPercentile(lang(), p))

/** "96th percentile", "96. Perzentil"… */
export const percentileText = (p: number): string => (english() ? `${ordinal(p)} percentile` : Messages.percentileWords(lang(), p))

/** "Mon 3 March 2025", "Mo., 3. März 2025"… (by hand in every language: see ./i18n/dates.ts). */
export const longDate = (date: string): string => {
  if (english()) return Words.longDate(date)
  const words = dateWords()
  return words === null ? Messages.longDate(lang(), date) : longDateIn(words, date)
}

/** A whole number or a figure in the page's language's way ("1 234" stays "1234": no grouping). */
export const formatCount = (n: number, digits = 0): string => Messages.formatDecimal(lang(), n, digits)

/**
 * Where a value sits by its percentile: "at least as warm as 96% of days", a share never more than
 * is true (`Ties.standingShare`: the percentile is rounded, the share floored). `n` is the sample's size.
 */
export const standingWords = (variable: Variable, percentile: number, n?: number | null): string => {
  const { upper, share: bound } = standingShare(percentile, n)
  const share = formatPercentile(bound)
  return w(variable === "precip" ? (upper ? "standing.wet" : "standing.dry") : upper ? "standing.warm" : "standing.cold", { share })
}

/** The tie in a few words: "dry, like 69% of days around this date". */
export const tieWords = (variable: Variable, tie: Tie): string => {
  const share = formatPercentile(tie.share)
  if (tie.at === "dry") return w("tie.dry", { share })
  const precip = variable === "precip"
  return w(tie.at === "lowest" ? (precip ? "tie.driest" : "tie.coldest") : precip ? "tie.wettest" : "tie.warmest", { share })
}

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

const since = (year: number | null) => (year === null ? w("since.record") : w("since.year", { year }))

/**
 * One sentence that says how unusual a value is, e.g. "Today's high of 31.2 °C is warmer than 96% of
 * days around this date since 1940 — much above normal."
 */
export const headline = (c: HeadlineContext): string => {
  const { variable, grade, units } = c
  const when = c.when ?? w("when.today")
  const noun = VARIABLE_NOUN[variable]
  if (grade.value === null) return w("headline.novalue", { when, noun })
  const value = formatValue(grade.value, grade.unit, units)
  const period = since(c.sinceYear)
  if (grade.label === "record-high" || grade.label === "record-low") {
    const high = grade.label === "record-high"
    const key =
      variable === "precip"
        ? high
          ? "headline.record.wettest"
          : "headline.record.driest"
        : high
          ? variable === "tmin"
            ? "headline.record.warmest-low"
            : "headline.record.hottest"
          : variable === "tmin"
            ? "headline.record.coldest-low"
            : "headline.record.coldest-high"
    const previous =
      c.previous !== undefined && c.previous.value !== null
        ? w(c.previous.date === null ? (high ? "headline.previous.highest" : "headline.previous.lowest") : high ? "headline.previous.highest.year" : "headline.previous.lowest.year", { value: formatValue(c.previous.value, grade.unit, units), year: c.previous.date?.slice(0, 4) ?? "" })
        : ""
    return w(key, { when, noun, value, since: period, previous })
  }
  if (grade.percentile === null || grade.label === null) return w("headline.ungraded", { when, noun, value, n: grade.n })
  const p = grade.percentile
  const words = labelWords(variable, shownLabel(variable, grade, c.bounds) ?? grade.label)
  // A value that many days share is described by where the tie sits, not by its percentile
  // (which counts the tie half below, half above).
  const tie = tieOf(variable, grade, c.bounds)
  if (tie !== null && tie.at === "dry") {
    return w(when === w("when.today") ? "headline.dry.today" : "headline.dry.other", { tie: tieWords(variable, tie), since: period })
  }
  if (tie !== null) return w("headline.tie", { when, noun, value, tie: tieWords(variable, tie), since: period })
  return w("headline.graded", { when, noun, value, standing: standingWords(variable, p, grade.n), since: period, label: words })
}

const { MONTHS, WEEKDAYS } = Words

/** Days since the epoch of a YYYY-MM-DD date (UTC arithmetic: calendar dates carry no zone). */
export const dayNumber = (date: string): number => {
  const [y, m, d] = date.split("-").map(Number)
  return Math.round(Date.UTC(y!, m! - 1, d!) / 86_400_000)
}

export const dateOfDay = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10)

export const addDays = (date: string, days: number): string => dateOfDay(dayNumber(date) + days)

/**
 * A date in `Intl`'s words: only for a language whose chunk brought no date words (a tool's
 * `setCatalog` without them); the page's languages write dates by hand (`./i18n/dates.ts`).
 */
const intlFormats = new Map<string, Intl.DateTimeFormat>()
const intlDate = (options: Intl.DateTimeFormatOptions, y: number, m: number, d: number): string => {
  const key = `${lang()}:${JSON.stringify(options)}`
  let f = intlFormats.get(key)
  if (f === undefined) {
    f = new Intl.DateTimeFormat(lang(), { ...options, timeZone: "UTC" })
    intlFormats.set(key, f)
  }
  return f.format(Date.UTC(y, m - 1, d))
}

const civil = (date: string) => date.split("-").map(Number) as [number, number, number]

export const monthName = (month: number): string => {
  if (english()) return MONTHS[month - 1]!
  const words = dateWords()
  return words === null ? intlDate({ month: "long" }, 2001, month, 15) : monthIn(words, month, "long")
}

export const shortMonth = (month: number): string => {
  if (english()) return MONTHS[month - 1]!.slice(0, 3)
  const words = dateWords()
  return words === null ? intlDate({ month: "short" }, 2001, month, 15) : monthIn(words, month, "short")
}

/** "Mon 3 Mar", "Mo., 3. März"… */
export const shortDate = (date: string): string => {
  const [y, m, d] = civil(date)
  if (english()) return `${WEEKDAYS[weekdayOf(y, m, d)]!} ${d} ${shortMonth(m)}`
  const words = dateWords()
  return words === null ? intlDate({ weekday: "short", day: "numeric", month: "short" }, y, m, d) : shortDateIn(words, date)
}

/** "3 Mar", "3. März", "3月3日"… */
export const dayAndMonth = (date: string): string => {
  const [y, m, d] = civil(date)
  if (english()) return `${d} ${shortMonth(m)}`
  const words = dateWords()
  return words === null ? intlDate({ day: "numeric", month: "short" }, y, m, d) : dayAndMonthIn(words, date)
}

/** "Mon", "Mo", "月"… */
export const weekday = (date: string): string => {
  const [y, m, d] = civil(date)
  if (english()) return WEEKDAYS[weekdayOf(y, m, d)]!
  const words = dateWords()
  return words === null ? intlDate({ weekday: "short" }, y, m, d) : weekdayIn(words, date)
}

/** "Monday", "Montag", "月曜日"… */
export const weekdayLong = (date: string): string => {
  const [y, m, d] = civil(date)
  if (english()) return WEEKDAYS_LONG[weekdayOf(y, m, d)]!
  const words = dateWords()
  return words === null ? intlDate({ weekday: "long" }, y, m, d) : weekdayLongIn(words, date)
}

const WEEKDAYS_LONG = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const

/** "When" for a headline: today, tomorrow, or the date. */
export const whenWords = (date: string, today: string): string => {
  const diff = dayNumber(date) - dayNumber(today)
  if (diff === 0) return w("when.today")
  if (diff === 1) return w("when.tomorrow")
  if (diff === -1) return w("when.yesterday")
  return w("when.the-date", { date: longDate(date) })
}

/**
 * The one thing to say about the day at the top: its most unusual grade, or that it is an ordinary
 * day. `day` names it when it is not today (a stored copy of an earlier day).
 */
export const verdict = (grades: Readonly<Record<Variable, Grade>>, day?: string, bounds?: Partial<Record<Variable, SampleBounds>>): string => {
  const top = mostUnusual(grades, bounds)
  const values = { date: day === undefined ? "" : longDate(day) }
  const today = day === undefined
  if (top === null) return w(today ? "verdict.ungraded.today" : "verdict.ungraded.day", values)
  const g = grades[top]
  const label = shownLabel(top, g, bounds?.[top])!
  if (label === "near-normal") return w(today ? "verdict.ordinary.today" : "verdict.ordinary.day", values)
  const noun = VARIABLE_NOUN[top]
  if (label === "record-high" || label === "record-low") {
    const record = w(label === "record-high" ? "verdict.record-high" : "verdict.record-low")
    return w(today ? "verdict.label.today" : "verdict.label.day", { ...values, noun, label: record })
  }
  return w(today ? "verdict.label.today" : "verdict.label.day", { ...values, noun, label: labelWords(top, label) })
}

export const SITE_NAME = "Climate grade"
/** The main page's own title (its HTML's), for the welcome page. */
export const welcomeTitle = (): string => Messages.t(lang(), "site.title")

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
  if (day === null || day.grades === null) return w("title.place", { place, site: SITE_NAME })
  if (!day.isToday) return w("title.day", { place, date: longDate(day.date), site: SITE_NAME })
  const top = mostUnusual(day.grades)
  const g = top === null ? null : day.grades[top]
  const label = top === null || g === null ? null : shownLabel(top, g)
  const words =
    top === null || g === null || label === null
      ? Messages.t(lang(), "head.nothing")
      : label === "near-normal"
        ? Messages.t(lang(), "head.ordinary")
        : Messages.t(lang(), "head.verdict", { noun: VARIABLE_NOUN[top], value: formatValue(g.value, g.unit, units), label: labelWords(top, label) })
  // The words of the server's head for this address (the core's messages), so tab and preview agree.
  return Messages.t(lang(), "head.title", { headline: Messages.t(lang(), "head.today", { place, verdict: words }), site: SITE_NAME })
}

/** "Today's", "Yesterday's", or "On Sun 22 November 2026 the": a headline's subject for the day shown. */
export const dayWhen = (date: string, today: string): string => {
  const diff = dayNumber(date) - dayNumber(today)
  return diff === 0 ? w("when.today") : diff === -1 ? w("when.yesterday") : w("when.on-date", { date: longDate(date) })
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

/** formatStamp's formatters by zone (undefined: this device's), made once: each costs far more than a use. */
const stampFormats = new Map<string | undefined, Intl.DateTimeFormat>()

/**
 * An instant as the page writes times: its date as the page writes dates, the time on a 24-hour
 * clock and the zone named, e.g. "Sat 28 November 2026, 03:05 CET". In `timeZone`, else this
 * device's zone.
 */
export const formatStamp = (ms: number, timeZone?: string): string => {
  if (timeZone === "UTC") {
    // In UTC the parts are the Date's own (no zone data, no Intl), the zone named as Intl names it.
    const at = new Date(ms)
    const two = (n: number) => String(n).padStart(2, "0")
    return `${longDate(at.toISOString().slice(0, 10))}, ${two(at.getUTCHours())}:${two(at.getUTCMinutes())} UTC`
  }
  let format = stampFormats.get(timeZone)
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-GB", {
      ...(timeZone === undefined ? {} : { timeZone }),
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short"
    })
    stampFormats.set(timeZone, format)
  }
  const parts = format.formatToParts(ms)
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? ""
  // The date as the page writes dates in its language; the time in figures on a 24-hour clock.
  return `${longDate(`${get("year")}-${get("month")}-${get("day")}`)}, ${get("hour")}:${get("minute")} ${get("timeZoneName")}`
}
