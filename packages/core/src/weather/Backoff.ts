/**
 * Until when each Open-Meteo endpoint has asked to be left alone (a 429 or 503 with
 * Retry-After). Its limits are per client, not per cell: meanwhile every call fails at once with
 * what is left of the wait, and spends nothing.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { RateLimited, type UpstreamError } from "./Errors.js"

export type Endpoint = "archive" | "forecast"

/** Runs `call` unless `endpoint` is backing off; a `RateLimited` answer starts (or extends) the wait. */
export type Guard = <A>(endpoint: Endpoint, call: Effect.Effect<A, UpstreamError>) => Effect.Effect<A, UpstreamError>

export const make = (): Guard => {
  const until: Record<Endpoint, number> = { archive: 0, forecast: 0 }
  return (endpoint, call) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      now < until[endpoint]
        ? Effect.fail(new RateLimited({ source: endpoint, retryAfterSeconds: Math.ceil((until[endpoint] - now) / 1000) }))
        : Effect.tapError(call, (error) =>
            error._tag === "RateLimited"
              ? Effect.map(Clock.currentTimeMillis, (at) => {
                  until[endpoint] = Math.max(until[endpoint], at + error.retryAfterSeconds * 1000)
                })
              : Effect.void
          )
    )
}
