/**
 * The sample rule, stated plainly: for every year of the record other than the
 * target's, the date with the target's month and day (Feb 29 → Feb 28 in a common year) and two
 * days either side; the non-null values the record holds. The fast Grader is tested against this.
 */
import * as CivilDate from "../CivilDate.js"
import type { DailySeries, Variable } from "../weather/DailySeries.js"

export const WINDOW = 2

export interface SampleValue {
  readonly value: number
  readonly date: CivilDate.EpochDay
}

/** The centre date in `year` for a target's month and day. */
export const centre = (year: number, month: number, day: number): CivilDate.EpochDay =>
  month === 2 && day === 29 && !CivilDate.isLeapYear(year)
    ? CivilDate.fromYmd({ year, month: 2, day: 28 })
    : CivilDate.fromYmd({ year, month, day })

export const sample = (record: DailySeries, variable: Variable, target: CivilDate.EpochDay): Array<SampleValue> => {
  const { day, month, year: targetYear } = CivilDate.toYmd(target)
  const values = record[variable]
  const first = CivilDate.toYmd(record.start).year
  const last = CivilDate.toYmd(record.start + values.length - 1).year
  const out: Array<SampleValue> = []
  for (let year = first; year <= last; year++) {
    if (year === targetYear) continue
    const c = centre(year, month, day)
    for (let d = c - WINDOW; d <= c + WINDOW; d++) {
      const i = d - record.start
      if (i < 0 || i >= values.length) continue
      const v = values[i]!
      if (!Number.isNaN(v)) out.push({ value: v, date: d })
    }
  }
  return out
}
