/** A history whose upstream price does not grow with the calendar, for tests that count the day's budget. */
import { CivilDate } from "@climate-grade/core"
import { OpenMeteo } from "@climate-grade/weather"

/** What one day of a new cell's history costs, as the server prices an archive call (a long one: no minimum). */
const UNITS_PER_DAY = OpenMeteo.archiveCost(0, 13_999) / 14_000

/**
 * The `HISTORY_START` that makes a new cell's history cost `units` (just under) today, as the
 * server prices it from the earliest date that is today anywhere, and every day after: a fixed
 * start such as 1980-01-01 grows ~7.8 units a year, and budgets sized for it stop fitting.
 */
export const historyStartCosting = (units: number, now = Date.now()): string =>
  CivilDate.format(CivilDate.earliestToday(now) - Math.floor(units / UNITS_PER_DAY) + 1)
