/**
 * Upstream and history failures as the API's errors (docs/api.md "Common rules"): rate limited or the day's
 * budget spent → 503 with Retry-After, a client's or user's share of the budget spent → 429 with
 * Retry-After (that client should wait; others may go on), timeout → 504, any other upstream
 * failure → 502, no history → 404. Each is a typed error with its status, declared on the routes
 * that answer it.
 */
import { ColdCells, type NoHistory, UpstreamBudget, type UpstreamError } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import {
  BadGateway,
  failWithRetryAfter,
  GatewayTimeout,
  NotFound,
  ServiceUnavailable,
  TooManyRequests
} from "./Errors.js"

export const RATE_LIMITED_DETAIL = "Weather source is rate-limited; try again later."

export const noHistory = (_: NoHistory): Effect.Effect<never, NotFound> =>
  Effect.fail(new NotFound({ detail: "No weather history for this cell.", code: "no-history" }))

/** A client already loading its `COLD_CELLS_PER_CLIENT` new cells. */
export const tooManyColdCells = (error: ColdCells.TooManyColdCells): Effect.Effect<never, TooManyRequests> =>
  failWithRetryAfter(
    ColdCells.RETRY_AFTER_SECONDS,
    (retry_at) => new TooManyRequests({ detail: ColdCells.detail(error.limit), code: "cold-cells-busy", retry_at })
  )

export const fail = (
  error: UpstreamError
): Effect.Effect<never, TooManyRequests | ServiceUnavailable | GatewayTimeout | BadGateway> => {
  switch (error._tag) {
    case "RateLimited":
      return failWithRetryAfter(
        error.retryAfterSeconds,
        (retry_at) => new ServiceUnavailable({ detail: RATE_LIMITED_DETAIL, code: "rate-limited", retry_at })
      )
    case "BudgetSpent":
      return failWithRetryAfter(
        error.retryAfterSeconds,
        (retry_at) => new ServiceUnavailable({ detail: UpstreamBudget.detail(error), code: "budget-spent", retry_at })
      )
    case "ShareSpent":
      return failWithRetryAfter(
        error.retryAfterSeconds,
        (retry_at) => new TooManyRequests({ detail: UpstreamBudget.detail(error), code: "client-share-spent", retry_at })
      )
    case "UpstreamTimeout":
      return Effect.fail(new GatewayTimeout({ detail: `The ${error.source} did not answer in time.`, code: "upstream-timeout" }))
    case "UpstreamFailure":
      return Effect.fail(new BadGateway({ detail: `The ${error.source} failed: ${error.reason}.`, code: "upstream-failed" }))
  }
}
