/**
 * Upstream and history failures as the API's errors (CONTRACT.md §3): rate limited or the day's
 * budget spent → 503 with Retry-After, timeout → 504, any other upstream failure → 502, no
 * history → 404. Each is a typed error with its status, declared on the routes that answer it.
 */
import type { NoHistory, UpstreamError } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import { BadGateway, failWithRetryAfter, GatewayTimeout, NotFound, ServiceUnavailable } from "./Errors.js"

export const RATE_LIMITED_DETAIL = "Weather source is rate-limited; try again later."

const seconds = (retryAfterSeconds: number) => Math.max(1, Math.ceil(retryAfterSeconds))

export const noHistory = (_: NoHistory): Effect.Effect<never, NotFound> =>
  Effect.fail(new NotFound({ detail: "No weather history for this cell." }))

export const fail = (error: UpstreamError): Effect.Effect<never, ServiceUnavailable | GatewayTimeout | BadGateway> => {
  switch (error._tag) {
    case "RateLimited":
      return failWithRetryAfter(new ServiceUnavailable({ detail: RATE_LIMITED_DETAIL }), seconds(error.retryAfterSeconds))
    case "BudgetSpent":
      return failWithRetryAfter(
        new ServiceUnavailable({
          detail:
            `Today's weather budget (${error.dailyUnits} cost units) is spent, so no new place can be loaded until ` +
            "00:00 UTC; places already loaded still answer."
        }),
        seconds(error.retryAfterSeconds)
      )
    case "UpstreamTimeout":
      return Effect.fail(new GatewayTimeout({ detail: `The ${error.source} did not answer in time.` }))
    case "UpstreamFailure":
      return Effect.fail(new BadGateway({ detail: `The ${error.source} failed: ${error.reason}.` }))
  }
}
