/**
 * The pages and static assets the service serves itself — the API docs page and the OpenAPI
 * document — revalidate like everything else: `Cache-Control: no-cache`, a weak
 * ETag from their bytes, and an empty 304 on a match, so an unchanged page costs nothing.
 * The platform builds their responses once and reuses them, so each body is hashed once.
 */
import { createHash } from "node:crypto"
import { Crypto } from "@climate-grade/core"
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"
import { API_PREFIX } from "../api/ApiPrefix.js"
import { CACHE_CONTROL, ifNoneMatchMatches, notModified, weakEtag } from "../protocol/ConditionalGet.js"
import { CONTENT_SECURITY_POLICY } from "./SecurityHeaders.js"

export const PAGE_PATHS: ReadonlySet<string> = new Set([`${API_PREFIX}/docs`, `${API_PREFIX}/openapi.json`])

const etags = new WeakMap<Uint8Array, string>()

const etagOf = (body: Uint8Array): string => {
  let etag = etags.get(body)
  if (etag === undefined) {
    etag = weakEtag(Crypto.contentToken(body))
    etags.set(body, etag)
  }
  return etag
}

const DOCS_PATH = `${API_PREFIX}/docs`

const policies = new WeakMap<Uint8Array, string>()

/**
 * The docs page's own policy: the site's, but for its inline script and style sheet, allowed by
 * their hashes, for this page only.
 */
export const docsPolicy = (html: Uint8Array): string => {
  let policy = policies.get(html)
  if (policy === undefined) {
    const text = new TextDecoder().decode(html)
    const hashes = (tag: string) =>
      [...text.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))]
        .map((match) => ` 'sha256-${createHash("sha256").update(match[1]!).digest("base64")}'`)
        .join("")
    policy = CONTENT_SECURITY_POLICY.replace("script-src 'self'", `script-src 'self'${hashes("script")}`).replace(
      "style-src 'self'",
      `style-src 'self'${hashes("style")}`
    )
    policies.set(html, policy)
  }
  return policy
}

const revalidated = (
  request: HttpServerRequest.HttpServerRequest,
  path: string,
  response: HttpServerResponse.HttpServerResponse
) => {
  if (response.status !== 200 || response.body._tag !== "Uint8Array") return response
  const etag = etagOf(response.body.body)
  // A 304 carries the policy too: a browser updates the stored page's headers from it.
  const policy: Record<string, string> =
    path === DOCS_PATH ? { "content-security-policy": docsPolicy(response.body.body) } : {}
  if (ifNoneMatchMatches(request.headers["if-none-match"], etag)) {
    return HttpServerResponse.setHeaders(notModified(etag), policy)
  }
  return HttpServerResponse.setHeaders(response, { etag, "cache-control": CACHE_CONTROL, ...policy })
}

export const middleware = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const path = request.url.split("?", 1)[0]!
    if ((request.method !== "GET" && request.method !== "HEAD") || !PAGE_PATHS.has(path)) return app
    return Effect.map(app, (response) => revalidated(request, path, response))
  })
