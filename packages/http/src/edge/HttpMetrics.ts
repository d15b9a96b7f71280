/**
 * The HTTP edge's own metrics: requests by route and status, their
 * latency, and how data answers were found (the cache tier). `/metrics` exports them with every
 * Effect metric of the process.
 *
 * They are plain counters, not Effect `Metric`s: they are updated on every request, the response
 * index's fast path included, and an Effect metric update with labels looks its series up in the
 * registry by a freshly hashed key each time — measured, that alone took `pnpm bench:http b` from
 * 0.55× to 0.30× of a bare server. Here an update is a counter increment on a series
 * found once per route.
 */
import { Lru } from "@climate-grade/core"
import { labels, number } from "./PrometheusText.js"

/** Statuses counted: every one an HTTP answer here can have (and 499, a request its client cut short). */
const STATUSES = 600

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const

/**
 * How a data answer was found: `index` (the response index, before the Effect pipeline), `not_modified`
 * (a 304 from the plan's ETag, nothing read), `stored` (a stored payload replayed), `built` (built now).
 */
export type CacheTier = "index" | "not_modified" | "stored" | "built"

/**
 * One route template's series: its latency histogram and its counts by method and status. Found
 * once per route (the front door keeps it, and the response index keeps it with each answer), so
 * recording a request is a counter increment, not a key built and hashed.
 */
export interface Series {
  readonly route: string
  readonly counts: Array<number>
  sum: number
  count: number
  /** method → counts indexed by status (100–599; an array, not a map: a count is an increment). */
  readonly byMethod: Map<string, Array<number>>
}

const routes = new Map<string, Series>()
const tiers: Record<CacheTier, number> = { index: 0, not_modified: 0, stored: 0, built: 0 }

export const countCacheAnswer = (tier: CacheTier): void => {
  tiers[tier]++
}

/** The series of a route template (a bounded set of labels: the caller's to guarantee). */
export const series = (route: string): Series => {
  let found = routes.get(route)
  if (found === undefined) {
    found = { route, counts: BOUNDS.map(() => 0), sum: 0, count: 0, byMethod: new Map() }
    routes.set(route, found)
  }
  return found
}

/** One finished request: its count and its latency. */
export const record = (s: Series, method: string, status: number, seconds: number): void => {
  let statuses = s.byMethod.get(method)
  if (statuses === undefined) {
    statuses = new Array<number>(STATUSES).fill(0)
    s.byMethod.set(method, statuses)
  }
  // Node refuses a status outside 100–999 before any answer is written; past 599 none is sent here.
  if (status >= 0 && status < STATUSES) statuses[status]!++
  let bucket = 0
  while (bucket < BOUNDS.length && seconds > BOUNDS[bucket]!) bucket++
  if (bucket < BOUNDS.length) s.counts[bucket]!++
  s.sum += seconds
  s.count++
}

/** One finished request, by route label (the series looked up by name). */
export const recordRequest = (route: string, method: string, status: number, seconds: number): void =>
  record(series(route), method, status, seconds)

/** These metrics in the Prometheus text format, sorted so that a series always renders the same way. */
export const render = (): string => {
  const out: Array<string> = [
    "# HELP http_cache_answers_total Data answers by the tier that served them: index, not_modified, stored, built",
    "# TYPE http_cache_answers_total counter"
  ]
  for (const tier of ["built", "index", "not_modified", "stored"] as const) {
    out.push(`http_cache_answers_total${labels([["tier", tier]])} ${tiers[tier]}`)
  }
  out.push(
    "# HELP http_request_duration_seconds Time from a request's arrival to the end of its answer, by route template",
    "# TYPE http_request_duration_seconds histogram"
  )
  const sorted = [...routes.values()].filter((s) => s.count > 0).sort((a, b) => a.route.localeCompare(b.route))
  for (const { count, counts, route, sum } of sorted) {
    let cumulative = 0
    BOUNDS.forEach((bound, i) => {
      cumulative += counts[i]!
      out.push(`http_request_duration_seconds_bucket${labels([["le", number(bound)], ["route", route]])} ${cumulative}`)
    })
    out.push(`http_request_duration_seconds_bucket${labels([["le", "+Inf"], ["route", route]])} ${count}`)
    out.push(`http_request_duration_seconds_sum${labels([["route", route]])} ${sum}`)
    out.push(`http_request_duration_seconds_count${labels([["route", route]])} ${count}`)
  }
  out.push(
    "# HELP http_requests_total HTTP requests answered, by route template, method and status",
    "# TYPE http_requests_total counter"
  )
  const rows: Array<readonly [string, string]> = []
  for (const { byMethod, route } of sorted) {
    for (const [method, statuses] of byMethod) {
      statuses.forEach((n, status) => {
        if (n === 0) return
        rows.push([`${route} ${method} ${status}`, `http_requests_total${labels([["method", method], ["route", route], ["status", String(status)]])} ${n}`])
      })
    }
  }
  for (const [, row] of rows.sort(([a], [b]) => a.localeCompare(b))) out.push(row)
  out.push(
    "# HELP cache_bytes Bytes held by each in-process cache (each is bounded: see cache_max_bytes)",
    "# TYPE cache_bytes gauge"
  )
  const caches = Lru.registered()
  for (const c of caches) out.push(`cache_bytes${labels([["cache", c.name]])} ${c.weight()}`)
  out.push("# HELP cache_max_bytes The bound of each in-process cache, in bytes", "# TYPE cache_max_bytes gauge")
  for (const c of caches) out.push(`cache_max_bytes${labels([["cache", c.name]])} ${c.maxWeight}`)
  out.push("# HELP cache_entries Entries held by each in-process cache", "# TYPE cache_entries gauge")
  for (const c of caches) out.push(`cache_entries${labels([["cache", c.name]])} ${c.size()}`)
  return `${out.join("\n")}\n`
}
