/**
 * Bounded request bodies, so no client can make the server buffer or parse without limit. The
 * API takes JSON bodies only, of at most 64 KB:
 * - before anything is read, a body that is not `application/json` is refused (415: no form or
 *   multipart parsing, no temporary files) and a `Content-Length` over the limit is refused (413);
 * - a body sent without a length (chunked) is counted as it streams and refused (413) as soon as it
 *   passes the limit, so at most one chunk beyond 64 KB is ever held;
 * - what was read is checked for nesting before anything recursive walks it (400), parsed once
 *   (400 when it is not JSON), its strings checked for text no query can store (400,
 *   StorableInput) and handed to the handlers as the request's body.
 * What a refused client still sends is read and thrown away (up to a cap, then the connection is
 * closed), so the client reads its 4xx instead of a reset connection.
 */
import type { IncomingMessage } from "node:http"
import { HttpServerError, HttpServerRequest, HttpServerResponse, type HttpApp, UrlParams } from "@effect/platform"
import { Refusal } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as StorableInput from "../api/StorableInput.js"

export const MAX_BYTES = 64 * 1024
/** How deep arrays and objects may nest; the API's bodies need 2. */
export const MAX_DEPTH = 32
/** What is read and discarded after a refusal before the connection is cut instead. */
const DISCARD_BYTES = 1024 * 1024

const BODY_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"])

export interface BodyRefusal {
  readonly status: number
  readonly code: Refusal.Code
  readonly detail: string
}

export const tooLarge: BodyRefusal = {
  status: 413,
  code: "payload-too-large",
  detail: `The request body is larger than ${MAX_BYTES} bytes (64 KB).`
}

const mediaType = (header: string | undefined) => header?.split(";", 1)[0]?.trim().toLowerCase()

const hasBody = (req: IncomingMessage) =>
  req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? "0") > 0

/** What can be refused from the headers alone, before any byte of the body is read. */
export const precheck = (req: IncomingMessage): BodyRefusal | undefined => {
  if (!BODY_METHODS.has(req.method ?? "")) return undefined
  const type = mediaType(req.headers["content-type"])
  if ((type !== undefined && type !== "application/json") || (type === undefined && hasBody(req))) {
    return {
      status: 415,
      code: "unsupported-media-type",
      detail: `Request bodies must be JSON: send Content-Type: application/json${type === undefined ? "" : `, not ${type}`}.`
    }
  }
  const length = Number(req.headers["content-length"] ?? "0")
  if (length > MAX_BYTES) return tooLarge
  return undefined
}

/** Reads and drops what the client still sends after a refusal, up to a cap; past it, closes the connection. */
export const discardRest = (req: IncomingMessage): void => {
  let dropped = 0
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length
    if (dropped > DISCARD_BYTES) req.socket.destroy()
  })
  req.resume()
}

/** The deepest nesting of arrays and objects in a JSON text, without parsing it (so without recursion). */
export const nestingDepth = (text: string): number => {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // a backslash escapes the next character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      depth++
      if (depth > deepest) deepest = depth
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return deepest
}

/** The whole body, or "too-large" as soon as it passes `MAX_BYTES` (the rest is then discarded). */
const readBounded = (req: IncomingMessage) =>
  Effect.async<Buffer | "too-large", Error>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const cleanup = () => {
      req.off("data", onData)
      req.off("end", onEnd)
      req.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BYTES) {
        cleanup()
        chunks.length = 0
        discardRest(req)
        resume(Effect.succeed("too-large"))
      } else chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed(Buffer.concat(chunks)))
    }
    const onError = (error: Error) => {
      cleanup()
      resume(Effect.fail(error))
    }
    req.on("data", onData)
    req.on("end", onEnd)
    req.on("error", onError)
    return Effect.sync(cleanup)
  })

const refuse = (status: number, code: Refusal.Code, detail: string) =>
  HttpServerResponse.unsafeJson(Refusal.body(code, detail), { status })

/** The request, with its body already read and parsed: the handlers and the API's decoding read these. */
const withBody = (request: HttpServerRequest.HttpServerRequest, bytes: Buffer, text: string, json: unknown) => {
  const readError = (cause: unknown) => new HttpServerError.RequestError({ request, reason: "Decode", cause })
  const fields: Record<string, unknown> = {
    text: Effect.succeed(text),
    json: Effect.succeed(json),
    arrayBuffer: Effect.succeed(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)),
    urlParamsBody: Effect.try({ try: () => UrlParams.fromInput(new URLSearchParams(text)), catch: readError }),
    stream: Stream.succeed(new Uint8Array(bytes))
  }
  // Everything else (headers, cookies, url, method, remote address) is the original request's.
  return Object.create(
    request,
    Object.fromEntries(Object.entries(fields).map(([k, value]) => [k, { value, enumerable: true }]))
  ) as HttpServerRequest.HttpServerRequest
}

/**
 * Reads a JSON body within the limits before the app sees the request. Must run on the request the
 * router will see (inside the `BASE_PATH` mount): `modify` makes a fresh request without this body.
 */
export const middleware = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const source = request.source as IncomingMessage
    if (!BODY_METHODS.has(request.method) || !hasBody(source)) return app
    return Effect.flatMap(Effect.either(readBounded(source)), (read) => {
      if (read._tag === "Left") return Effect.succeed(refuse(400, "bad-request", "The request body could not be read."))
      if (read.right === "too-large") return Effect.succeed(refuse(tooLarge.status, tooLarge.code, tooLarge.detail))
      const bytes = read.right
      const text = bytes.toString("utf8")
      if (nestingDepth(text) > MAX_DEPTH) {
        return Effect.succeed(refuse(400, "invalid-body", `The JSON body nests arrays or objects deeper than ${MAX_DEPTH} levels.`))
      }
      let json: unknown = null
      if (text.trim() !== "") {
        try {
          json = JSON.parse(text)
        } catch {
          return Effect.succeed(refuse(400, "invalid-body", "The request body could not be read: expected valid JSON."))
        }
      }
      // Text no query could store as sent: refused here, for every route that takes a body.
      const unstorable = StorableInput.bodyRefusal(json)
      if (unstorable !== undefined) return Effect.succeed(refuse(400, "invalid-text", unstorable))
      return Effect.provideService(app, HttpServerRequest.HttpServerRequest, withBody(request, bytes, text, json))
    })
  })
