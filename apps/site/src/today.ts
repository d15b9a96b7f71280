/**
 * Honest dates: which day the top of the page describes. A stored copy (offline, or a server that
 * cannot be reached) was built for the day it was fetched; the cell's today is its local date by
 * this device's clock, in the cell's time zone. "Today" is said only of that date, and when the
 * stored forecast holds it, today's grades are the forecast's entry for it. Pure.
 */
import type { ForecastPayload, Grade, GradePayload, Variable } from "./payloads.js"

const DAY = new Map<string, Intl.DateTimeFormat>()

/** The little of Temporal used here (not in TypeScript's library yet). */
interface TemporalLike {
  readonly Instant: {
    fromEpochMilliseconds(ms: number): { toZonedDateTimeISO(timeZone: string): { toPlainDate(): { toString(): string } } }
  }
}
const temporal = (globalThis as { readonly Temporal?: TemporalLike }).Temporal

/**
 * The local date (YYYY-MM-DD) at `now` in `timeZone`; UTC when the zone is not one this browser knows.
 * Where the browser has Temporal, by Temporal: it reads the zone's rules without the locale data a first
 * `Intl.DateTimeFormat` loads (well under a millisecond where that formatter's first use costs tens).
 */
export const localDate = (now: number, timeZone: string): string => {
  if (temporal !== undefined) {
    try {
      return temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO(timeZone).toPlainDate().toString()
    } catch (error) {
      // RangeError: a zone this browser's time zone data lacks; the date in UTC, as below.
      if (!(error instanceof RangeError)) throw error
      return new Date(now).toISOString().slice(0, 10)
    }
  }
  let format = DAY.get(timeZone)
  if (format === undefined) {
    const options: Intl.DateTimeFormatOptions = { year: "numeric", month: "2-digit", day: "2-digit" }
    try {
      format = new Intl.DateTimeFormat("en-CA", { ...options, timeZone })
    } catch (error) {
      // RangeError: a zone this browser's time zone data lacks; the date in UTC is the nearest honest answer.
      if (!(error instanceof RangeError)) throw error
      format = new Intl.DateTimeFormat("en-CA", { ...options, timeZone: "UTC" })
    }
    DAY.set(timeZone, format)
  }
  // en-CA writes dates as YYYY-MM-DD; the parts are joined anyway, whatever a browser's version does.
  const parts = Object.fromEntries(format.formatToParts(new Date(now)).map((p) => [p.type, p.value]))
  return `${parts.year}-${parts.month}-${parts.day}`
}

/**
 * Makes the browser's date machinery ready (ICU's time zone and calendar data, this module's
 * formatter): a first `Intl.DateTimeFormat` costs tens of milliseconds of main thread on a phone, and
 * when it came with the place's first draw it made that draw one long task. Called in a task of its
 * own while the place's data is on its way.
 */
export const prepareLocalDate = (): void => {
  // With Temporal the cell's today needs no Intl, and nothing else in the first view does.
  if (temporal === undefined) localDate(Date.now(), "UTC")
}

export interface TopDay {
  /** The date the grades at the top describe. */
  readonly date: string
  /** Whether that date is the cell's today by the device clock. */
  readonly isToday: boolean
  /** Its three grades; null when nothing held grades it (no forecast at all). */
  readonly grades: Readonly<Record<Variable, Grade>> | null
  /** Where the grades come from: the grade view, or the stored forecast's entry for that date. */
  readonly from: "grade" | "forecast" | null
}

/**
 * The day at the top of the page: today (the cell's, by the device clock) when the grade view or
 * the stored forecast holds it; otherwise the day the stored grade describes, named as that day.
 * `storedDay` is the bundle's day view's date (the day it was built for).
 */
export const topDay = (grade: GradePayload | null, forecast: ForecastPayload | null, storedDay: string, today: string): TopDay => {
  if (grade !== null && grade.date === today) return { date: today, isToday: true, grades: grade.variables, from: "grade" }
  const entry = forecast?.days.find((d) => d.date === today)
  if (entry !== undefined) {
    return { date: today, isToday: true, grades: { tmax: entry.tmax, tmin: entry.tmin, precip: entry.precip }, from: "forecast" }
  }
  if (grade !== null) return { date: grade.date, isToday: false, grades: grade.variables, from: "grade" }
  return { date: storedDay, isToday: storedDay === today, grades: null, from: null }
}
