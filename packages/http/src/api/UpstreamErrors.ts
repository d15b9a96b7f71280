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

const seconds = (retryAfterSeconds: number) => Math.max(1, Math.ceil(retryAfterSeconds))

export const noHistory = (_: NoHistory): Effect.Effect<never, NotFound> =>
  Effect.fail(new NotFound({ detail: "No weather history for this cell." }))

/** A client already loading its `COLD_CELLS_PER_CLIENT` new cells. */
export const tooManyColdCells = (error: ColdCells.TooManyColdCells): Effect.Effect<never, TooManyRequests> =>
  failWithRetryAfter(new TooManyRequests({ detail: ColdCells.detail(error.limit) }), ColdCells.RETRY_AFTER_SECONDS)

export const fail = (
  error: UpstreamError
): Effect.Effect<never, TooManyRequests | ServiceUnavailable | GatewayTimeout | BadGateway> => {
  switch (error._tag) {
    case "RateLimited":
      return failWithRetryAfter(new ServiceUnavailable({ detail: RATE_LIMITED_DETAIL }), seconds(error.retryAfterSeconds))
    case "BudgetSpent":
      return failWithRetryAfter(new ServiceUnavailable({ detail: UpstreamBudget.detail(error) }), seconds(error.retryAfterSeconds))
    case "ShareSpent":
      return failWithRetryAfter(new TooManyRequests({ detail: UpstreamBudget.detail(error) }), seconds(error.retryAfterSeconds))
    case "UpstreamTimeout":
      return Effect.fail(new GatewayTimeout({ detail: `The ${error.source} did not answer in time.` }))
    case "UpstreamFailure":
      return Effect.fail(new BadGateway({ detail: `The ${error.source} failed: ${error.reason}.` }))
  }
}
