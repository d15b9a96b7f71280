/**
 * The HTTP port: one GET, conditional when an ETag is given. The adapter is plain `fetch`, not
 * `@effect/platform`'s FetchHttpClient: measured in a minified browser bundle, FetchHttpClient adds
 * ~25 KB gzip for nothing this client uses (docs/architecture.md).
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

export interface HttpAnswer {
  readonly status: number
  readonly etag: string | null
  /** The parsed JSON body of a 200; the text of a 4xx (for its `detail`); otherwise undefined. */
  readonly body: unknown
}

/** The request never got an answer: connection refused, reset, aborted by the timeout, a broken body. */
export class NetworkError extends Data.TaggedError("NetworkError")<{ readonly url: string; readonly cause: unknown }> {
  override get message() {
    return `Request to ${this.url} failed: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

export interface Http {
  readonly get: (url: string, etag: string | null) => Effect.Effect<HttpAnswer, NetworkError>
}

export class HttpPort extends Context.Tag("@climate-grade/client/HttpPort")<HttpPort, Http>() {}

/**
 * `fetch` with `cache: "no-store"`, so a browser's own HTTP cache never answers for the server (the
 * client keeps its copies and revalidates them itself). Interrupting the effect aborts the request
 * (Effect.tryPromise's signal); the timeout is such an interruption.
 */
export const fromFetch = (fetchFn: typeof fetch, timeout: Duration.DurationInput): Http => ({
  get: (url, etag) =>
    Effect.tryPromise({
      try: async (signal) => {
        const headers: Record<string, string> = { accept: "application/json" }
        if (etag !== null) headers["if-none-match"] = etag
        const response = await fetchFn(url, { method: "GET", headers, cache: "no-store", signal })
        let body: unknown
        if (response.status === 200) body = await response.json()
        else if (response.status >= 400 && response.status < 500) body = await response.text()
        else await response.body?.cancel() // nothing to read: free the connection
        return { status: response.status, etag: response.headers.get("etag"), body }
      },
      catch: (cause) => new NetworkError({ url, cause })
    }).pipe(
      Effect.timeoutFail({
        duration: timeout,
        onTimeout: () => new NetworkError({ url, cause: `no answer within ${Duration.format(timeout)}` })
      })
    )
})
