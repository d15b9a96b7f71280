/**
 * Upstream and history failures as HTTP answers (CONTRACT.md §3): rate limited → 503 with
 * Retry-After, timeout → 504, any other upstream failure → 502, no history → 404. Bodies are
 * `{"detail": …}` like every other error.
 */
import { HttpServerResponse } from "@effect/platform"
import type { NoHistory, UpstreamError } from "@climate-grade/core"

export const RATE_LIMITED_DETAIL = "Weather source is rate-limited; try again later."

export const toResponse = (error: UpstreamError | NoHistory): HttpServerResponse.HttpServerResponse => {
  switch (error._tag) {
    case "RateLimited":
      return HttpServerResponse.unsafeJson(
        { detail: RATE_LIMITED_DETAIL },
        { status: 503, headers: { "retry-after": String(Math.max(1, Math.ceil(error.retryAfterSeconds))) } }
      )
    case "BudgetSpent":
      return HttpServerResponse.unsafeJson(
        {
          detail:
            `Today's weather budget (${error.dailyUnits} cost units) is spent, so no new place can be loaded until ` +
            "00:00 UTC; places already loaded still answer."
        },
        { status: 503, headers: { "retry-after": String(Math.max(1, Math.ceil(error.retryAfterSeconds))) } }
      )
    case "UpstreamTimeout":
      return HttpServerResponse.unsafeJson({ detail: `The ${error.source} did not answer in time.` }, { status: 504 })
    case "UpstreamFailure":
      return HttpServerResponse.unsafeJson({ detail: `The ${error.source} failed: ${error.reason}.` }, { status: 502 })
    case "NoHistory":
      return HttpServerResponse.unsafeJson({ detail: "No weather history for this cell." }, { status: 404 })
  }
}
