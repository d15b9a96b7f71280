/**
 * Refuses state-changing browser requests sent from another site (a form or script on
 * evil.example posting to /auth/login, /auth/logout, /oauth/…/unlink, /chat/dm, …), which the
 * browser would otherwise send with the `session` cookie (SameSite=Lax stops cross-site POSTs from
 * carrying the cookie in current browsers, but not login CSRF, and not older browsers).
 *
 * Browsers say where a request comes from: `Sec-Fetch-Site` (Fetch Metadata) and `Origin`. A
 * request that carries neither is not a browser's (curl, scripts, native apps) and passes, as
 * does one authenticated by `Authorization: Bearer` (a page on another site cannot set that
 * header without a CORS preflight, which this service never grants). Safe methods (GET, HEAD,
 * OPTIONS) change nothing and pass.
 */
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Refusal } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { host } from "../protocol/RequestInfo.js"

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

export interface RequestFacts {
  readonly method: string
  readonly origin: string | undefined
  readonly secFetchSite: string | undefined
  readonly authorization: string | undefined
  /** The `Host` header (or the address the request reached). */
  readonly host: string
}

/** Whether `origin` is this service: PUBLIC_ORIGIN when configured, else the request's Host. */
const sameOrigin = (origin: string, publicOrigin: Option.Option<string>, requestHost: string): boolean => {
  if (!URL.canParse(origin)) return false
  const claimed = new URL(origin)
  if (Option.isSome(publicOrigin)) return claimed.origin === new URL(publicOrigin.value).origin
  // The scheme is not compared: behind a TLS-terminating proxy the server cannot tell it.
  const own = `${claimed.protocol}//${requestHost}`
  return URL.canParse(own) && new URL(own).host === claimed.host
}

/** The reason to refuse the request, if it is a browser's state-changing request from another site. */
export const refusal = (facts: RequestFacts, publicOrigin: Option.Option<string>): Option.Option<string> => {
  if (SAFE_METHODS.has(facts.method)) return Option.none()
  if (/^Bearer\s+\S/i.test(facts.authorization ?? "")) return Option.none()
  const site = facts.secFetchSite?.trim().toLowerCase()
  if (site === "cross-site") {
    return Option.some("Cross-site request refused: this request was sent by a page on another site (Sec-Fetch-Site).")
  }
  const origin = facts.origin?.trim()
  if (origin !== undefined && origin !== "" && !sameOrigin(origin, publicOrigin, facts.host)) {
    return Option.some(`Cross-site request refused: Origin ${JSON.stringify(origin.slice(0, 200))} is not this site.`)
  }
  return Option.none()
}

export const factsOf = (request: HttpServerRequest.HttpServerRequest): RequestFacts => ({
  method: request.method,
  origin: request.headers.origin,
  secFetchSite: request.headers["sec-fetch-site"],
  authorization: request.headers.authorization,
  host: host(request)
})

/**
 * Middleware over the whole application, so every state-changing route (today's and those
 * added later, e.g. the alert watches) is covered without each opting in: 403 with a detail.
 */
export const guard =
  (publicOrigin: Option.Option<string>) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      Option.match(refusal(factsOf(request), publicOrigin), {
        onNone: () => app,
        onSome: (detail) => Effect.succeed(HttpServerResponse.unsafeJson(Refusal.body("forbidden", detail), { status: 403 }))
      })
    )
