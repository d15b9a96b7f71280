/**
 * The Nominatim reverse geocoder (a cell's label): `/reverse?format=jsonv2&zoom=10`, our
 * User-Agent on every call, at most one call per second for the whole process (callers queue).
 * Label: the first of city, town, village, municipality, county, state, then ", " and the
 * upper-cased country code; "Unable to geocode" labels the cell with its coordinates.
 * Place search: `/search?format=jsonv2&addressdetails=1&limit=5&q=`, each result labelled by the
 * same rule (the core's PlaceName.label: "Paris, FR" however it was found), through the same pacer, so the
 * process as a whole still makes at most one Nominatim call per second; the pacer gives labels the
 * first turn and searches their turns by client.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Cell, Geocoder, PlaceName, Places, UpstreamFailure } from "@climate-grade/core"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { upstreamCalls } from "./Metrics.js"
import * as NominatimPacer from "./NominatimPacer.js"
import * as Upstream from "./Upstream.js"

export interface NominatimConfig {
  /** The reverse endpoint (`GEOCODER_URL`). */
  readonly url: string
  /** The search endpoint (`GEOCODER_SEARCH_URL`); default Nominatim's public one. */
  readonly searchUrl?: string
  readonly userAgent: string
  readonly timeout?: Duration.DurationInput
  /** The least time between two calls, when no `NominatimPacer` is provided; Nominatim's usage policy asks for one second. */
  readonly interval?: Duration.DurationInput
}

export const PLACE_FIELDS = PlaceName.PLACE_FIELDS

const Answer = Schema.Union(
  Schema.Struct({ error: Schema.String }),
  Schema.Struct({
    address: Schema.Record({ key: Schema.String, value: Schema.Unknown })
  })
)

/** A `/search` result in jsonv2: coordinates arrive as decimal strings. */
const SearchResult = Schema.Struct({
  lat: Schema.Union(Schema.String, Schema.Number),
  lon: Schema.Union(Schema.String, Schema.Number),
  display_name: Schema.String,
  name: Schema.optional(Schema.String),
  address: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
const SearchAnswer = Schema.Array(Schema.Unknown)

/** Results with a name and coordinates in range; others (rare, but the schema is not ours) are skipped. */
export const placesOf = (results: ReadonlyArray<unknown>): ReadonlyArray<Places.Place> =>
  results.flatMap((raw) => {
    const decoded = Schema.decodeUnknownOption(SearchResult)(raw)
    if (decoded._tag === "None") return []
    const { lat, lon } = decoded.value
    const la = Number(lat)
    const lo = Number(lon)
    const label = PlaceName.ofSearchResult(decoded.value)
    if (label === "" || !Number.isFinite(la) || !Number.isFinite(lo) || Math.abs(la) > 90 || Math.abs(lo) > 180) return []
    return [{ label, lat: la, lon: lo }]
  })

export const labelOf = (cell: Cell.Cell, address: Readonly<Record<string, unknown>>): string =>
  PlaceName.ofAddress(address, Cell.coordinateLabel(cell))

export const DEFAULT_SEARCH_URL = "https://nominatim.openstreetmap.org/search"

/** Both ports over one client and one pacer. */
export const makePorts = (config: NominatimConfig) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    // The process's pacer when the application provides one, else one of this client's own; the
    // reverse geocoder and place search below share it either way.
    const pacer = yield* Effect.serviceOption(NominatimPacer.NominatimPacer).pipe(
      Effect.flatMap(Option.match({ onNone: () => NominatimPacer.make(config.interval), onSome: Effect.succeed }))
    )

    const timeout = config.timeout ?? Duration.seconds(5)
    const get = (url: string, urlParams: Record<string, string>) =>
      Effect.zipRight(
        Metric.increment(Metric.tagged(upstreamCalls, "upstream", "geocoder")),
        Upstream.json(
          "geocoder",
          timeout,
          client,
          HttpClientRequest.get(url, { urlParams, headers: { "user-agent": config.userAgent }, acceptJson: true })
        )
      )

    const placeSearch = Places.PlaceSearch.of({
      search: (query, limit, client) =>
        pacer.search(
          client,
          Effect.gen(function* () {
            const body = yield* get(config.searchUrl ?? DEFAULT_SEARCH_URL, { format: "jsonv2", addressdetails: "1", limit: String(limit), q: query })
            const results = yield* Schema.decodeUnknown(SearchAnswer)(body).pipe(
              Effect.mapError(() => new UpstreamFailure({ source: "geocoder", reason: "the search answer is not a list" }))
            )
            return placesOf(results).slice(0, limit)
          })
        ).pipe(Effect.withSpan("Nominatim.search"))
    })

    const geocoder = Geocoder.of({
      label: (cell) =>
        pacer.label(
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
            return yield* Upstream.unusable(
              "geocoder",
              config.url,
              Effect.gen(function* () {
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
            )
          })
        ).pipe(Effect.withSpan("Nominatim.label", { attributes: { cell: cell.key } }))
    })
    return { geocoder, placeSearch }
  })

/** The reverse geocoder alone. */
export const make = (config: NominatimConfig) => Effect.map(makePorts(config), (ports) => ports.geocoder)

/** The reverse geocoder and place search, sharing one pacer. */
export const layer = (config: NominatimConfig) =>
  Layer.effectContext(
    Effect.map(makePorts(config), ({ geocoder, placeSearch }) =>
      Context.make(Geocoder, geocoder).pipe(Context.add(Places.PlaceSearch, placeSearch))
    )
  )
