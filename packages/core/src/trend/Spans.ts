/**
 * The spans of days the trend view compares: this month, this meteorological
 * season and this year so far, each ending on the record's last day, and the same span in an
 * earlier year.
 */
import * as CivilDate from "../CivilDate.js"

/** Days `from` to `to`, both included. */
export interface Span {
  readonly from: CivilDate.EpochDay
  readonly to: CivilDate.EpochDay
}

export const PERIODS = ["month", "season", "year"] as const
export type Period = (typeof PERIODS)[number]

/** The year a span is named by: the year of its last day. */
export const yearOf = (date: CivilDate.EpochDay): number => CivilDate.toYmd(date).year

/**
 * The first day of `date`'s meteorological season: 1 March (MAM), 1 June (JJA), 1 September
 * (SON) or 1 December (DJF). December opens the next year's winter, so January and February
 * belong to the season that began the December before.
 */
export const seasonStart = (date: CivilDate.EpochDay): CivilDate.EpochDay => {
  const { month, year } = CivilDate.toYmd(date)
  if (month === 12) return CivilDate.fromYmd({ year, month: 12, day: 1 })
  if (month <= 2) return CivilDate.fromYmd({ year: year - 1, month: 12, day: 1 })
  return CivilDate.fromYmd({ year, month: month - ((month - 3) % 3), day: 1 })
}

/** The three periods that end on `last`: from the first of its month, of its season and of its year. */
export const periods = (last: CivilDate.EpochDay): Readonly<Record<Period, Span>> => {
  const { month, year } = CivilDate.toYmd(last)
  return {
    month: { from: CivilDate.fromYmd({ year, month, day: 1 }), to: last },
    season: { from: seasonStart(last), to: last },
    year: { from: CivilDate.fromYmd({ year, month: 1, day: 1 }), to: last }
  }
}

/** `date` moved by whole years, keeping its month and day; 29 February becomes 28 February in a year without it. */
export const moveYears = (date: CivilDate.EpochDay, years: number): CivilDate.EpochDay => {
  const { day, month, year } = CivilDate.toYmd(date)
  const target = year + years
  return CivilDate.fromYmd({ year: target, month, day: Math.min(day, CivilDate.daysInMonth(target, month)) })
}

/** The span shifted back by `years` whole years (each end moved as `moveYears` moves it). */
export const shiftedBack = (span: Span, years: number): Span => ({
  from: moveYears(span.from, -years),
  to: moveYears(span.to, -years)
})
