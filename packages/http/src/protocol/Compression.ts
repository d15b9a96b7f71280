/**
 * gzip for responses of 1024 bytes or more (docs/api.md "Common rules"), as a middleware over node:zlib
 * (Effect 3's platform has none). Data payloads are compressed once by `encode` and served by
 * `precompressed`, passing the middleware untouched; the response index keeps both forms of a
 * hot answer, so a replay from memory never compresses again.
 */
import { promisify } from "node:util"
import { gzip as gzipCallback } from "node:zlib"
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"
import { VARY } from "./ConditionalGet.js"
import { acceptsGzip } from "./ContentNegotiation.js"

export const THRESHOLD = 1024

const gzipAsync = promisify(gzipCallback)

/** Level 6 (zlib's default): most of level 9's ratio at a fraction of its time. */
export const gzipBytes = (bytes: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.promise(() => gzipAsync(bytes, { level: 6 })).pipe(Effect.map((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)))

/** `Vary` with Accept-Encoding added once. */
const varyWith = (existing: string | undefined): string => {
  const parts = (existing ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
  return parts.some((p) => p.toLowerCase() === VARY.toLowerCase()) ? parts.join(", ") : [...parts, VARY].join(", ")
}

/** A JSON body in the forms it may be served in: its gzip only when it is large enough to be sent compressed. */
export interface Encoded {
  readonly json: Uint8Array
  readonly gzip: Uint8Array | null
}

/**
 * The forms of a JSON body. The payload store holds only the JSON (compression is this adapter's
 * business), so a payload built now or read back from the store is compressed here, once per
 * answer that reaches the app: ~1.1 ms at level 6 for a 24-month calendar (29 KB → 9 KB).
 */
export const encode = (json: Uint8Array): Effect.Effect<Encoded> =>
  json.byteLength < THRESHOLD ? Effect.succeed({ json, gzip: null }) : Effect.map(gzipBytes(json), (gzip) => ({ json, gzip }))

/** Whether to send `body`'s gzip: it has one (it is large enough) and the request admits it. */
export const sendsGzip = (body: Encoded, acceptEncoding: string | undefined): body is Encoded & { readonly gzip: Uint8Array } =>
  body.gzip !== null && body.json.byteLength >= THRESHOLD && acceptsGzip(acceptEncoding)

/** A body already held in both forms: gzip when the request admits it and the body is large enough. */
export const precompressed = (
  request: HttpServerRequest.HttpServerRequest,
  body: Encoded,
  headers: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse => {
  const compress = sendsGzip(body, request.headers["accept-encoding"])
  return HttpServerResponse.uint8Array(compress ? body.gzip : body.json, {
    status: 200,
    contentType: "application/json",
    headers: { ...headers, vary: varyWith(headers.vary), ...(compress ? { "content-encoding": "gzip" } : {}) }
  })
}

const ALREADY_COMPRESSED = /^image\/(png|jpeg|webp|gif)/

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
        response.headers["content-encoding"] !== undefined ||
        // A PNG (the card) is compressed already: gzip would cost time and save nothing.
        ALREADY_COMPRESSED.test(body.contentType)
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
