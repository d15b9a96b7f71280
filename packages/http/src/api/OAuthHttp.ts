/**
 * The sign-in and linking routes (docs/api.md "Accounts and sign-in"). Checks run in
 * this order — unknown provider (404), then the session where one is needed (401), then an
 * unconfigured provider (`unavailable`) — so they live in the handlers, not in a middleware.
 */
import { Cookies, HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  AccountResolution,
  accountRedirect as accountLocation,
  Languages,
  type Outcome,
  type ProviderName,
  Providers,
  SignIn,
  type User
} from "@climate-grade/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { API_PREFIX, Api } from "./Api.js"
import { optionalUser } from "./AuthenticationLive.js"
import { sessionCookie, withCookies } from "./Cookies.js"
import { BadRequest, Conflict, NotFound, Unauthorized } from "./Errors.js"
import { HttpSettings } from "./HttpSettings.js"
import { host, scheme } from "../protocol/RequestInfo.js"

const unknownProvider = new NotFound({ detail: "Unknown provider.", code: "not-found" })

const knownProvider = (name: string) =>
  Option.match(Providers.parseName(name), {
    onNone: () => Effect.fail(unknownProvider),
    onSome: (provider) => Effect.succeed(provider)
  })

const bindingCookieName = (provider: ProviderName) => `oauth_tx_${provider}`

/**
 * The browser's way to the provider: its configured authorize endpoint (which may carry query
 * parameters of its own) with the parameters the core decided, set in the core's order.
 */
export const authorizeLocation = (authorizeUrl: string, params: Readonly<Record<string, string>>): string => {
  const url = new URL(authorizeUrl)
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value)
  return url.href
}

export const make = Effect.gen(function* () {
  const settings = yield* HttpSettings
  const providers = yield* Providers.ProviderSettings
  const bindingPath = `${settings.basePath}${API_PREFIX}`

  const bindingCookie = (request: HttpServerRequest.HttpServerRequest, provider: ProviderName, value: string, maxAge: Duration.Duration) =>
    Cookies.unsafeMakeCookie(bindingCookieName(provider), value, {
      httpOnly: true,
      sameSite: "lax",
      path: bindingPath,
      maxAge,
      secure: scheme(request, settings) === "https"
    })

  const redirectUri = (request: HttpServerRequest.HttpServerRequest, provider: ProviderName) =>
    Providers.redirectUri({
      provider,
      basePath: settings.basePath,
      publicOrigin: settings.publicOrigin,
      requestOrigin: () => `${scheme(request, settings)}://${host(request)}`
    })

  const redirect = (location: string) => HttpServerResponse.redirect(location, { status: 303 })

  const accountRedirect = (provider: ProviderName, outcome: Outcome) =>
    redirect(accountLocation(settings.basePath, provider, outcome))

  const start = (provider: ProviderName, user: Option.Option<User>) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const decision = yield* SignIn.start({
        provider,
        user,
        redirectUri: redirectUri(request, provider),
        voice: startVoice(request)
      })
      return decision._tag === "Unavailable"
        ? accountRedirect(provider, decision.outcome)
        : redirect(authorizeLocation(settings.providers[provider].authorizeUrl, decision.params)).pipe(
            withCookies(bindingCookie(request, provider, decision.binding, Duration.seconds(SignIn.BINDING_MAX_AGE_SECONDS)))
          )
    })

  const requireUser = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.flatMap(optionalUser(request), (user) =>
      Option.match(user, { onNone: () => Effect.fail(Unauthorized.default), onSome: Effect.succeed })
    )
  )

  const linkStart = (provider: ProviderName) => Effect.flatMap(requireUser, (user) => start(provider, Option.some(user)))

  const loginStart = (provider: ProviderName) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      // Signed in: the same as link/start.
      return yield* start(provider, yield* optionalUser(request))
    })

  const callback = (
    provider: ProviderName,
    query: { readonly code?: string | undefined; readonly state?: string | undefined }
  ) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const outcome = yield* SignIn.callback({
        provider,
        code: query.code,
        state: query.state,
        binding: request.cookies[bindingCookieName(provider)],
        redirectUri: redirectUri(request, provider),
        sessionUser: optionalUser(request)
      })
      // The binding cookie has served its purpose whatever the outcome.
      const response = accountRedirect(provider, outcome).pipe(
        withCookies(bindingCookie(request, provider, "", Duration.zero))
      )
      return SignIn.signsIn(outcome) ? response.pipe(withCookies(sessionCookie(request, settings, outcome.session.token))) : response
    })

  const unlink = (provider: ProviderName) =>
    Effect.gen(function* () {
      const user = yield* requireUser
      const outcome = yield* AccountResolution.unlink(user, provider)
      if (outcome === "last-link") {
        return yield* new Conflict({ detail: AccountResolution.lastLinkDetail(settings.providers[provider].label), code: "last-sign-in" })
      }
      return HttpServerResponse.empty({ status: 204 })
    })

  const chatDm = Effect.gen(function* () {
    const user = yield* requireUser
    const request = yield* HttpServerRequest.HttpServerRequest
    const enabled = yield* readEnabled(request)
    const result = yield* AccountResolution.setChatDm(user, enabled)
    return yield* Option.match(result, {
      onNone: () => Effect.fail(new Conflict({ detail: AccountResolution.notLinkedDetail(settings.providers.chat.label), code: "chat-not-linked" })),
      onSome: (chatDm) => Effect.succeed({ chat_dm: chatDm })
    })
  })

  return { linkStart, loginStart, callback, unlink, chatDm, config: providers, pages: settings.providers }
})

/**
 * The language and units of the page a sign-in starts from: its `lang=` (the site's sign-in links
 * add the page's), else `Accept-Language`'s best, else English, as a page would choose (the choice
 * kept in the browser is the page's own, sent as `lang=`); `units=metric|imperial` when given.
 * Values that name no language or units are ignored, as a page ignores them.
 */
export const startVoice = (request: HttpServerRequest.HttpServerRequest) => {
  const query = new URL(request.url, "http://x").searchParams
  const units = query.get("units")
  return {
    language: Languages.choose({ query: query.get("lang"), acceptLanguage: request.headers["accept-language"] }),
    units: units === "metric" || units === "imperial" ? units : null
  } as const
}

/** The optional body of `POST /chat/dm`: none toggles; `{"enabled": boolean}` sets. */
const readEnabled = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const text = yield* Effect.orElseSucceed(request.text, () => "")
    if (text.trim() === "") return Option.none<boolean>()
    const parsed = yield* Effect.try(() => JSON.parse(text) as unknown).pipe(Effect.orElseFail(() => badDmBody))
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      const value = (parsed as { enabled?: unknown }).enabled
      if (value === undefined) return Option.none<boolean>()
      if (typeof value === "boolean") return Option.some(value)
    }
    return yield* badDmBody
  })

const badDmBody = new BadRequest({ detail: 'The body must be empty (toggle) or {"enabled": true|false}.', code: "invalid-body" })

export const layer = HttpApiBuilder.group(Api, "oauth", (handlers) =>
  Effect.map(make, (routes) =>
    handlers
      .handle("config", () =>
        Effect.succeed({
          providers: Providers.names.map((name) => ({
            name,
            label: routes.pages[name].label,
            enabled: routes.config[name].enabled
          }))
        })
      )
      .handle("linkStart", ({ path }) => Effect.flatMap(knownProvider(path.provider), routes.linkStart))
      .handle("loginStart", ({ path }) => Effect.flatMap(knownProvider(path.provider), routes.loginStart))
      .handle("callback", ({ path, urlParams }) =>
        Effect.flatMap(knownProvider(path.provider), (provider) => routes.callback(provider, urlParams))
      )
      .handle("unlink", ({ path }) => Effect.flatMap(knownProvider(path.provider), routes.unlink))
      .handle("chatLinkStart", () => routes.linkStart("chat"))
      .handle("chatLoginStart", () => routes.loginStart("chat"))
      .handle("chatCallback", ({ urlParams }) => routes.callback("chat", urlParams))
      .handle("chatUnlink", () => routes.unlink("chat"))
      .handle("chatDm", () => routes.chatDm)
  )
)
