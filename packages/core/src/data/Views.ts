/**
 * The views as pure functions of a cell's history, forecast and grading (docs/api.md "Weather data").
 * Everything that can change their bytes is an input here, and so goes into the freshness token.
 */
import * as CivilDate from "../CivilDate.js"
import { type Grading, MIN_SAMPLE } from "../grading/Grader.js"
import * as Spells from "../spells/Spells.js"
import * as Trend from "../trend/Trend.js"
import * as DailySeries from "../weather/DailySeries.js"
import type { Variable } from "../weather/DailySeries.js"
import { PAYLOAD_VER } from "./PayloadVersion.js"
import type {
  CalendarPayload,
  CellInfo,
  Climatology,
  DayPayload,
  ForecastPayload,
  GradePayload,
  Normal,
  SpellsPayload,
  TrendPayload
} from "./Payloads.js"

/** The value of a series on `date`, NaN outside it. */
export const valueOn = (series: DailySeries.DailySeries, variable: Variable, date: CivilDate.EpochDay): number => {
  const i = date - series.start
  return i >= 0 && i < DailySeries.length(series) ? series[variable][i]! : Number.NaN
}

export const lastDay = (series: DailySeries.DailySeries): CivilDate.EpochDay => series.start + DailySeries.length(series) - 1

const perVariable = <A>(f: (variable: Variable) => A): { tmax: A; tmin: A; precip: A } => ({
  tmax: f("tmax"),
  tmin: f("tmin"),
  precip: f("precip")
})

export const issued = (stamp: number): string => new Date(stamp).toISOString()

export const grade = (input: {
  readonly cell: CellInfo
  readonly today: CivilDate.EpochDay
  readonly forecast: DailySeries.DailySeries
  readonly stamp: number
  readonly grading: Grading
}): GradePayload => ({
  view: "grade",
  v: PAYLOAD_VER.grade,
  cell: input.cell,
  date: CivilDate.format(input.today),
  issued: issued(input.stamp),
  variables: perVariable((v) => input.grading.grade(v, input.today, valueOn(input.forecast, v, input.today)))
})

/** A date's normal: its climatology's 10th, 50th and 90th percentiles, none below the grading's sample size. */
const normalOf = (climatology: Climatology): Normal =>
  climatology.n < MIN_SAMPLE
    ? { p10: null, p50: null, p90: null }
    : { p10: climatology.p10, p50: climatology.p50, p90: climatology.p90 }

export const forecast = (input: {
  readonly cell: CellInfo
  readonly today: CivilDate.EpochDay
  readonly forecast: DailySeries.DailySeries
  readonly stamp: number
  readonly grading: Grading
}): ForecastPayload => {
  const days: Array<ForecastPayload["days"][number]> = []
  for (let date = input.today; date <= lastDay(input.forecast); date++) {
    days.push({
      date: CivilDate.format(date),
      ...perVariable((v) => input.grading.grade(v, date, valueOn(input.forecast, v, date))),
      normal: perVariable((v) => normalOf(input.grading.climatology(v, date)))
    })
  }
  return { view: "forecast", v: PAYLOAD_VER.forecast, cell: input.cell, issued: issued(input.stamp), days }
}

export const calendar = (input: {
  readonly cell: CellInfo
  readonly start: CivilDate.EpochDay
  readonly end: CivilDate.EpochDay
  readonly grading: Grading
}): CalendarPayload => {
  const dates: Array<string> = []
  for (let date = input.start; date <= input.end; date++) dates.push(CivilDate.format(date))
  return {
    view: "calendar",
    v: PAYLOAD_VER.calendar,
    cell: input.cell,
    start: CivilDate.format(input.start),
    end: CivilDate.format(input.end),
    dates,
    series: perVariable((v) => {
      const graded = input.grading.gradeRecordRange(v, input.start, input.end)
      return { values: [...graded.values], percentiles: [...graded.percentiles] }
    })
  }
}

export type DaySource = DayPayload["source"]

/** Where a day's values come from: the record when it holds the date, else the forecast, else none. */
export const daySource = (
  date: CivilDate.EpochDay,
  history: DailySeries.DailySeries,
  forecastSeries: DailySeries.DailySeries | null
): DaySource =>
  date >= history.start && date <= lastDay(history)
    ? "history"
    : forecastSeries !== null && date >= forecastSeries.start && date <= lastDay(forecastSeries)
      ? "forecast"
      : "none"

export const day = (input: {
  readonly cell: CellInfo
  readonly date: CivilDate.EpochDay
  readonly history: DailySeries.DailySeries
  readonly forecast: DailySeries.DailySeries | null
  readonly grading: Grading
}): DayPayload => {
  const source = daySource(input.date, input.history, input.forecast)
  const value = (v: Variable) =>
    source === "history"
      ? valueOn(input.history, v, input.date)
      : source === "forecast" && input.forecast !== null
        ? valueOn(input.forecast, v, input.date)
        : Number.NaN
  return {
    view: "day",
    v: PAYLOAD_VER.day,
    cell: input.cell,
    date: CivilDate.format(input.date),
    source,
    variables: perVariable((v) => ({
      ...input.grading.grade(v, input.date, value(v)),
      climatology: input.grading.climatology(v, input.date)
    }))
  }
}


/** The trend view: from the record alone, which `history` holds whole, ending on its last day. */
export const trend = (input: { readonly cell: CellInfo; readonly history: DailySeries.DailySeries }): TrendPayload => {
  const t = Trend.build(input.history)
  const period = (p: Trend.PeriodStanding) => ({
    from: CivilDate.format(p.span.from),
    to: CivilDate.format(p.span.to),
    variables: p.variables
  })
  return {
    view: "trend",
    v: PAYLOAD_VER.trend,
    cell: input.cell,
    first: CivilDate.format(t.first),
    last: CivilDate.format(t.last),
    baseline: t.baseline,
    years: t.years,
    periods: { month: period(t.periods.month), season: period(t.periods.season), year: period(t.periods.year) }
  }
}

/**
 * The spells view: over the record and then the forecast, with the baseline's thresholds as held
 * for the record (computed here when not).
 */
export const spells = (input: {
  readonly cell: CellInfo
  readonly history: DailySeries.DailySeries
  readonly forecast: DailySeries.DailySeries | null
  readonly today: CivilDate.EpochDay
  readonly thresholds?: Spells.Thresholds | null
}): SpellsPayload => {
  const recordLast = lastDay(input.history)
  const series = Spells.series(input.history, recordLast, input.forecast)
  const built = Spells.build({
    series,
    recordLast,
    today: input.today,
    ...(input.thresholds === undefined ? {} : { thresholds: input.thresholds })
  })
  return { view: "spells", v: PAYLOAD_VER.spells, cell: input.cell, ...Spells.toJson(built) }
}
