/**
 * `GET /places?q=` (docs/api.md "Place search"): the query checked (400 with a detail), then the kept answer
 * or one paced Nominatim call in the client's turn (429 with Retry-After when the client has its
 * bound of searches queued already: core `GeocoderQueue`); upstream faults as for weather data
 * (503 with Retry-After, 504, 502). Concurrent requests for one normalised query share one search.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { GeocoderQueue, Places, SingleFlight, type UpstreamError } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import { Api } from "./Api.js"
import {
  type BadGateway,
  BadRequest,
  failWithRetryAfter,
  type GatewayTimeout,
  ServiceUnavailable,
  TooManyRequests
} from "./Errors.js"
import { HttpSettings } from "./HttpSettings.js"
import { clientAddress } from "../protocol/RequestInfo.js"
import * as UpstreamErrors from "./UpstreamErrors.js"

type Query = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/** The one `q` value, normalised; or the 400 that says what is wrong. */
export const queryOf = (query: Query): Effect.Effect<string, BadRequest> => {
  const raw = query.q
  if (raw !== undefined && typeof raw !== "string" && raw.length > 1) {
    return Effect.fail(new BadRequest({ detail: "Query parameter 'q' is given more than once.", code: "invalid-query" }))
  }
  const value = typeof raw === "string" ? raw : raw?.[0]
  if (value === undefined) return Effect.fail(new BadRequest({ detail: "Query parameter 'q' is required.", code: "invalid-query" }))
  const normalized = Places.normalize(value)
  return typeof normalized === "string" ? Effect.succeed(normalized) : Effect.fail(new BadRequest({ detail: normalized.detail, code: "invalid-query" }))
}

export const layer = HttpApiBuilder.group(Api, "places", (handlers) =>
  Effect.gen(function* () {
    const context = yield* Effect.context<Places.PlaceSearch | Places.PlaceCache>()
    const { trustedProxyHops } = yield* HttpSettings
    // A search whose every client has gone is dropped: out of the geocoder's queue, never called.
    // The searches are this layer's fibers: shutdown interrupts those under way.
    const flight = SingleFlight.makeWhileWanted<ReadonlyArray<Places.Place>, UpstreamError | GeocoderQueue.SearchesQueued>(
      yield* FiberSet.make()
    )
    return handlers.handle("places", ({ urlParams }) =>
      Effect.gen(function* () {
        const query = yield* queryOf(urlParams)
        const address = clientAddress(yield* HttpServerRequest.HttpServerRequest, trustedProxyHops)
        return yield* flight(query, Effect.provide(Places.searchNormalized(query, address), context)).pipe(
          Effect.map((places) => HttpServerResponse.unsafeJson({ places })),
          Effect.catchAll((error): Effect.Effect<never, TooManyRequests | ServiceUnavailable | BadGateway | GatewayTimeout> =>
            error._tag === "SearchesQueued" && error.everyone === true
              ? failWithRetryAfter(
                  error.retryAfterSeconds,
                  (retry_at) => new ServiceUnavailable({ detail: GeocoderQueue.detail(error), code: "busy", retry_at })
                )
              : error._tag === "SearchesQueued"
              ? failWithRetryAfter(
                  error.retryAfterSeconds,
                  (retry_at) => new TooManyRequests({ detail: GeocoderQueue.detail(error), code: "too-many-requests", retry_at })
                )
              : // Place search is not counted against the weather budget; its refusals are mapped for completeness.
                UpstreamErrors.fail(error)
          )
        )
      })
    )
  })
)
