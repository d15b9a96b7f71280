/**
 * Middleware around the whole application: the `BASE_PATH` mount, and one error shape,
 * `{"detail", "code"}` (core `Refusal`), for what the API's own error schemas do not cover (unknown routes, unreadable
 * bodies, defects). Undecodable requests are restated by DecodeErrors. A database error is 503
 * with Retry-After when the database could not be reached (core `failureKind`), and 500 with a
 * generic detail, logged, when it answered with a refusal (a damaged page, a broken constraint).
 */
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { failureKind, Refusal } from "@climate-grade/core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

const detail = (status: number, code: Refusal.Code, text: string) => HttpServerResponse.unsafeJson(Refusal.body(code, text), { status })

const notFound = detail(404, "not-found", "Not Found")

/** How long a client should wait when the database could not be reached: it bounds every statement at a few seconds. */
const DATABASE_RETRY_SECONDS = 5

/**
 * Serves the app under `basePath`: `/grades/api/v2/health` reaches `/api/v2/health`; anything
 * outside it is 404. (The scheme is `RequestInfo.scheme`'s to say, from `PUBLIC_ORIGIN` and the
 * trusted proxies, not a header rewritten here.)
 */
export const mountAt =
  (basePath: string) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
    basePath === ""
      ? app
      : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const url = request.url
          const rest = url.startsWith(basePath) ? url.slice(basePath.length) : undefined
          if (rest === undefined || !(rest === "" || rest.startsWith("/") || rest.startsWith("?"))) {
            return Effect.succeed(notFound)
          }
          const inner = rest === "" || rest.startsWith("?") ? `/${rest}` : rest
          return Effect.provideService(app, HttpServerRequest.HttpServerRequest, request.modify({ url: inner }))
        })

/**
 * The SQLSTATE a database error carries, if the server reported one (node-postgres and PGlite put
 * `code` and `severity` on the cause); read here by shape, as this package knows no SQL client.
 */
const sqlState = (error: unknown): string | undefined => {
  const cause = (error as { readonly cause?: { readonly code?: unknown; readonly severity?: unknown } | null }).cause
  if (cause === null || typeof cause !== "object") return undefined
  return typeof cause.code === "string" && /^[0-9A-Z]{5}$/.test(cause.code) && typeof cause.severity === "string"
    ? cause.code
    : undefined
}

const isTagged = (u: unknown, tag: string): boolean =>
  typeof u === "object" && u !== null && "_tag" in u && (u as { _tag: unknown })._tag === tag

export const normalizeErrors = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R> =>
  app.pipe(
    Effect.catchAllCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
      // Failures and defects alike: the platform dies with a RequestError on an unreadable body.
      const error = Option.getOrElse(Cause.failureOption(cause), () => Cause.squash(cause))
      if (isTagged(error, "RouteNotFound")) return Effect.succeed(notFound)
      if (isTagged(error, "RequestError")) {
        return Effect.succeed(detail(400, "invalid-body", "The request body could not be read: expected valid JSON."))
      }
      if (isTagged(error, "SqlError")) {
        if (failureKind(sqlState(error)) === "fault") {
          // The database answered and refused: no retry will help, and no outage is to blame.
          return Effect.as(
            Effect.logError("database fault", cause),
            detail(500, "database-fault", "The request failed on a database fault, which has been logged.")
          )
        }
        // The database bounds every statement (a few seconds), so a retry soon may well succeed.
        return Effect.zipRight(
          Effect.logError("database unavailable", cause),
          Effect.map(Clock.currentTimeMillis, (now) =>
            HttpServerResponse.unsafeJson(
              Refusal.body(
                "database-unavailable",
                "The database is unavailable; try again later.",
                Refusal.retryAt(now, DATABASE_RETRY_SECONDS)
              ),
              { status: 503, headers: { "retry-after": String(DATABASE_RETRY_SECONDS) } }
            )
          )
        )
      }
      return Effect.as(Effect.logError("unhandled fault", cause), detail(500, "internal-error", "Internal server error."))
    })
  )
