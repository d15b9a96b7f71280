/** What every upstream call shares: a timeout, and failures mapped to the core's errors (CONTRACT.md §3). */
import type { HttpClientError, HttpClientResponse } from "@effect/platform"
import { RateLimited, UpstreamFailure, UpstreamTimeout } from "@climate-grade/core"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/** When an upstream does not say how long to wait. */
export const DEFAULT_RETRY_AFTER_SECONDS = 60

/** `Retry-After` as seconds, from delta-seconds or an HTTP date. */
export const retryAfterSeconds = (header: string | undefined, now: number): number => {
  if (header === undefined) return DEFAULT_RETRY_AFTER_SECONDS
  const trimmed = header.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed)
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? DEFAULT_RETRY_AFTER_SECONDS : Math.max(0, Math.ceil((date - now) / 1000))
}

/** A short reason from an error body: Open-Meteo's `{"reason"}`, Nominatim's `{"error"}`, or nothing. */
const reasonOf = (body: unknown): string | undefined => {
  if (typeof body !== "object" || body === null) return undefined
  const { error, reason } = body as { reason?: unknown; error?: unknown }
  return typeof reason === "string" ? reason : typeof error === "string" ? error : undefined
}

/**
 * Sends one request and returns its JSON body, or the core's error: 429/503 → RateLimited,
 * no answer within `timeout` → UpstreamTimeout, anything else → UpstreamFailure.
 */
export const json = (
  source: string,
  timeout: Duration.DurationInput,
  send: Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>
) =>
  send.pipe(
    Effect.flatMap((response) =>
      Effect.gen(function* () {
        if (response.status === 429 || response.status === 503) {
          const now = yield* Clock.currentTimeMillis
          return yield* new RateLimited({ source, retryAfterSeconds: retryAfterSeconds(response.headers["retry-after"], now) })
        }
        if (response.status >= 300) {
          const reason = reasonOf(yield* Effect.orElseSucceed(response.json, () => undefined))
          return yield* new UpstreamFailure({
            source,
            reason: `status ${response.status}${reason === undefined ? "" : `: ${reason.slice(0, 200)}`}`
          })
        }
        return yield* Effect.mapError(response.json, () => new UpstreamFailure({ source, reason: "the body is not JSON" }))
      })
    ),
    Effect.scoped,
    Effect.timeoutFail({ duration: timeout, onTimeout: () => new UpstreamTimeout({ source }) }),
    Effect.catchTags({
      RequestError: () => Effect.fail(new UpstreamFailure({ source, reason: "the request failed" })),
      ResponseError: () => Effect.fail(new UpstreamFailure({ source, reason: "the response could not be read" }))
    })
  )
