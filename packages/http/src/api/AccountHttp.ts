import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  type AuthSecret,
  Languages,
  Leaving,
  LoginThrottle,
  OAuthAccounts,
  PasswordLogin,
  type SecureRandom,
  Sessions,
  type User,
  Users,
  type Voice
} from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Api } from "./Api.js"
import { CurrentUser } from "./Authentication.js"
import { presentedTokens } from "./AuthenticationLive.js"
import { clearedSessionCookie, KNOWN_DEVICE_COOKIE, knownDeviceCookie, sessionCookie, withCookies } from "./Cookies.js"
import { BadRequest, failWithRetryAfter, TooManyRequests, Unauthorized } from "./Errors.js"
import { HttpSettings } from "./HttpSettings.js"
import { clientAddress } from "../protocol/RequestInfo.js"

const badCredentials = new BadRequest({ detail: "LOGIN_BAD_CREDENTIALS", code: "bad-credentials" })

/** The same answer whichever limit was reached and whether or not the account exists. */
/** What a sign-out asks the browser to drop (Clear-Site-Data): everything of the origin but its cookies. */
export const CLEAR_SITE_DATA = '"cache", "storage"'

const throttled = (error: LoginThrottle.TooManyAttempts) =>
  failWithRetryAfter(
    error.retryAfterSeconds,
    (retry_at) =>
      new TooManyRequests({
        detail: `Too many failed sign-in attempts; try again in ${error.retryAfterSeconds} seconds.`,
        code: "too-many-requests",
        retry_at
      })
  )

export const AuthLive = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function* () {
    const sessions = yield* Sessions
    const passwords = yield* PasswordLogin.make
    const settings = yield* HttpSettings
    const throttle = yield* Effect.context<LoginThrottle.LoginAttempts | LoginThrottle.LoginPolicy | AuthSecret | SecureRandom>()
    return handlers
      .handle("login", ({ payload }) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          // The rule (one refusal for every reason, the decoy hash) is the core's.
          const check = Effect.option(passwords.check(payload.email, payload.password))
          const attempt = {
            email: payload.email,
            address: clientAddress(request, settings.trustedProxyHops),
            // A browser that signed in to this account before is counted on its own (core KnownDevice).
            deviceCookie: request.cookies[KNOWN_DEVICE_COOKIE]
          }
          const outcome = yield* LoginThrottle.guard(attempt, check).pipe(Effect.provide(throttle), Effect.either)
          if (outcome._tag === "Left") return yield* throttled(outcome.left)
          const admitted = outcome.right
          if (Option.isNone(admitted)) return yield* badCredentials
          const session = yield* sessions.issue(admitted.value.value.id)
          return HttpServerResponse.empty({ status: 204 }).pipe(
            withCookies(
              sessionCookie(request, settings, session.token),
              knownDeviceCookie(request, settings, admitted.value.deviceCookie)
            )
          )
        })
      )
      .handle("logout", () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          // Every session the request presents ends: a cookie and a bearer token may differ.
          yield* Effect.forEach(presentedTokens(request), sessions.revoke, { discard: true })
          // The browser drops what it holds of this origin besides cookies (the known-device cookie
          // stays): its HTTP cache, and its storage — the site's recent places and watched places'
          // names, the worker's kept pages, the client library's data. The worker is unregistered
          // with its caches and installs again at the site's next load.
          return HttpServerResponse.empty({ status: 204 }).pipe(
            HttpServerResponse.setHeader("clear-site-data", CLEAR_SITE_DATA),
            withCookies(clearedSessionCookie(request, settings))
          )
        })
      )
  })
)

export const UsersLive = HttpApiBuilder.group(Api, "users", (handlers) =>
  Effect.gen(function* () {
    const links = yield* OAuthAccounts
    const users = yield* Users
    const records = yield* Leaving.AccountRecords
    const settings = yield* HttpSettings
    const me = (user: User) =>
      Effect.map(links.listByUser(user.id), (owned) => ({
        id: user.id,
        email: user.email,
        is_active: user.isActive,
        is_superuser: user.isSuperuser,
        is_verified: user.isVerified,
        oauth_only: user.oauthOnly,
        chat_id: user.chatId,
        chat_dm: user.chatDm,
        lang: user.language,
        units: user.units,
        links: owned.map((l) => ({ provider: l.provider, email: l.email }))
      }))
    return handlers
      .handle("exportMe", () =>
        Effect.gen(function* () {
          const user = yield* CurrentUser
          const held = yield* Leaving.exportOf(user.id).pipe(Effect.provideService(Leaving.AccountRecords, records))
          // Deleted between the session check and now: as if signed out.
          if (held === undefined) return yield* Unauthorized.default
          return HttpServerResponse.text(`${JSON.stringify(held, null, 2)}\n`, {
            contentType: "application/json",
            headers: {
              "content-disposition": 'attachment; filename="climate-grade-account.json"',
              "cache-control": "no-store"
            }
          })
        })
      )
      .handle("deleteMe", () =>
        Effect.gen(function* () {
          const user = yield* CurrentUser
          const request = yield* HttpServerRequest.HttpServerRequest
          yield* Leaving.leave(user).pipe(Effect.provideService(Leaving.AccountRecords, records))
          // The browser drops what it holds of this origin besides cookies (the known-device cookie
          // stays): its HTTP cache, and its storage — the site's recent places and watched places'
          // names, the worker's kept pages, the client library's data. The worker is unregistered
          // with its caches and installs again at the site's next load.
          return HttpServerResponse.empty({ status: 204 }).pipe(
            HttpServerResponse.setHeader("clear-site-data", CLEAR_SITE_DATA),
            withCookies(clearedSessionCookie(request, settings))
          )
        })
      )
      .handle("me", () => Effect.flatMap(CurrentUser, me))
      .handle("updateMe", ({ payload }) =>
        Effect.gen(function* () {
          const user = yield* CurrentUser
          const voice = yield* Effect.mapError(readVoice(payload), (detail) => new BadRequest({ detail, code: "invalid-body" }))
          yield* users.setVoice(user.id, voice)
          const now = yield* users.findById(user.id)
          // Deleted between the session check and now: as if signed out.
          if (now._tag === "None") return yield* Unauthorized.default
          return yield* me(now.value)
        })
      )
  })
)

/** `PATCH /users/me`'s body: `{lang?, units?}`, at least one, nothing else. Left: a 400's detail. */
export const readVoice = (body: unknown): Effect.Effect<Partial<Voice>, string> => {
  const expected = `expected {"lang": ${Languages.LANGUAGES.map((l) => `"${l}"`).join("|")}, "units": "metric"|"imperial"}, either or both`
  if (typeof body !== "object" || body === null || Array.isArray(body)) return Effect.fail(`The body must be a JSON object: ${expected}.`)
  const record = body as Record<string, unknown>
  const unknown = Object.keys(record).find((k) => k !== "lang" && k !== "units")
  if (unknown !== undefined) return Effect.fail(`Unknown member ${JSON.stringify(unknown)}: ${expected}.`)
  const { lang, units } = record
  if (lang === undefined && units === undefined) return Effect.fail(`Nothing to set: ${expected}.`)
  if (lang !== undefined && !Languages.isLanguage(lang)) return Effect.fail(`'lang' must be one of ${Languages.LANGUAGES.join(", ")}.`)
  if (units !== undefined && units !== "metric" && units !== "imperial") return Effect.fail(`'units' must be "metric" or "imperial".`)
  return Effect.succeed({
    ...(lang === undefined ? {} : { language: lang }),
    ...(units === undefined ? {} : { units: units as Voice["units"] })
  })
}

export const layer = Layer.mergeAll(AuthLive, UsersLive)
