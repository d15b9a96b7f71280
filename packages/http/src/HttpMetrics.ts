/**
 * The HTTP edge's own metrics (issue 8, "honest operations"): requests by route and status, their
 * latency, and how data answers were found (the cache tier). `/metrics` exports them with every
 * Effect metric of the process.
 *
 * They are plain counters, not Effect `Metric`s: they are updated on every request, the response
 * index's fast path included, and an Effect metric update with labels looks its series up in the
 * registry by a freshly hashed key each time — measured, that alone took `pnpm bench:http b` from
 * 0.55× to 0.30× of a bare server. Here an update is a map lookup by a string.
 */
import { labels, number } from "./PrometheusText.js"

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const

/**
 * How a data answer was found: `index` (the response index, before the Effect pipeline), `not_modified`
 * (a 304 from the plan's ETag, nothing read), `stored` (a stored payload replayed), `built` (built now).
 */
export type CacheTier = "index" | "not_modified" | "stored" | "built"

interface Histogram {
  readonly counts: Array<number>
  sum: number
  count: number
}

const requests = new Map<string, { readonly route: string; readonly method: string; readonly status: string; n: number }>()
const durations = new Map<string, Histogram>()
const tiers = new Map<CacheTier, number>()

export const countCacheAnswer = (tier: CacheTier): void => {
  tiers.set(tier, (tiers.get(tier) ?? 0) + 1)
}

/** One finished request: its count and its latency. */
export const recordRequest = (route: string, method: string, status: number, seconds: number): void => {
  const key = `${route} ${method} ${status}`
  const counter = requests.get(key)
  if (counter === undefined) requests.set(key, { route, method, status: String(status), n: 1 })
  else counter.n++
  let histogram = durations.get(route)
  if (histogram === undefined) {
    histogram = { counts: BOUNDS.map(() => 0), sum: 0, count: 0 }
    durations.set(route, histogram)
  }
  const bucket = BOUNDS.findIndex((bound) => seconds <= bound)
  if (bucket >= 0) histogram.counts[bucket]!++
  histogram.sum += seconds
  histogram.count++
}

/** These metrics in the Prometheus text format, sorted so that a series always renders the same way. */
export const render = (): string => {
  const out: Array<string> = [
    "# HELP http_cache_answers_total Data answers by the tier that served them: index, not_modified, stored, built",
    "# TYPE http_cache_answers_total counter"
  ]
  for (const tier of ["built", "index", "not_modified", "stored"] as const) {
    out.push(`http_cache_answers_total${labels([["tier", tier]])} ${tiers.get(tier) ?? 0}`)
  }
  out.push(
    "# HELP http_request_duration_seconds Time from a request's arrival to the end of its answer, by route template",
    "# TYPE http_request_duration_seconds histogram"
  )
  for (const [route, histogram] of [...durations].sort(([a], [b]) => a.localeCompare(b))) {
    let cumulative = 0
    BOUNDS.forEach((bound, i) => {
      cumulative += histogram.counts[i]!
      out.push(`http_request_duration_seconds_bucket${labels([["le", number(bound)], ["route", route]])} ${cumulative}`)
    })
    out.push(`http_request_duration_seconds_bucket${labels([["le", "+Inf"], ["route", route]])} ${histogram.count}`)
    out.push(`http_request_duration_seconds_sum${labels([["route", route]])} ${histogram.sum}`)
    out.push(`http_request_duration_seconds_count${labels([["route", route]])} ${histogram.count}`)
  }
  out.push(
    "# HELP http_requests_total HTTP requests answered, by route template, method and status",
    "# TYPE http_requests_total counter"
  )
  for (const [, c] of [...requests].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`http_requests_total${labels([["method", c.method], ["route", c.route], ["status", c.status]])} ${c.n}`)
  }
  return `${out.join("\n")}\n`
}
