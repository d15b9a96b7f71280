/**
 * `GET /places?q=` (CONTRACT.md §8): the query checked (400 with a detail), then the kept answer
 * or one paced Nominatim call; upstream faults as CONTRACT.md §3 (503 with Retry-After, 504, 502).
 * Concurrent requests for one normalised query share one search.
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Places, SingleFlight, type UpstreamError } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import { Api } from "./Api.js"
import { BadRequest } from "./Errors.js"
import * as UpstreamErrors from "./UpstreamErrors.js"

type Query = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/** The one `q` value, normalised; or the 400 that says what is wrong. */
export const queryOf = (query: Query): Effect.Effect<string, BadRequest> => {
  const raw = query.q
  if (raw !== undefined && typeof raw !== "string" && raw.length > 1) {
    return Effect.fail(new BadRequest({ detail: "Query parameter 'q' is given more than once." }))
  }
  const value = typeof raw === "string" ? raw : raw?.[0]
  if (value === undefined) return Effect.fail(new BadRequest({ detail: "Query parameter 'q' is required." }))
  const normalized = Places.normalize(value)
  return typeof normalized === "string" ? Effect.succeed(normalized) : Effect.fail(new BadRequest({ detail: normalized.detail }))
}

export const layer = HttpApiBuilder.group(Api, "places", (handlers) =>
  Effect.gen(function* () {
    const context = yield* Effect.context<Places.PlaceSearch | Places.PlaceCache>()
    const flight = SingleFlight.make<ReadonlyArray<Places.Place>, UpstreamError>()
    return handlers.handle("places", ({ urlParams }) =>
      Effect.gen(function* () {
        const query = yield* queryOf(urlParams)
        return yield* flight(query, Effect.provide(Places.searchNormalized(query), context)).pipe(
          Effect.map((places) => HttpServerResponse.unsafeJson({ places })),
          // Place search is not counted against the weather budget; BudgetSpent is mapped for completeness.
          Effect.catchAll(UpstreamErrors.fail)
        )
      })
    )
  })
)
