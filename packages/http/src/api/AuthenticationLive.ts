import type { HttpServerRequest } from "@effect/platform"
import { Sessions, SessionUser } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Authentication, SESSION_COOKIE } from "./Authentication.js"
import { Unauthorized } from "./Errors.js"

/**
 * The session tokens a request presents, in the order they are tried: the cookie, then a bearer
 * token (as the `Authentication` middleware tries its two schemes).
 */
export const presentedTokens = (request: HttpServerRequest.HttpServerRequest): ReadonlyArray<string> => {
  const tokens: Array<string> = []
  const cookie = request.cookies[SESSION_COOKIE]
  if (cookie !== undefined && cookie !== "") tokens.push(cookie)
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")
  if (match !== null) tokens.push(match[1]!)
  return tokens
}

/**
 * The request's signed-in, active user, if any, from the first token that names one (a stale
 * cookie does not hide a valid bearer token); for routes where a session is optional.
 */
export const optionalUser = (request: HttpServerRequest.HttpServerRequest) => SessionUser.first(presentedTokens(request))

export const layer = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const sessions = yield* Sessions
    // No active user behind the token (none, expired, or deactivated): the route answers 401.
    const check = (token: Redacted.Redacted<string>) =>
      SessionUser.find(Redacted.value(token)).pipe(
        Effect.provideService(Sessions, sessions),
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(Unauthorized.default), onSome: Effect.succeed }))
      )
    return Authentication.of({ cookie: check, bearer: check })
  })
)
