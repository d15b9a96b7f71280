/**
 * The payloads of CONTRACT.md §5, as schemas: the handlers encode with them and the OpenAPI
 * document describes them.
 */
import * as Schema from "effect/Schema"

const Num = Schema.Number
const NullableNum = Schema.NullOr(Schema.Number)
const IsoDate = Schema.String.annotations({ description: "A calendar date, YYYY-MM-DD" })

export const Label = Schema.Literal("record-low", "much-below", "below", "near-normal", "above", "much-above", "record-high")

export const Grade = Schema.Struct({
  value: NullableNum,
  unit: Schema.Literal("°C", "mm"),
  percentile: NullableNum,
  label: Schema.NullOr(Label),
  n: Schema.Int
}).annotations({ identifier: "Grade" })
export type Grade = typeof Grade.Type

export const Extreme = Schema.Struct({ value: NullableNum, date: Schema.NullOr(IsoDate) })

export const Climatology = Schema.Struct({
  n: Schema.Int,
  p10: NullableNum,
  p25: NullableNum,
  p50: NullableNum,
  p75: NullableNum,
  p90: NullableNum,
  mean: NullableNum,
  min: Extreme,
  max: Extreme
}).annotations({ identifier: "Climatology" })
export type Climatology = typeof Climatology.Type

export const CellInfo = Schema.Struct({
  lat: Num,
  lon: Num,
  label: Schema.NullOr(Schema.String),
  timezone: Schema.String
}).annotations({ identifier: "Cell" })
export type CellInfo = typeof CellInfo.Type

const Variables = <A, I>(item: Schema.Schema<A, I>) => Schema.Struct({ tmax: item, tmin: item, precip: item })

export const GradePayload = Schema.Struct({
  view: Schema.Literal("grade"),
  v: Schema.Int,
  cell: CellInfo,
  date: IsoDate,
  issued: Schema.String.annotations({ description: "The forecast stamp, ISO 8601" }),
  variables: Variables(Grade)
}).annotations({ identifier: "GradePayload" })
export type GradePayload = typeof GradePayload.Type

export const ForecastDay = Schema.Struct({ date: IsoDate, tmax: Grade, tmin: Grade, precip: Grade })

export const ForecastPayload = Schema.Struct({
  view: Schema.Literal("forecast"),
  v: Schema.Int,
  cell: CellInfo,
  issued: Schema.String,
  days: Schema.Array(ForecastDay)
}).annotations({ identifier: "ForecastPayload" })
export type ForecastPayload = typeof ForecastPayload.Type

export const CalendarSeries = Schema.Struct({
  values: Schema.Array(NullableNum),
  percentiles: Schema.Array(NullableNum)
})

export const CalendarPayload = Schema.Struct({
  view: Schema.Literal("calendar"),
  v: Schema.Int,
  cell: CellInfo,
  start: IsoDate,
  end: IsoDate,
  dates: Schema.Array(IsoDate),
  series: Variables(CalendarSeries)
}).annotations({ identifier: "CalendarPayload" })
export type CalendarPayload = typeof CalendarPayload.Type

export const DayGrade = Schema.Struct({ ...Grade.fields, climatology: Climatology })

export const DayPayload = Schema.Struct({
  view: Schema.Literal("day"),
  v: Schema.Int,
  cell: CellInfo,
  date: IsoDate,
  source: Schema.Literal("history", "forecast", "none"),
  variables: Variables(DayGrade)
}).annotations({ identifier: "DayPayload" })
export type DayPayload = typeof DayPayload.Type

const Slice = <A, I>(data: Schema.Schema<A, I>) =>
  Schema.NullOr(Schema.Struct({ etag: Schema.String, data }))

export const BundlePayload = Schema.Struct({
  v: Schema.Int,
  cell: CellInfo,
  grade: Slice(GradePayload),
  forecast: Slice(ForecastPayload),
  calendar: Slice(CalendarPayload),
  day: Slice(DayPayload)
}).annotations({ identifier: "BundlePayload" })
export type BundlePayload = typeof BundlePayload.Type
