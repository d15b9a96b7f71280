import type { HttpServerRequest } from "@effect/platform"
import { Sessions, type User } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Authentication, SESSION_COOKIE } from "./Authentication.js"
import { Unauthorized } from "./Errors.js"

/** The session token a request presents: the cookie, else a bearer token. */
export const presentedToken = (request: HttpServerRequest.HttpServerRequest): Option.Option<string> => {
  const cookie = request.cookies[SESSION_COOKIE]
  if (cookie !== undefined && cookie !== "") return Option.some(cookie)
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")
  return match === null ? Option.none() : Option.some(match[1]!)
}

/** The request's signed-in, active user, if any; for routes where a session is optional. */
export const optionalUser = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const sessions = yield* Sessions
    const token = presentedToken(request)
    if (Option.isNone(token)) return Option.none<User>()
    const user = yield* sessions.find(token.value)
    return Option.filter(user, (u) => u.isActive)
  })

export const layer = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const sessions = yield* Sessions
    // `is_active` is read with the session on every request, so deactivation takes effect at once.
    const check = (token: Redacted.Redacted<string>) =>
      Redacted.value(token) === ""
        ? Effect.fail(Unauthorized.default)
        : sessions.find(Redacted.value(token)).pipe(
            Effect.flatMap(
              Option.match({
                onNone: () => Effect.fail(Unauthorized.default),
                onSome: (user) => (user.isActive ? Effect.succeed(user) : Effect.fail(Unauthorized.default))
              })
            )
          )
    return Authentication.of({ cookie: check, bearer: check })
  })
)
