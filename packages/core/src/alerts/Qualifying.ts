/**
 * Which coming days make alerts, as pure functions: the watched days run from the
 * cell's local today to today + ALERT_DAYS_AHEAD; a day and kind qualify when the forecast value,
 * graded against the cell's history exactly as `/forecast` grades it, carries one of the kind's
 * labels; and a (watch, date, kind) makes one alert, ever.
 */
import type * as CivilDate from "../CivilDate.js"
import type { Grade } from "../data/Payloads.js"
import { valueOn } from "../data/Views.js"
import type * as DailySeries from "../weather/DailySeries.js"
import { type DailyKind, dailyKinds, type Kind, qualifies, RULES } from "./Kinds.js"

export interface Candidate {
  readonly date: CivilDate.EpochDay
  readonly kind: DailyKind
  readonly grade: Grade
}

/** The watched days: today and the `daysAhead` days after it. */
export const watchedDays = (today: CivilDate.EpochDay, daysAhead: number): ReadonlyArray<CivilDate.EpochDay> =>
  Array.from({ length: Math.max(0, daysAhead) + 1 }, (_, i) => today + i)

export interface CandidateInput {
  readonly today: CivilDate.EpochDay
  readonly daysAhead: number
  readonly forecast: DailySeries.DailySeries
  /** The grading of the cell's history (`Grader.Grading.grade`). */
  readonly grade: (variable: DailySeries.Variable, date: CivilDate.EpochDay, value: number) => Grade
}

/** Every (day, kind) in the watched days that the forecast makes extreme; days it does not hold are skipped. */
export const candidates = (input: CandidateInput): ReadonlyArray<Candidate> => {
  const out: Array<Candidate> = []
  for (const date of watchedDays(input.today, input.daysAhead)) {
    for (const kind of dailyKinds) {
      const value = valueOn(input.forecast, RULES[kind].variable, date)
      if (Number.isNaN(value)) continue
      const grade = input.grade(RULES[kind].variable, date, value)
      if (qualifies(kind, grade)) out.push({ date, kind, grade })
    }
  }
  return out
}

export const alertKey = (date: CivilDate.EpochDay, kind: Kind): string => `${date}|${kind}`

/**
 * The candidates a watch has not been alerted about yet: only its kinds, and none whose
 * (date, kind) is in `made` (the alerts the watch already has). The database's unique
 * (watch, date, kind) backs this up when instances race.
 */
export const fresh = (
  found: ReadonlyArray<Candidate>,
  watchKinds: ReadonlyArray<Kind>,
  made: ReadonlySet<string>
): ReadonlyArray<Candidate> => found.filter((c) => watchKinds.includes(c.kind) && !made.has(alertKey(c.date, c.kind)))
