/**
 * The reference years anomalies are measured against: the WMO's 1961–1990
 * when the record spans all of it, else the record's first 30 whole calendar years, else none.
 */
import * as CivilDate from "../CivilDate.js"

export interface Baseline {
  /** First and last year, both included. */
  readonly from: number
  readonly to: number
}

export const STANDARD: Baseline = { from: 1961, to: 1990 }
export const YEARS = 30

const holds = (first: CivilDate.EpochDay, last: CivilDate.EpochDay, from: number, to: number) =>
  first <= CivilDate.fromYmd({ year: from, month: 1, day: 1 }) && last >= CivilDate.fromYmd({ year: to, month: 12, day: 31 })

/** The baseline of a record running from `first` to `last`, or null when it holds no 30 whole years. */
export const of = (first: CivilDate.EpochDay, last: CivilDate.EpochDay): Baseline | null => {
  if (holds(first, last, STANDARD.from, STANDARD.to)) return STANDARD
  const start = CivilDate.toYmd(first)
  // The first whole year: the record's first year when it starts on 1 January, else the next.
  const from = start.month === 1 && start.day === 1 ? start.year : start.year + 1
  const to = from + YEARS - 1
  return holds(first, last, from, to) ? { from, to } : null
}
