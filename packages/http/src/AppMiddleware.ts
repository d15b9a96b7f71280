/**
 * Middleware around the whole application: the `BASE_PATH` mount, and one error shape,
 * `{"detail": …}`, for what the API's own error schemas do not cover (unknown routes,
 * undecodable requests, defects).
 */
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

const detail = (status: number, text: string) => HttpServerResponse.unsafeJson({ detail: text }, { status })

const notFound = detail(404, "Not Found")

/** Serves the app under `basePath`: `/grades/api/v2/health` reaches `/api/v2/health`; anything outside it is 404. */
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

interface TaggedBody {
  readonly _tag?: unknown
  readonly message?: unknown
}

/** The platform answers a request it cannot decode with its own body; restate it as `{detail}`. */
const restateDecodeError = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.status !== 400 || response.body._tag !== "Uint8Array") return response
  try {
    const body = JSON.parse(new TextDecoder().decode(response.body.body)) as TaggedBody
    if (body._tag !== "HttpApiDecodeError") return response
    const message = typeof body.message === "string" ? body.message : "The request could not be decoded."
    return detail(400, message)
  } catch {
    return response
  }
}

const isTagged = (u: unknown, tag: string): boolean =>
  typeof u === "object" && u !== null && "_tag" in u && (u as { _tag: unknown })._tag === tag

export const normalizeErrors = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<never, R> =>
  app.pipe(
    Effect.map(restateDecodeError),
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
