/**
 * The Open-Meteo client: the ERA5 archive for history, the forecast API for the
 * recent past and the coming days, three daily variables, `timezone=auto`, `apikey` when set.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { type Cell, CivilDate, type DailySeries, UpstreamFailure, WeatherSource } from "@climate-grade/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as DailyJson from "./DailyJson.js"
import { costUnits, upstreamCalls } from "./Metrics.js"
import * as Upstream from "./Upstream.js"

export const DAILY = ["temperature_2m_max", "temperature_2m_min", "precipitation_sum"] as const
export const PAST_DAYS = 7
export const FORECAST_DAYS = 16
/** The last day a forecast holds, in days after the cell's today: today and the 15 after it. */
export const FORECAST_REACH = FORECAST_DAYS - 1

/** The daily budget without an API key: Open-Meteo's free tier, in its cost units. */
export const FREE_TIER_DAILY_UNITS = 10_000

/** Open-Meteo's price of one call: max(1, variables / 10 × days / 14) cost units. */
export const costOf = (variables: number, days: number): number => Math.max(1, (variables / 10) * (days / 14))
/** An archive call for `[start, end]` (every call asks for the `DAILY` variables). */
export const archiveCost = (start: CivilDate.EpochDay, end: CivilDate.EpochDay): number => costOf(DAILY.length, end - start + 1)
/** A forecast call: the `PAST_DAYS` and the `FORECAST_DAYS`. */
export const FORECAST_COST = costOf(DAILY.length, PAST_DAYS + FORECAST_DAYS)

export interface OpenMeteoConfig {
  readonly archiveUrl: string
  readonly forecastUrl: string
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  readonly archiveTimeout?: Duration.DurationInput
  readonly forecastTimeout?: Duration.DurationInput
}

/**
 * A daily series: numbers or nulls. Declared with one tight loop rather than composed from
 * Schema.Array(Schema.NullOr(Schema.Number)), which costs ~50 ms over 85 years of three series.
 */
const Values = Schema.declare(
  (u): u is ReadonlyArray<number | null> =>
    Array.isArray(u) && u.every((v) => v === null || (typeof v === "number" && Number.isFinite(v))),
  { identifier: "DailyValues", description: "numbers or nulls" }
)
const Days = Schema.declare(
  (u): u is ReadonlyArray<string> => Array.isArray(u) && u.every((v) => typeof v === "string"),
  { identifier: "DailyTimes" }
)

/** The part of Open-Meteo's answer used here; other fields are allowed and ignored. */
export const DailyResponse = Schema.Struct({
  timezone: Schema.String,
  daily: Schema.Struct({
    time: Days,
    temperature_2m_max: Values,
    temperature_2m_min: Values,
    precipitation_sum: Values
  })
})

/** An answer as read: by `DailyJson` from the bytes, or by `JSON.parse` and the schema. */
type Columns = DailyJson.DailyColumns<(typeof DAILY)[number]>

/** The general path's answer in the columns `DailyJson` reads directly. */
const columnsOf = (body: typeof DailyResponse.Type): Columns => {
  const { time } = body.daily
  // A plain loop: Float64Array.from with a mapping function costs several times more over 85 years.
  const column = (values: ReadonlyArray<number | null>) => {
    const out = new Float64Array(values.length)
    for (let i = 0; i < values.length; i++) {
      const v = values[i]
      out[i] = v === null || v === undefined ? Number.NaN : v
    }
    return out
  }
  return {
    timezone: body.timezone,
    time: { count: time.length, first: time[0], last: time[time.length - 1] },
    values: {
      temperature_2m_max: column(body.daily.temperature_2m_max),
      temperature_2m_min: column(body.daily.temperature_2m_min),
      precipitation_sum: column(body.daily.precipitation_sum)
    }
  }
}

const toSeries = (source: string, body: Columns): Effect.Effect<DailySeries.DailySeries, UpstreamFailure> => {
  const { count: n, first: firstDay, last: lastDay } = body.time
  const { temperature_2m_max: tmax, temperature_2m_min: tmin, precipitation_sum: precip } = body.values
  const bad = (reason: string) => Effect.fail(new UpstreamFailure({ source, reason }))
  // The cell's dates are read in this zone from now on: one Intl does not know is a bad answer.
  if (!CivilDate.isTimeZone(body.timezone)) return bad(`unknown time zone: ${body.timezone}`)
  if (tmax.length !== n || tmin.length !== n || precip.length !== n) {
    return bad("the daily series differ in length")
  }
  const first = n === 0 ? Option.some(0) : Option.fromNullable(CivilDate.parse(firstDay!))
  if (Option.isNone(first)) return bad(`not a date: ${firstDay}`)
  // Consecutive days: the last is the first plus the count (checking the ends keeps this O(1)).
  if (n > 0 && CivilDate.parse(lastDay!) !== first.value + n - 1) {
    return bad("the days are not consecutive")
  }
  return Effect.succeed({ start: first.value, tmax, tmin, precip })
}

/**
 * The body read for `toSeries`: straight from its bytes when it is the plain daily shape (the
 * common case, and most of a cold cell's own time otherwise), else by `JSON.parse`, the schema
 * then saying what is wrong with it.
 */
const readBody = (bytes: Uint8Array): { readonly columns: Columns } | { readonly json: unknown } | undefined => {
  const columns = DailyJson.decode(bytes, DAILY)
  if (columns !== undefined) return { columns }
  try {
    return { json: JSON.parse(utf8.decode(bytes)) }
  } catch {
    return undefined
  }
}
const utf8 = new TextDecoder()

export const make = (config: OpenMeteoConfig) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const common = (cell: Cell.Cell) => ({
      latitude: cell.lat.toFixed(2),
      longitude: cell.lon.toFixed(2),
      daily: DAILY.join(","),
      timezone: "auto",
      ...Option.match(config.apiKey, { onNone: () => ({}), onSome: (key) => ({ apikey: Redacted.value(key) }) })
    })
    const fetch = (
      endpoint: "archive" | "forecast",
      url: string,
      params: Record<string, string>,
      days: number,
      timeout: Duration.DurationInput
    ) =>
      Effect.gen(function* () {
        yield* Metric.increment(Metric.tagged(upstreamCalls, "upstream", endpoint))
        const body = yield* Upstream.read(
          endpoint,
          timeout,
          client,
          HttpClientRequest.get(url, { urlParams: params, acceptJson: true }),
          readBody
        )
        // Counted once Open-Meteo has answered: a call that never reached it (DNS, refused,
        // timeout) or that it refused (429, 4xx, 5xx) spent nothing of the quota.
        const cost = costOf(DAILY.length, days)
        yield* Metric.incrementBy(Metric.tagged(costUnits, "endpoint", endpoint), cost)
        const total = (yield* Metric.value(Metric.tagged(costUnits, "endpoint", endpoint))).count
        yield* Effect.logInfo(`open-meteo ${endpoint}: ${days} days, ${cost.toFixed(2)} cost units (${total.toFixed(2)} since start)`)
        return yield* Upstream.unusable(
          endpoint,
          url,
          Effect.gen(function* () {
            const columns =
              "columns" in body
                ? body.columns
                : columnsOf(
                    yield* Schema.decodeUnknown(DailyResponse)(body.json).pipe(
                      Effect.mapError(() => new UpstreamFailure({ source: endpoint, reason: "the answer is not Open-Meteo's daily shape" }))
                    )
                  )
            return { timezone: columns.timezone, series: yield* toSeries(endpoint, columns) }
          })
        )
      }).pipe(Effect.withSpan(`OpenMeteo.${endpoint}`))

    return WeatherSource.of({
      cost: { archive: archiveCost, forecast: FORECAST_COST },
      forecastReach: FORECAST_REACH,
      archive: (cell, start, end) =>
        fetch(
          "archive",
          config.archiveUrl,
          { ...common(cell), start_date: CivilDate.format(start), end_date: CivilDate.format(end), models: "era5" },
          end - start + 1,
          config.archiveTimeout ?? Duration.seconds(30)
        ),
      forecast: (cell) =>
        fetch(
          "forecast",
          config.forecastUrl,
          { ...common(cell), past_days: String(PAST_DAYS), forecast_days: String(FORECAST_DAYS) },
          PAST_DAYS + FORECAST_DAYS,
          config.forecastTimeout ?? Duration.seconds(10)
        )
    })
  })

export const layer = (config: OpenMeteoConfig) => Layer.effect(WeatherSource, make(config))
