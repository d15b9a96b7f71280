/**
 * The Nominatim reverse geocoder (CONTRACT.md §3): `/reverse?format=jsonv2&zoom=10`, our
 * User-Agent on every call, at most one call per second for the whole process (callers queue).
 * Label: the first of city, town, village, municipality, county, state, then ", " and the
 * upper-cased country code; "Unable to geocode" labels the cell with its coordinates.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Cell, Geocoder, UpstreamFailure } from "@climate-grade/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Schema from "effect/Schema"
import { upstreamCalls } from "./Metrics.js"
import * as Upstream from "./Upstream.js"

export interface NominatimConfig {
  readonly url: string
  readonly userAgent: string
  readonly timeout?: Duration.DurationInput
  /** The least time between two calls; Nominatim's usage policy asks for one second. */
  readonly interval?: Duration.DurationInput
}

export const PLACE_FIELDS = ["city", "town", "village", "municipality", "county", "state"] as const

const Answer = Schema.Union(
  Schema.Struct({ error: Schema.String }),
  Schema.Struct({
    address: Schema.Record({ key: Schema.String, value: Schema.Unknown })
  })
)

export const labelOf = (cell: Cell.Cell, address: Readonly<Record<string, unknown>>): string => {
  const place = PLACE_FIELDS.map((f) => address[f]).find((v): v is string => typeof v === "string" && v.trim() !== "")
  const country = typeof address.country_code === "string" ? address.country_code.trim().toUpperCase() : ""
  if (place === undefined) return country === "" ? Cell.coordinateLabel(cell) : `${Cell.coordinateLabel(cell)}, ${country}`
  return country === "" ? place : `${place}, ${country}`
}

export const make = (config: NominatimConfig) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const interval = Duration.toMillis(config.interval ?? Duration.seconds(1))
    const permit = yield* Effect.makeSemaphore(1)
    let last = Number.NEGATIVE_INFINITY

    /** Waits its turn: one call at a time, `interval` apart, whatever the number of callers. */
    const paced = <A, E, R>(call: Effect.Effect<A, E, R>) =>
      permit.withPermits(1)(
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          if (now - last < interval) yield* Effect.sleep(Duration.millis(last + interval - now))
          last = yield* Clock.currentTimeMillis
          return yield* call
        })
      )

    return Geocoder.of({
      label: (cell) =>
        paced(
          Effect.gen(function* () {
            yield* Metric.increment(Metric.tagged(upstreamCalls, "upstream", "geocoder"))
            const body = yield* Upstream.json(
              "geocoder",
              config.timeout ?? Duration.seconds(5),
              client,
              HttpClientRequest.get(config.url, {
                urlParams: { format: "jsonv2", zoom: "10", lat: cell.lat.toFixed(2), lon: cell.lon.toFixed(2) },
                headers: { "user-agent": config.userAgent },
                acceptJson: true
              })
            )
            const answer = yield* Schema.decodeUnknown(Answer)(body).pipe(
              Effect.mapError(() => new UpstreamFailure({ source: "geocoder", reason: "the answer has no address" }))
            )
            if ("error" in answer) {
              return answer.error === "Unable to geocode"
                ? Cell.coordinateLabel(cell)
                : yield* new UpstreamFailure({ source: "geocoder", reason: answer.error.slice(0, 200) })
            }
            return labelOf(cell, answer.address)
          })
        ).pipe(Effect.withSpan("Nominatim.label", { attributes: { cell: cell.key } }))
    })
  })

export const layer = (config: NominatimConfig) => Layer.effect(Geocoder, make(config))
