/**
 * One access-log line per request, formatted here from a template and
 * handed to a line sink (the process's batched stdout), not through Effect's logger: on the
 * response index's fast path a logger call (options object, annotations map, the logger's own
 * formatting) cost more than the answer. `LOG_FORMAT` still picks the shape (`json`: one object
 * per line; `pretty`: words separated by spaces), and `ACCESS_LOG=off` writes none.
 * A line carries the method, the path (only query parameters known to hold no secret are kept: an
 * OAuth callback's `code` and `state`, or anything a client adds, are logged as `[redacted]`), the
 * status, the duration, the client's address, the request id and the instance.
 */
import { OpenApi } from "@effect/platform"
import { API_PREFIX, Api } from "../api/Api.js"
import { innerPath } from "./SecurityHeaders.js"
import { ownCopy } from "./V8String.js"

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

/** The request's path and query with the values of parameters not known to be safe redacted; shares no storage with `url`. */
export const loggablePath = (url: string): string => {
  const q = url.indexOf("?")
  if (q < 0) return ownCopy(url)
  const params = new URLSearchParams(url.slice(q + 1))
  const kept: Array<string> = []
  for (const [key, value] of params) {
    kept.push(
      LOGGABLE_PARAMS.has(key) ? `${encodeURIComponent(key)}=${encodeURIComponent(value)}` : `${encodeURIComponent(key)}=[redacted]`
    )
  }
  return ownCopy(kept.length === 0 ? url.slice(0, q) : `${url.slice(0, q)}?${kept.join("&")}`)
}

export type Format = "pretty" | "json" | "off"

export interface Options {
  readonly format: Format
  /** Which process wrote the line (`INSTANCE_ID`, else host name and pid). */
  readonly instance: string
  /** Where lines go, one string without its newline each. */
  readonly write: (line: string) => void
}

/** What a request leaves in the log, once its answer has ended. */
export type Writer = (
  method: string,
  path: string,
  status: number,
  durationMs: number,
  client: string,
  requestId: string
) => void

/** A JSON string literal: printable ASCII other than `"` and `\\` as it is (paths, addresses), the rest through `JSON.stringify`. */
const NO_ESCAPE = /^[ !#-[\]-~]*$/
export const jsonString = (s: string): string => (NO_ESCAPE.test(s) ? `"${s}"` : JSON.stringify(s))

/**
 * The last answer of `make` for the same arguments (compared by identity, so a cached path or
 * address string costs one comparison): a busy instance writes the same place (a revalidated cell)
 * with the same status for the same client (a kept-alive connection) line after line.
 */
const lastOf4 = <A, B, C, D>(make: (a: A, b: B, c: C, d: D) => string) => {
  let a0: A | undefined
  let b0: B | undefined
  let c0: C | undefined
  let d0: D | undefined
  let made = ""
  return (a: A, b: B, c: C, d: D) => {
    if (a !== a0 || b !== b0 || c !== c0 || d !== d0) {
      a0 = a
      b0 = b
      c0 = c
      d0 = d
      made = make(a, b, c, d)
    }
    return made
  }
}

/**
 * The clock as `Date#toISOString` writes it, for a time in milliseconds since 1970 (before year
 * 10000): the date and time of day made once a second, the milliseconds added per line, and the
 * same string for every line of one millisecond.
 */
export const timestamps = () => {
  let second = -1
  let prefix = ""
  let ms = -1
  let text = ""
  return (now: number) => {
    if (now !== ms) {
      ms = now
      const s = Math.floor(now / 1000)
      if (s !== second) {
        second = s
        // "2026-11-26T01:02:03."
        prefix = new Date(s * 1000).toISOString().slice(0, 20)
      }
      const milli = now - s * 1000
      text = `${prefix}${milli < 10 ? "00" : milli < 100 ? "0" : ""}${milli}Z`
    }
    return text
  }
}

/**
 * The deployment's writer: nothing at all when the log is off; else a line of a few pieces — the
 * time, the part that is the same from one answer to the next (method, path, status, client), the
 * duration and the request id — the constant parts joined once, the repeated part made again only
 * when it changes. (Every extra piece of a string made by concatenation is paid again where the
 * line is copied into the batch.) Durations are kept to a tenth of a millisecond.
 */
export const writer = (options: Options, clock: () => number = Date.now): Writer => {
  const { write } = options
  const stamp = timestamps()
  if (options.format === "off") return () => {}
  if (options.format === "json") {
    // {"timestamp":"…","logLevel":"INFO","access":true,"method":"…","path":…,"status":…,"client":…,"duration_ms":…,"request_id":"…","instance":…}
    const middle = lastOf4(
      (method: string, path: string, status: number, client: string) =>
        `","logLevel":"INFO","access":true,"method":${jsonString(method)},"path":${jsonString(path)},"status":${status},"client":${jsonString(client)},"duration_ms":`
    )
    const tail = `","instance":${jsonString(options.instance)}}`
    return (method, path, status, durationMs, client, requestId) =>
      write(`{"timestamp":"${stamp(clock())}${middle(method, path, status, client)}${Math.round(durationMs * 10) / 10},"request_id":"${requestId}${tail}`)
  }
  const tail = ` ${options.instance}`
  const middle = lastOf4((method: string, path: string, status: number, client: string) => ` ${client} ${method} ${path} ${status} `)
  return (method, path, status, durationMs, client, requestId) =>
    write(`${stamp(clock())}${middle(method, path, status, client)}${Math.round(durationMs * 10) / 10}ms ${requestId}${tail}`)
}

/**
 * The route template a request matched, for metric labels (a bounded set, unlike raw paths):
 * the API's paths from its OpenAPI document, `/metrics`, then `api-unmatched` or `site`.
 */
export const routeLabeller = (basePath: string) => {
  // Label by label: the label returned is this one, not the request's own copy (cut from its URL).
  const exact = new Map<string, string>([`${API_PREFIX}/docs`, `${API_PREFIX}/openapi.json`, "/metrics"].map((p) => [p, p]))
  const patterns: Array<readonly [RegExp, string]> = []
  for (const path of Object.keys(OpenApi.fromApi(Api).paths)) {
    if (!path.includes("{")) exact.set(path, path)
    else {
      const source = path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")
      patterns.push([new RegExp(`^${source}$`), path])
    }
  }
  return (url: string): string => {
    const path = innerPath(basePath, url)
    if (path === undefined) return "outside-base-path"
    const label = exact.get(path)
    if (label !== undefined) return label
    for (const [pattern, label] of patterns) if (pattern.test(path)) return label
    return path.startsWith(`${API_PREFIX}/`) ? "api-unmatched" : "site"
  }
}
