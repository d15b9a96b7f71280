/**
 * The pages and static assets the service serves itself — the API docs page and the OpenAPI
 * document — revalidate like everything else (CONTRACT.md §6): `Cache-Control: no-cache`, a weak
 * ETag from their bytes, and an empty 304 on a match, so an unchanged 3 MB docs page costs nothing.
 * The platform builds their responses once and reuses them, so each body is hashed once.
 */
import { createHash } from "node:crypto"
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"
import { API_PREFIX } from "./Api.js"
import { CACHE_CONTROL, ifNoneMatchMatches, notModified, weakEtag } from "./ConditionalGet.js"

export const PAGE_PATHS: ReadonlySet<string> = new Set([`${API_PREFIX}/docs`, `${API_PREFIX}/openapi.json`])

const etags = new WeakMap<Uint8Array, string>()

const etagOf = (body: Uint8Array): string => {
  let etag = etags.get(body)
  if (etag === undefined) {
    etag = weakEtag(createHash("sha256").update(body).digest("hex").slice(0, 32))
    etags.set(body, etag)
  }
  return etag
}

const revalidated = (request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) => {
  if (response.status !== 200 || response.body._tag !== "Uint8Array") return response
  const etag = etagOf(response.body.body)
  if (ifNoneMatchMatches(request.headers["if-none-match"], etag)) return notModified(etag)
  return HttpServerResponse.setHeaders(response, { etag, "cache-control": CACHE_CONTROL })
}

export const middleware = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const path = request.url.split("?", 1)[0]!
    if ((request.method !== "GET" && request.method !== "HEAD") || !PAGE_PATHS.has(path)) return app
    return Effect.map(app, (response) => revalidated(request, response))
  })
