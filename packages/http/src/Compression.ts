/**
 * gzip for responses of 1024 bytes or more (CONTRACT.md §6), as a middleware over node:zlib
 * (Effect 3's platform has none). Payloads stored with their gzip are served by `precompressed`
 * and pass through untouched, so a replay never compresses again.
 */
import { promisify } from "node:util"
import { gzip as gzipCallback } from "node:zlib"
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"
import { VARY } from "./ConditionalGet.js"
import { acceptsGzip } from "./ContentNegotiation.js"

export const THRESHOLD = 1024

const gzipAsync = promisify(gzipCallback)

/** Level 6 (zlib's default): most of level 9's ratio at a fraction of its time; stored payloads pay it once. */
export const gzipBytes = (bytes: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.promise(() => gzipAsync(bytes, { level: 6 })).pipe(Effect.map((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)))

/** `Vary` with Accept-Encoding added once. */
const varyWith = (existing: string | undefined): string => {
  const parts = (existing ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
  return parts.some((p) => p.toLowerCase() === VARY.toLowerCase()) ? parts.join(", ") : [...parts, VARY].join(", ")
}

/** A body already held in both forms: gzip when the request admits it and the body is large enough. */
export const precompressed = (
  request: HttpServerRequest.HttpServerRequest,
  body: { readonly json: Uint8Array; readonly gzip: Uint8Array },
  headers: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse => {
  const compress = body.json.byteLength >= THRESHOLD && acceptsGzip(request.headers["accept-encoding"])
  return HttpServerResponse.uint8Array(compress ? body.gzip : body.json, {
    status: 200,
    contentType: "application/json",
    headers: { ...headers, vary: varyWith(headers.vary), ...(compress ? { "content-encoding": "gzip" } : {}) }
  })
}

/** Compresses what the app answers, when it is worth it and the client admits gzip. */
export const middleware = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.flatMap(app, (response) => {
      const body = response.body
      if (
        request.method === "HEAD" ||
        response.status === 204 ||
        response.status === 304 ||
        body._tag !== "Uint8Array" ||
        response.headers["content-encoding"] !== undefined
      ) {
        return Effect.succeed(response)
      }
      const vary = varyWith(response.headers.vary)
      if (body.body.byteLength < THRESHOLD || !acceptsGzip(request.headers["accept-encoding"])) {
        return Effect.succeed(HttpServerResponse.setHeader(response, "vary", vary))
      }
      return Effect.map(gzipBytes(body.body), (gzipped) =>
        HttpServerResponse.uint8Array(gzipped, {
          status: response.status,
          contentType: body.contentType,
          headers: { ...response.headers, vary, "content-encoding": "gzip" },
          cookies: response.cookies
        })
      )
    })
  )
