/**
 * Middleware around the whole application: the `BASE_PATH` mount, and one error shape,
 * `{"detail": …}`, for what the API's own error schemas do not cover (unknown routes, unreadable
 * bodies, defects). Undecodable requests are restated by DecodeErrors.
 */
import { Headers, type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

const detail = (status: number, text: string) => HttpServerResponse.unsafeJson({ detail: text }, { status })

const notFound = detail(404, "Not Found")

/**
 * Serves the app under `basePath`: `/grades/api/v2/health` reaches `/api/v2/health`; anything
 * outside it is 404. With `https` (an https `PUBLIC_ORIGIN`), the request is known to have come
 * over https whatever its headers say, so cookies are `Secure` and redirects stay on https.
 */
export const mountAt =
  (basePath: string, options: { readonly https?: boolean } = {}) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
    basePath === "" && options.https !== true
      ? app
      : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const url = request.url
          const rest = url.startsWith(basePath) ? url.slice(basePath.length) : undefined
          if (rest === undefined || !(rest === "" || rest.startsWith("/") || rest.startsWith("?"))) {
            return Effect.succeed(notFound)
          }
          const inner = rest === "" || rest.startsWith("?") ? `/${rest}` : rest
          const modified =
            options.https === true
              ? request.modify({ url: inner, headers: Headers.set(request.headers, "x-forwarded-proto", "https") })
              : request.modify({ url: inner })
          return Effect.provideService(app, HttpServerRequest.HttpServerRequest, modified)
        })

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
        return Effect.succeed(detail(400, "The request body could not be read: expected valid JSON."))
      }
      if (isTagged(error, "SqlError")) {
        // The database bounds every statement (a few seconds), so a retry soon may well succeed.
        return Effect.as(
          Effect.logError("database fault", cause),
          HttpServerResponse.unsafeJson(
            { detail: "The database is unavailable; try again later." },
            { status: 503, headers: { "retry-after": "5" } }
          )
        )
      }
      return Effect.as(Effect.logError("unhandled fault", cause), detail(500, "Internal server error."))
    })
  )
