/**
 * The data payloads (docs/api.md "Weather data"), as schemas: the handlers encode with them and the OpenAPI
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

const NormalBand = (what: string) =>
  Schema.NullOr(Schema.Number).annotations(
    d(`${what} of the date's sample (as the day view's climatology); null when the sample has fewer than 30 values`)
  )

export const Normal = Schema.Struct({
  p10: NormalBand("The 10th percentile"),
  p50: NormalBand("The median"),
  p90: NormalBand("The 90th percentile")
}).annotations({ identifier: "Normal" })
export type Normal = typeof Normal.Type

export const ForecastDay = Schema.Struct({
  date: IsoDate,
  tmax: field(Grade, "Daily maximum temperature, graded"),
  tmin: field(Grade, "Daily minimum temperature, graded"),
  precip: field(Grade, "Daily precipitation, graded"),
  normal: field(
    Variables(Normal, "the date's climatology bands"),
    "What is normal for the date: the 10th, 50th and 90th percentiles of each variable's sample"
  )
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

export const TrendYear = Schema.Struct({
  year: Schema.Int.annotations(d("The calendar year")),
  days: Schema.Int.annotations(d("How many of the year's days lie between the record's first and last day")),
  tmax: Schema.NullOr(Schema.Number).annotations(
    d("The mean daily maximum temperature (°C, 0.1) over the year's days with a value; null when fewer than 300 days have one")
  ),
  tmin: Schema.NullOr(Schema.Number).annotations(
    d("The mean daily minimum temperature (°C, 0.1) over the year's days with a value; null when fewer than 300 days have one")
  ),
  precip: Schema.NullOr(Schema.Number).annotations(
    d("The total precipitation (mm, 0.1) over the year's days with a value; null when fewer than 300 days have one")
  )
}).annotations({ identifier: "TrendYear" })
export type TrendYear = typeof TrendYear.Type

export const TrendYearValue = Schema.Struct({
  year: Schema.Int.annotations(d("The year, named by the year of the span's last day")),
  value: Schema.Number.annotations(d("That year's value over the same span, rounded as `value`"))
}).annotations({ identifier: "TrendYearValue" })

export const TrendStanding = Schema.Struct({
  value: Schema.NullOr(Schema.Number).annotations(
    d(
      "The period's statistic, rounded to 0.1: the mean of the daily values for temperatures (°C), the sum for precipitation (mm). " +
        "Null when the period misses a day of the variable (and then so are rank, highest and lowest)."
    )
  ),
  rank: Schema.NullOr(Schema.Int).annotations(
    d("1 + the number of compared years with a strictly higher rounded value: 1 is the highest, `of` the lowest when nothing ties")
  ),
  of: Schema.Int.annotations(
    d(
      "How many years are compared: every earlier year whose same span (shifted back by whole years; a 29 February end " +
        "becomes 28 February) lies in the record with a value on every day, plus this one"
    )
  ),
  highest: Schema.NullOr(TrendYearValue).annotations(
    d("The year with the highest value among those compared, this one included; the earliest year on a tie")
  ),
  lowest: Schema.NullOr(TrendYearValue).annotations(
    d("The year with the lowest value among those compared, this one included; the earliest year on a tie")
  )
}).annotations({ identifier: "TrendStanding" })
export type TrendStanding = typeof TrendStanding.Type

export const TrendPeriod = Schema.Struct({
  from: IsoDate.annotations(d("The period's first day")),
  to: IsoDate.annotations(d("The period's last day: the record's last day")),
  variables: field(
    Variables(TrendStanding, "the period's value and how it ranks against the same span of earlier years"),
    "Each variable's standing over the period"
  )
}).annotations({ identifier: "TrendPeriod" })
export type TrendPeriod = typeof TrendPeriod.Type

export const TrendPayload = Schema.Struct({
  view: View("trend"),
  v: Version,
  cell: field(CellInfo, "The 0.25° cell the coordinates snap to"),
  first: IsoDate.annotations(d("The record's first day")),
  last: IsoDate.annotations(d("The record's last day: the last day with a value")),
  baseline: Schema.NullOr(
    Schema.Struct({
      from: Schema.Int.annotations(d("The baseline's first year")),
      to: Schema.Int.annotations(d("The baseline's last year"))
    })
  ).annotations(
    d("The years anomalies are measured against: 1961–1990 when the record holds all of it, else its first 30 whole years; null when it holds fewer")
  ),
  years: Schema.Array(TrendYear).annotations(d("Every calendar year of the record, in order (the first and last may be partial: see days)")),
  periods: field(
    Schema.Struct({
      month: field(TrendPeriod, "This month so far: from the first of the last day's month to the last day"),
      season: field(
        TrendPeriod,
        "This meteorological season so far (DJF, MAM, JJA, SON; December opens the next year's DJF), to the last day"
      ),
      year: field(TrendPeriod, "This year so far: from 1 January to the last day")
    }),
    "The three periods that end on the record's last day, each ranked against the same span of every earlier year"
  )
}).annotations({ identifier: "TrendPayload" })
export type TrendPayload = typeof TrendPayload.Type

const SpellKind = Schema.Literal("heat", "cold", "dry", "wet")
const optional = <S extends Schema.Schema.Any>(schema: S, description: string) =>
  Schema.optionalWith(schema, { exact: true }).annotations(d(description))

export const Spell = Schema.Struct({
  kind: SpellKind.annotations(d("heat wave, cold spell, dry spell or wet spell")),
  start: IsoDate.annotations(d("The spell's first day")),
  end: IsoDate.annotations(d("The spell's last day")),
  days: Schema.Int.annotations(d("How many days it lasts")),
  peak: optional(
    Schema.Number,
    "Heat waves and cold spells: the largest Excess Heat Factor (cold: Excess Cold Factor) of the 3-day windows that make it, °C², 0.1"
  ),
  total: optional(Schema.Number, "Wet spells: the precipitation over its days, mm, 0.1"),
  severity: optional(
    Schema.Literal("low", "severe", "extreme"),
    "Heat waves and cold spells: extreme when the peak is at least 3 × ehf85 (cf85), severe when at least ehf85 (cf85), else low"
  ),
  rank_days: Schema.Int.annotations(d("1 + the number of spells of its kind here that lasted strictly longer")),
  rank_peak: optional(Schema.Int, "Heat waves and cold spells: 1 + the number of its kind with a strictly larger peak (unrounded)"),
  rank_total: optional(Schema.Int, "Wet spells: 1 + the number of wet spells with a strictly larger total (unrounded)"),
  of: Schema.Int.annotations(d("How many spells of its kind the series holds")),
  forecast: Schema.Boolean.annotations(d("True when a day of it lies after the record's last day: it may still change"))
}).annotations({ identifier: "Spell" })
export type Spell = typeof Spell.Type

const Spells = (description: string) => Schema.Array(Spell).annotations(d(description))

export const SpellsPayload = Schema.Struct({
  view: View("spells"),
  v: Version,
  cell: field(CellInfo, "The 0.25° cell the coordinates snap to"),
  first: IsoDate.annotations(d("The record's first day")),
  last: IsoDate.annotations(d("The record's last day: days after it come from the forecast")),
  until: IsoDate.annotations(d("The last forecast day: where the series ends")),
  baseline: Schema.NullOr(
    Schema.Struct({
      from: Schema.Int.annotations(d("The baseline's first year")),
      to: Schema.Int.annotations(d("The baseline's last year"))
    })
  ).annotations(d("As the trend view's: 1961–1990, else the record's first 30 whole years; null when it holds fewer (then no heat waves or cold spells)")),
  thresholds: Schema.NullOr(
    Schema.Struct({
      t95: Schema.Number.annotations(d("The 95th percentile (linear) of the baseline's daily mean temperature (tmax + tmin) / 2, °C, 0.01")),
      t05: Schema.Number.annotations(d("The 5th percentile, likewise")),
      ehf85: Schema.NullOr(Schema.Number).annotations(d("The 85th percentile of the baseline days' positive EHF, °C², 0.01; null when none is positive")),
      cf85: Schema.NullOr(Schema.Number).annotations(d("The 85th percentile of the baseline days' positive cold factors, likewise"))
    })
  ).annotations(d("The baseline's thresholds; null without a baseline")),
  now: Spells("The spells that include today or start after it, in order of start"),
  top: field(
    Schema.Struct({
      heat: Spells("The 10 heat waves with the highest peaks (the earlier first on a tie)"),
      cold: Spells("The 10 cold spells with the highest peaks"),
      dry: Spells("The 10 longest dry spells (at least 5 days under 1 mm)"),
      wet: Spells("The 10 wet spells (at least 3 days of 1 mm or more) with the largest totals")
    }),
    "Each kind's best ranked"
  ),
  years: Schema.Array(
    Schema.Struct({
      year: Schema.Int.annotations(d("The calendar year")),
      heat_days: Schema.Int.annotations(d("Days of the year inside heat waves")),
      cold_days: Schema.Int.annotations(d("Days of the year inside cold spells")),
      dry_longest: Schema.Int.annotations(d("The longest dry spell that ends in the year; 0 when none does")),
      wet_days: Schema.Int.annotations(d("Days of the year inside wet spells"))
    })
  ).annotations(d("Every calendar year of the series, in order")),
  recent: Spells("Every spell that ends 730 days before today or later, in order of start")
}).annotations({ identifier: "SpellsPayload" })
export type SpellsPayload = typeof SpellsPayload.Type
