/**
 * One access-log line per request (issue 8, item 7), through Effect's logger, so the deployment's
 * `LOG_FORMAT` shapes it (with `json`, one object per line with `method`, `path`, `status` and
 * `duration_ms` fields). The path keeps only query parameters known to hold no secret: an OAuth
 * callback's `code` and `state`, or anything a client adds, are logged as `[redacted]`.
 */
import { OpenApi } from "@effect/platform"
import * as Cause from "effect/Cause"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as List from "effect/List"
import type * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import type * as LogSpan from "effect/LogSpan"
import type * as Runtime from "effect/Runtime"
import { API_PREFIX, Api } from "./Api.js"
import { innerPath } from "./SecurityHeaders.js"

/** Query parameters of the API that are coordinates, dates or switches: safe to log as sent. */
const LOGGABLE_PARAMS: ReadonlySet<string> = new Set([
  "lat",
  "lon",
  "date",
  "start",
  "end",
  "months",
  "prefetch",
  "units",
  "oauth",
  "provider",
  "chat"
])

export const loggablePath = (url: string): string => {
  const q = url.indexOf("?")
  if (q < 0) return url
  const params = new URLSearchParams(url.slice(q + 1))
  const kept: Array<string> = []
  for (const [key, value] of params) {
    kept.push(
      LOGGABLE_PARAMS.has(key) ? `${encodeURIComponent(key)}=${encodeURIComponent(value)}` : `${encodeURIComponent(key)}=[redacted]`
    )
  }
  return kept.length === 0 ? url.slice(0, q) : `${url.slice(0, q)}?${kept.join("&")}`
}

export type Writer = (method: string, path: string, status: number, durationMs: number) => void

/**
 * Writes through the loggers of `runtime` (the deployment's: `LOG_FORMAT`, or a test's capture)
 * directly, as `Effect.logInfo` would, without starting a fiber per request: on the response
 * index's fast path a fiber per line cost more than the answer itself (bench:http a fell from
 * 0.62× to 0.20× of a bare server).
 */
export const writer = (runtime: Runtime.Runtime<never>): Writer => {
  const refs = runtime.fiberRefs
  const loggers = FiberRefs.getOrDefault(refs, FiberRef.currentLoggers)
  const enabled = !LogLevel.greaterThan(FiberRefs.getOrDefault(refs, FiberRef.currentMinimumLogLevel), LogLevel.Info)
  const base = FiberRefs.getOrDefault(refs, FiberRef.currentLogAnnotations)
  const spans = List.empty<LogSpan.LogSpan>()
  return (method, path, status, durationMs) => {
    if (!enabled) return
    const ms = Math.round(durationMs * 10) / 10
    const options: Logger.Logger.Options<unknown> = {
      fiberId: FiberId.none,
      logLevel: LogLevel.Info,
      message: `${method} ${path} ${status} ${ms}ms`,
      cause: Cause.empty,
      context: refs,
      spans,
      annotations: HashMap.union(
        base,
        HashMap.make(["access", true], ["method", method], ["path", path], ["status", status], ["duration_ms", ms])
      ),
      date: new Date()
    }
    for (const logger of loggers) logger.log(options)
  }
}

/**
 * The route template a request matched, for metric labels (a bounded set, unlike raw paths):
 * the API's paths from its OpenAPI document, `/metrics`, then `api-unmatched` or `site`.
 */
export const routeLabeller = (basePath: string) => {
  const exact = new Set<string>([`${API_PREFIX}/docs`, `${API_PREFIX}/openapi.json`, "/metrics"])
  const patterns: Array<readonly [RegExp, string]> = []
  for (const path of Object.keys(OpenApi.fromApi(Api).paths)) {
    if (!path.includes("{")) exact.add(path)
    else {
      const source = path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")
      patterns.push([new RegExp(`^${source}$`), path])
    }
  }
  return (url: string): string => {
    const path = innerPath(basePath, url)
    if (path === undefined) return "outside-base-path"
    if (exact.has(path)) return path
    for (const [pattern, label] of patterns) if (pattern.test(path)) return label
    return path.startsWith(`${API_PREFIX}/`) ? "api-unmatched" : "site"
  }
}
