/**
 * Place search (docs/api.md "Place search"): a name in, at most five places out, each answer kept for 30
 * days so that a repeated query costs no geocoder call. Queries are compared normalised: trimmed,
 * inner runs of blanks as one space, Unicode NFC, lower case ("  New  York" and "new york" are
 * one query).
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { LIMIT } from "../Cell.js"
import * as ClientNetwork from "../ClientNetwork.js"
import type { UpstreamError } from "../weather/Errors.js"
import type { SearchesQueued } from "./GeocoderQueue.js"

export const Place = Schema.Struct({
  label: Schema.String.annotations({ description: "The place's name as the geocoder gives it (display_name)" }),
  lat: Schema.Number.pipe(Schema.between(-LIMIT.lat, LIMIT.lat)).annotations({ description: "Latitude, -90..90" }),
  lon: Schema.Number.pipe(Schema.between(-LIMIT.lon, LIMIT.lon)).annotations({ description: "Longitude, -180..180" })
}).annotations({ identifier: "Place" })
export type Place = typeof Place.Type

export const Places = Schema.Array(Place)

/** What the endpoint answers. */
export const PlacesPayload = Schema.Struct({
  places: Schema.propertySignature(Places).annotations({ description: "At most 5, in the geocoder's order; empty when none matched" })
}).annotations({ identifier: "Places" })

export const MAX_RESULTS = 5
export const MAX_QUERY_LENGTH = 200
/** How long an answer is reused. Place names and their coordinates barely move. */
export const KEEP_MS = 30 * 24 * 60 * 60 * 1000

/** The query is empty, or too long; `detail` says which. */
export class InvalidQuery extends Schema.TaggedError<InvalidQuery>()("InvalidQuery", { detail: Schema.String }) {}

/** The query as compared and sent: trimmed, blanks collapsed, NFC, lower case; or why it is refused. */
export const normalize = (q: string): string | InvalidQuery => {
  const normalized = q.normalize("NFC").replace(/\s+/gu, " ").trim().toLowerCase()
  if (normalized === "") return new InvalidQuery({ detail: "Query parameter 'q' must not be empty." })
  // Counted in characters (code points), as a person would count them.
  const length = [...normalized].length
  if (length > MAX_QUERY_LENGTH) {
    return new InvalidQuery({
      detail: `Query parameter 'q' must be at most ${MAX_QUERY_LENGTH} characters, got ${length}.`
    })
  }
  return normalized
}

/** The port to the forward geocoder (Nominatim `/search` in production). */
export class PlaceSearch extends Context.Tag("@climate-grade/core/PlaceSearch")<
  PlaceSearch,
  {
    /**
     * At most `limit` places for `query`, asked for `client` (a client network): its searches take
     * their turns at the geocoder by `GeocoderQueue`'s rule, and one past its bound is refused.
     */
    readonly search: (query: string, limit: number, client: string) => Effect.Effect<ReadonlyArray<Place>, UpstreamError | SearchesQueued>
  }
>() {}

export interface CachedSearch {
  readonly places: ReadonlyArray<Place>
  /** Epoch ms of the call that answered. */
  readonly fetchedAt: number
}

/** The port to where answers are kept (a table in production). */
export class PlaceCache extends Context.Tag("@climate-grade/core/PlaceCache")<
  PlaceCache,
  {
    readonly get: (query: string) => Effect.Effect<Option.Option<CachedSearch>>
    /** Keeps an answer; may drop answers older than `expiredBefore` (epoch ms). */
    readonly put: (query: string, search: CachedSearch, expiredBefore: number) => Effect.Effect<void>
  }
>() {}

/**
 * The places for a normalised query asked from `address`: the kept answer while under 30 days old,
 * else one geocoder call, in the turn of the address's network, whose answer is kept. A failed
 * call keeps nothing, so the next request asks again.
 */
export const searchNormalized = (
  query: string,
  address: string
): Effect.Effect<ReadonlyArray<Place>, UpstreamError | SearchesQueued, PlaceSearch | PlaceCache> =>
  Effect.gen(function* () {
    const cache = yield* PlaceCache
    const now = yield* Clock.currentTimeMillis
    const kept = yield* cache.get(query)
    if (Option.isSome(kept) && now - kept.value.fetchedAt < KEEP_MS && now >= kept.value.fetchedAt) {
      return kept.value.places
    }
    const places = (yield* (yield* PlaceSearch).search(query, MAX_RESULTS, ClientNetwork.of(address))).slice(0, MAX_RESULTS)
    yield* cache.put(query, { places, fetchedAt: now }, now - KEEP_MS)
    return places
  }).pipe(Effect.withSpan("Places.search"))

/** `searchNormalized` after `normalize`. */
export const search = (
  q: string,
  address: string
): Effect.Effect<ReadonlyArray<Place>, InvalidQuery | UpstreamError | SearchesQueued, PlaceSearch | PlaceCache> =>
  Effect.suspend((): Effect.Effect<ReadonlyArray<Place>, InvalidQuery | UpstreamError | SearchesQueued, PlaceSearch | PlaceCache> => {
    const normalized = normalize(q)
    return typeof normalized === "string" ? searchNormalized(normalized, address) : Effect.fail(normalized)
  })
