/** What every upstream call shares: a timeout, and failures mapped to the core's errors. */
import type { HttpClient, HttpClientRequest } from "@effect/platform"
import { ErrorCause, RateLimited, RetryAfter, UpstreamFailure, UpstreamTimeout } from "@climate-grade/core"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** When an upstream does not say how long to wait. */
export const DEFAULT_RETRY_AFTER_SECONDS = 60

/** `Retry-After` as seconds (the core's reading), else the default. */
export const retryAfterSeconds = (header: string | undefined, now: number): number =>
  RetryAfter.seconds(header, now) ?? DEFAULT_RETRY_AFTER_SECONDS

/** A short reason from an error body: Open-Meteo's `{"reason"}`, Nominatim's `{"error"}`, or nothing. */
const reasonOf = (body: unknown): string | undefined => {
  if (typeof body !== "object" || body === null) return undefined
  const { error, reason } = body as { reason?: unknown; error?: unknown }
  return typeof reason === "string" ? reason : typeof error === "string" ? error : undefined
}

/** The first `code` (ENOTFOUND, ECONNREFUSED, UND_ERR_…) and message down an error's cause chain. */
export const causeOf = (error: unknown): { readonly code: string | undefined; readonly message: string | undefined } => {
  const chain = ErrorCause.chain(error, 5)
  const messages = chain.flatMap((e) => (typeof e.message === "string" && e.message !== "" ? [e.message] : []))
  return { code: ErrorCause.find(error, "code", 5), message: messages[messages.length - 1] }
}

/** The transport's code and message, kept on the error for the log line only (it may name internal addresses). */
const detailKey = Symbol.for("@climate-grade/weather/Upstream/transport")

const hostOf = (url: string): string => (URL.canParse(url) ? new URL(url).host : url)

/** "ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1": the code (else the client's reason) and the message. */
const transport = (cause: unknown, fallback: string): string => {
  const { code, message } = causeOf(cause)
  const name = code ?? fallback
  return message === undefined || message === name ? name : `${name}: ${message}`
}

/** What a transport failure's reason says: the error's detail reaches clients, so plain words only. */
export const UNREACHABLE = "it could not be reached"
export const CUT_OFF = "its answer was cut off"

/**
 * Sends one request and returns its JSON body, or the core's error: 429/503 → RateLimited,
 * no answer within `timeout` → UpstreamTimeout, anything else → UpstreamFailure. A failure is
 * logged here, once, with the host and the transport's error code (a DNS failure says ENOTFOUND)
 * and message; the error's reason, which a client reads in a detail, says it in words without
 * the code (a code is for whoever reads the log, and a message may name internal addresses).
 */
export const json = (
  source: string,
  timeout: Duration.DurationInput,
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest
) => read(source, timeout, client, request, parseJson)

const utf8 = new TextDecoder()

/** A body as `JSON.parse` reads it, or undefined when it is not JSON. */
const parseJson = (bytes: Uint8Array): unknown => {
  try {
    return JSON.parse(utf8.decode(bytes))
  } catch {
    return undefined
  }
}

/**
 * `json` with the successful body read by `parse` from its bytes (a reader for one shape, which
 * can skip building what it does not keep); undefined from `parse` means the body is not JSON.
 * Error answers are read as JSON, as in `json`.
 */
export const read = <A>(
  source: string,
  timeout: Duration.DurationInput,
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  parse: (bytes: Uint8Array) => A | undefined
) => {
  const host = hostOf(request.url)
  return client.execute(request).pipe(
    Effect.flatMap((response) =>
      Effect.gen(function* () {
        if (response.status === 429 || response.status === 503) {
          const now = yield* Clock.currentTimeMillis
          return yield* new RateLimited({ source, retryAfterSeconds: retryAfterSeconds(response.headers["retry-after"], now) })
        }
        if (response.status >= 300) {
          const reason = reasonOf(yield* Effect.orElseSucceed(response.json, () => undefined))
          return yield* new UpstreamFailure({
            source,
            reason: `status ${response.status}${reason === undefined ? "" : `: ${reason.slice(0, 200)}`}`
          })
        }
        // The chunks gathered, then joined once (the platform's `arrayBuffer` joins the body so far
        // with each chunk as it comes: ~50 copies of a growing buffer for an 85-year archive).
        const chunks = yield* Effect.mapError(Stream.runCollect(response.stream), () => new UpstreamFailure({ source, reason: "the body is not JSON" }))
        const body = parse(Chunk.size(chunks) === 1 ? Chunk.unsafeHead(chunks) : Buffer.concat(Chunk.toReadonlyArray(chunks)))
        if (body === undefined) return yield* new UpstreamFailure({ source, reason: "the body is not JSON" })
        return body
      })
    ),
    Effect.scoped,
    Effect.timeoutFail({ duration: timeout, onTimeout: () => new UpstreamTimeout({ source }) }),
    Effect.catchTags({
      // The reason in words (a client's detail); the code and the transport's message for the log line.
      RequestError: (e) =>
        Effect.fail(Object.assign(new UpstreamFailure({ source, reason: UNREACHABLE }), { [detailKey]: transport(e.cause, e.reason) })),
      ResponseError: (e) =>
        Effect.fail(Object.assign(new UpstreamFailure({ source, reason: CUT_OFF }), { [detailKey]: transport(e.cause, e.reason) }))
    }),
    Effect.tapError((error) => {
      const cause = (error as { [detailKey]?: string | undefined })[detailKey]
      return Effect.logWarning(
        `upstream ${source} (${host}) failed: ${
          error._tag === "RateLimited"
            ? `rate-limited, retry after ${error.retryAfterSeconds} s`
            : error._tag === "UpstreamTimeout"
              ? `no answer within ${Duration.format(timeout)}`
              : error.reason
        }${cause === undefined ? "" : ` (${cause})`}`
      ).pipe(Effect.annotateLogs({ upstream: source, host, error: error._tag }))
    })
  )
}

/**
 * An answer that came but cannot be used (not the expected shape, an error in the body): logged
 * here once, like the transport's failures in `json`, so whoever reports the failure need not.
 */
export const unusable = <A, R>(
  source: string,
  url: string,
  effect: Effect.Effect<A, UpstreamFailure, R>
): Effect.Effect<A, UpstreamFailure, R> =>
  Effect.tapError(effect, (error) =>
    Effect.logWarning(`upstream ${source} (${hostOf(url)}) answered unusably: ${error.reason}`).pipe(
      Effect.annotateLogs({ upstream: source, host: hostOf(url), error: error._tag })
    )
  )
