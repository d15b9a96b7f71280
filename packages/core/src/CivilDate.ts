/**
 * Calendar dates as integer day numbers (days since 1970-01-01), so that date
 * arithmetic in the grading hot path is integer arithmetic. Proleptic Gregorian,
 * after Howard Hinnant's `days_from_civil` / `civil_from_days`.
 */
/** Days since 1970-01-01. */
export type EpochDay = number

export interface Ymd {
  readonly year: number
  readonly month: number // 1..12
  readonly day: number // 1..31
}

export const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

export const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

export const fromYmd = ({ day, month, year }: Ymd): EpochDay => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const mp = (month + 9) % 12
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

export const toYmd = (epochDay: EpochDay): Ymd => {
  const z = epochDay + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  return { year: era * 400 + yoe + (month <= 2 ? 1 : 0), month, day }
}

const pad = (n: number, width: number) => String(n).padStart(width, "0")

/** `YYYY-MM-DD`. */
export const format = (epochDay: EpochDay): string => {
  const { day, month, year } = toYmd(epochDay)
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** Strict `YYYY-MM-DD` that names a real calendar day; anything else is undefined. */
export const parse = (text: string): EpochDay | undefined => {
  const m = ISO_DATE.exec(text)
  if (m === null) return undefined
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined
  return fromYmd({ year, month, day })
}

/** Moves a date by whole calendar months, clamping the day to the target month's length (Mar 31 − 1 month = Feb 28/29). */
export const addMonths = (epochDay: EpochDay, months: number): EpochDay => {
  const { day, month, year } = toYmd(epochDay)
  const index = year * 12 + (month - 1) + months
  const y = Math.floor(index / 12)
  const m = index - y * 12 + 1
  return fromYmd({ year: y, month: m, day: Math.min(day, daysInMonth(y, m)) })
}

// Building an Intl.DateTimeFormat costs far more than using one: keep one per zone.
const formatters = new Map<string, Intl.DateTimeFormat>()
const formatterFor = (timeZone: string) => {
  let formatter = formatters.get(timeZone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/** Whether Intl knows `timeZone` (an upstream's answer names one; an unknown one cannot be used). */
export const isTimeZone = (timeZone: string): boolean => {
  try {
    formatterFor(timeZone)
    return true
  } catch {
    return false
  }
}

/**
 * The earliest local date anywhere at `epochMillis` (UTC−12, the last zone to reach a date): for
 * asking about "today" before a place's time zone is known, without asking about its future.
 */
export const earliestToday = (epochMillis: number): EpochDay => todayIn(epochMillis, "Etc/GMT+12")

/** The local calendar date at `epochMillis` in an IANA time zone (Intl does the zone rules). */
export const todayIn = (epochMillis: number, timeZone: string): EpochDay => {
  const parts = formatterFor(timeZone).formatToParts(new Date(epochMillis))
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value)
  return fromYmd({ year: get("year"), month: get("month"), day: get("day") })
}

/**
 * The first millisecond after `epochMillis`, and at most `spanMs` after it, at which the local date
 * in `timeZone` is no longer the date at `epochMillis`; undefined when the date holds through the
 * span. Found by halving the span (Intl knows the zone's offsets and their changes; a date turns
 * once in any span shorter than a day), so a held answer can last until the place's midnight
 * itself instead of stopping a whole span short of it.
 */
export const dateChangeWithin = (epochMillis: number, timeZone: string, spanMs: number): number | undefined => {
  const today = todayIn(epochMillis, timeZone)
  let before = epochMillis
  let after = epochMillis + spanMs
  if (todayIn(after, timeZone) === today) return undefined
  while (after - before > 1) {
    const mid = before + Math.floor((after - before) / 2)
    if (todayIn(mid, timeZone) === today) before = mid
    else after = mid
  }
  return after
}
