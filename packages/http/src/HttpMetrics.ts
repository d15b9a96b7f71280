/**
 * The HTTP edge's own metrics (issue 8, "honest operations"): requests by route and status, their
 * latency, and how data answers were found (the cache tier). `/metrics` exports them with every
 * other Effect metric of the process.
 */
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"

export const requests = Metric.counter("http_requests_total", {
  description: "HTTP requests answered, by route template, method and status"
})

export const duration = Metric.histogram(
  "http_request_duration_seconds",
  MetricBoundaries.fromIterable([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]),
  "Time from a request's arrival to the end of its answer, by route template"
)

/**
 * How a data answer was found: `index` (the response index, before the Effect pipeline), `not_modified`
 * (a 304 from the plan's ETag, nothing read), `stored` (a stored payload replayed), `built` (built now).
 */
export type CacheTier = "index" | "not_modified" | "stored" | "built"

export const cacheAnswers = Metric.counter("http_cache_answers_total", {
  description: "Data answers by the tier that served them: index, not_modified, stored, built"
})

const tierLabels: Record<CacheTier, ReadonlyArray<MetricLabel.MetricLabel>> = {
  index: [MetricLabel.make("tier", "index")],
  not_modified: [MetricLabel.make("tier", "not_modified")],
  stored: [MetricLabel.make("tier", "stored")],
  built: [MetricLabel.make("tier", "built")]
}

/** Synchronous, so the node-level fast path can count without running a fiber. */
export const countCacheAnswer = (tier: CacheTier): void => cacheAnswers.unsafeUpdate(1, tierLabels[tier])

/** One finished request: its count and its latency. */
export const recordRequest = (route: string, method: string, status: number, seconds: number): void => {
  requests.unsafeUpdate(1, [
    MetricLabel.make("route", route),
    MetricLabel.make("method", method),
    MetricLabel.make("status", String(status))
  ])
  duration.unsafeUpdate(seconds, [MetricLabel.make("route", route)])
}
