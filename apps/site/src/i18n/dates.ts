/**
 * Civil dates (YYYY-MM-DD) in a language's words without `Intl`: each language's chunk carries its
 * month and weekday names and the order it writes a date in, exactly as `Intl.DateTimeFormat` writes
 * them in that language (a test holds the two equal for every day of several years). The first
 * `Intl.DateTimeFormat` or `Intl.NumberFormat` of a page loads ICU's locale data, tens of
 * milliseconds of main thread on a phone, and the page's first view needs none of it.
 */

/** A language's words for dates; where a form alone differs from the form inside a date, both. */
export interface DateWords {
  /** Month names in full (January first), in a date and alone. */
  readonly months: ReadonlyArray<string>
  /** Short month names as a date writes them ("3. März", "3. Sept."). */
  readonly monthsShort: ReadonlyArray<string>
  /** Short month names alone ("Mär", "Sep"), when not `monthsShort`. */
  readonly monthsShortAlone?: ReadonlyArray<string>
  /** Short weekday names (Sunday first) as a date writes them ("Mo."). */
  readonly weekdays: ReadonlyArray<string>
  /** Short weekday names alone ("Mo"), when not `weekdays`. */
  readonly weekdaysAlone?: ReadonlyArray<string>
  /** Weekday names in full (Sunday first). */
  readonly weekdaysLong: ReadonlyArray<string>
  /** A date in full with its weekday: `{weekday}`, `{day}`, `{month}` (in full), `{year}`. */
  readonly long: string
  /** Weekday, day and short month. */
  readonly short: string
  /** Day and short month. */
  readonly dayMonth: string
  /** A month named alone ("{month}", Japanese "{month}月"). */
  readonly month: string
}

/** The weekday of a civil date, 0 for Sunday (Sakamoto's method: integer arithmetic, any Gregorian date). */
export const weekdayOf = (y: number, m: number, d: number): number => {
  const t = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4][m - 1]!
  const year = m < 3 ? y - 1 : y
  return (((year + Math.floor(year / 4) - Math.floor(year / 100) + Math.floor(year / 400) + t + d) % 7) + 7) % 7
}

const fillDate = (template: string, parts: Readonly<Record<string, string | number>>): string =>
  template.replace(/\{([a-z]+)\}/g, (_, name: string) => String(parts[name]))

const civil = (date: string) => date.split("-").map(Number) as [number, number, number]

/** "Mo., 3. März 2025", "lun. 3 mars 2025", "2025年3月3日(月)"… */
export const longDateIn = (words: DateWords, date: string): string => {
  const [y, m, d] = civil(date)
  return fillDate(words.long, { weekday: words.weekdays[weekdayOf(y, m, d)]!, day: d, month: words.months[m - 1]!, year: y })
}

/** "Mo., 3. März", "lun. 3 mars"… */
export const shortDateIn = (words: DateWords, date: string): string => {
  const [y, m, d] = civil(date)
  return fillDate(words.short, { weekday: words.weekdays[weekdayOf(y, m, d)]!, day: d, month: words.monthsShort[m - 1]! })
}

/** "3. März", "3 mars", "3月3日"… */
export const dayAndMonthIn = (words: DateWords, date: string): string => {
  const [, m, d] = civil(date)
  return fillDate(words.dayMonth, { day: d, month: words.monthsShort[m - 1]! })
}

/** A short weekday alone: "Mo", "lun.", "月"… */
export const weekdayIn = (words: DateWords, date: string): string => {
  const [y, m, d] = civil(date)
  return (words.weekdaysAlone ?? words.weekdays)[weekdayOf(y, m, d)]!
}

/** A weekday in full: "Montag", "lundi", "月曜日"… */
export const weekdayLongIn = (words: DateWords, date: string): string => {
  const [y, m, d] = civil(date)
  return words.weekdaysLong[weekdayOf(y, m, d)]!
}

/** A month (1–12) alone, in full or short: "März"/"Mär", "3月"… */
export const monthIn = (words: DateWords, month: number, form: "long" | "short"): string =>
  fillDate(words.month, { month: (form === "long" ? words.months : (words.monthsShortAlone ?? words.monthsShort))[month - 1]! })
