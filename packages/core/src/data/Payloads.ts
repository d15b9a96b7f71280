/**
 * The payloads of CONTRACT.md §5, as schemas: the handlers encode with them and the OpenAPI
 * document describes them.
 */
import * as Schema from "effect/Schema"

const d = (description: string) => ({ description })
/**
 * A field's description on the property, not on its schema: a schema with an identifier is a
 * shared `$ref` in the OpenAPI document, and annotating it would make a second schema of that name.
 */
const field = <S extends Schema.Schema.All>(schema: S, description: string) =>
  Schema.propertySignature(schema).annotations(d(description))
const IsoDate = Schema.String.annotations(d("A calendar date, YYYY-MM-DD"))
const Issued = Schema.String.annotations(
  d("The forecast stamp: when the forecast these values come from was fetched (refetched at most hourly), ISO 8601")
)
const View = <V extends string>(view: V) => Schema.Literal(view).annotations(d("Which view this payload is"))
const Version = Schema.Int.annotations(d("PAYLOAD_VER: the version of this view's payload format"))

export const Label = Schema.Literal("record-low", "much-below", "below", "near-normal", "above", "much-above", "record-high")

export const Grade = Schema.Struct({
  value: Schema.NullOr(Schema.Number).annotations(d("The day's value in `unit`; null when no value is held for the day")),
  unit: Schema.Literal("°C", "mm").annotations(d("°C for tmax and tmin, mm for precip")),
  percentile: Schema.NullOr(Schema.Number).annotations(
    d(
      "Where the value ranks among the n sample values: 100 × (count below + 0.5 × count equal) / n, one decimal. " +
        "Null when n < 30 (too few years of record to rank against) or when the value is missing."
    )
  ),
  label: Schema.NullOr(Label).annotations(
    d(
      "record-high / record-low when the value is above / below every sample value; else by the unrounded percentile p: " +
        "p < 10 much-below, p < 33.3 below, p ≤ 66.7 near-normal, p ≤ 90 above, else much-above. Null when the percentile is."
    )
  ),
  n: Schema.Int.annotations(
    d(
      "The sample size: the values the record holds for this month and day, and the two days either side, in every year " +
        "of the record other than the day's own (5 days a year)"
    )
  )
}).annotations({ identifier: "Grade" })
export type Grade = typeof Grade.Type

export const Extreme = Schema.Struct({
  value: Schema.NullOr(Schema.Number).annotations(d("The value; null when the sample is empty")),
  date: Schema.NullOr(IsoDate).annotations(d("The date it occurred; null when the sample is empty"))
})

const Band = (what: string) =>
  Schema.NullOr(Schema.Number).annotations(
    d(`${what} of the sample (median-unbiased quantile, Hyndman–Fan type 8); null when the sample is empty`)
  )

export const Climatology = Schema.Struct({
  n: Schema.Int.annotations(d("The sample size, as in the grade")),
  p10: Band("The 10th percentile"),
  p25: Band("The 25th percentile"),
  p50: Band("The median"),
  p75: Band("The 75th percentile"),
  p90: Band("The 90th percentile"),
  mean: Schema.NullOr(Schema.Number).annotations(d("The sample's mean; null when the sample is empty")),
  min: field(Extreme, "The lowest sample value and the date it occurred"),
  max: field(Extreme, "The highest sample value and the date it occurred")
}).annotations({ identifier: "Climatology" })
export type Climatology = typeof Climatology.Type

export const CellInfo = Schema.Struct({
  lat: Schema.Number.annotations(d("The cell centre's latitude, on the 0.25° grid")),
  lon: Schema.Number.annotations(d("The cell centre's longitude, on the 0.25° grid")),
  label: Schema.NullOr(Schema.String).annotations(
    d(
      "The place's name from the geocoder (city, town, … then the country code), or the coordinates where it knows " +
        "none; null while the cell is not labeled yet"
    )
  ),
  timezone: Schema.String.annotations(d("The cell's time zone (IANA); today is the cell's local date"))
}).annotations({ identifier: "Cell" })
export type CellInfo = typeof CellInfo.Type

const Variables = <A, I>(item: Schema.Schema<A, I>, description: string) =>
  Schema.Struct({
    tmax: field(item, `Daily maximum temperature: ${description}`),
    tmin: field(item, `Daily minimum temperature: ${description}`),
    precip: field(item, `Daily precipitation: ${description}`)
  })

export const GradePayload = Schema.Struct({
  view: View("grade"),
  v: Version,
  cell: field(CellInfo, "The 0.25° cell the coordinates snap to"),
  date: IsoDate.annotations(d("Today, the cell's local date")),
  issued: Issued,
  variables: Variables(Grade, "today's value from the recent forecast, graded")
}).annotations({ identifier: "GradePayload" })
export type GradePayload = typeof GradePayload.Type

export const ForecastDay = Schema.Struct({
  date: IsoDate,
  tmax: field(Grade, "Daily maximum temperature, graded"),
  tmin: field(Grade, "Daily minimum temperature, graded"),
  precip: field(Grade, "Daily precipitation, graded")
})

export const ForecastPayload = Schema.Struct({
  view: View("forecast"),
  v: Version,
  cell: field(CellInfo, "The 0.25° cell the coordinates snap to"),
  issued: Issued,
  days: Schema.Array(ForecastDay).annotations(d("Every day from today to the last forecast day"))
}).annotations({ identifier: "ForecastPayload" })
export type ForecastPayload = typeof ForecastPayload.Type

export const CalendarSeries = Schema.Struct({
  values: Schema.Array(Schema.NullOr(Schema.Number)).annotations(
    d("One per date: the record's value, null where it holds none")
  ),
  percentiles: Schema.Array(Schema.NullOr(Schema.Number)).annotations(
    d("One per date: the value's percentile, as in a grade (one decimal); null where the sample has fewer than 30 values or the value is missing")
  )
})

export const CalendarPayload = Schema.Struct({
  view: View("calendar"),
  v: Version,
  cell: field(CellInfo, "The 0.25° cell the coordinates snap to"),
  start: IsoDate.annotations(d("The first date, resolved: clamped into the record, at most 24 months before end")),
  end: IsoDate.annotations(d("The last date, resolved: clamped into the record")),
  dates: Schema.Array(IsoDate).annotations(d("Every date from start to end")),
  series: Variables(CalendarSeries, "values and percentiles, one per date")
}).annotations({ identifier: "CalendarPayload" })
export type CalendarPayload = typeof CalendarPayload.Type

export const DayGrade = Schema.Struct({
  ...Grade.fields,
  climatology: field(Climatology, "The sample the value is ranked against, summarised")
})

export const DayPayload = Schema.Struct({
  view: View("day"),
  v: Version,
  cell: field(CellInfo, "The 0.25° cell the coordinates snap to"),
  date: IsoDate.annotations(d("The day asked for (default today)")),
  source: Schema.Literal("history", "forecast", "none").annotations(
    d("Where the day's values came from: history when the record holds the date, else forecast when the forecast does, else none (climatology alone)")
  ),
  variables: Variables(DayGrade, "the day's value graded, with its climatology")
}).annotations({ identifier: "DayPayload" })
export type DayPayload = typeof DayPayload.Type

const Slice = <A, I>(data: Schema.Schema<A, I>, view: string, whenNull: string) =>
  Schema.NullOr(
    Schema.Struct({
      etag: Schema.String.annotations(
        d(`The ETag /${view} sends for the same resolved parameters: If-None-Match with it there answers 304`)
      ),
      data: field(data, `The /${view} payload`)
    })
  ).annotations(d(`The ${view} view; ${whenNull}`))

export const BundlePayload = Schema.Struct({
  v: Version,
  cell: field(CellInfo, "The 0.25° cell the coordinates snap to"),
  grade: Slice(GradePayload, "grade", "null with prefetch=1 (or when not built)"),
  forecast: Slice(ForecastPayload, "forecast", "null with prefetch=1 (or when not built)"),
  calendar: Slice(CalendarPayload, "calendar", "months=24; null when not built"),
  day: Slice(DayPayload, "day", "today, or the record's last day with prefetch=1; null when not built")
}).annotations({ identifier: "BundlePayload" })
export type BundlePayload = typeof BundlePayload.Type
