/**
 * One GET, conditional when an ETag is given, through the `fetch` the client was given: plain
 * `fetch`, `cache: "no-store"` so a browser's own HTTP cache never answers for the server (the
 * client keeps its copies and revalidates them itself). The body is kept as text: whoever needs the
 * payload parses it, and a warm-up that only stores it never does.
 */
import { RetryAfter } from "@climate-grade/core/rules"
import { NetworkError } from "./Errors.js"

export interface Answer {
  readonly status: number
  readonly etag: string | null
  /** The body's text for a 200 and for errors (their `{detail}`); null otherwise (204, 304). */
  readonly text: string | null
  /** Seconds from `Retry-After`, when sent. */
  readonly retryAfter: number | null
  /** When the answer came (epoch ms): what `Retry-After` counts from. */
  readonly receivedAt: number
}

/**
 * Rejects with `NetworkError` when no answer comes (refused, reset, a broken body, or none within
 * the timeout: the request is then aborted), and with `signal.reason` once `signal` aborts.
 */
export type Get = (url: string, etag: string | null, signal: AbortSignal) => Promise<Answer>

export const fromFetch =
  (fetchFn: typeof fetch, timeoutMs: number): Get =>
  async (url, etag, signal) => {
    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, timeoutMs)
    const abort = () => controller.abort()
    signal.addEventListener("abort", abort)
    try {
      if (signal.aborted) throw signal.reason
      const headers: Record<string, string> = { accept: "application/json" }
      if (etag !== null) headers["if-none-match"] = etag
      const response = await fetchFn(url, { method: "GET", headers, cache: "no-store", signal: controller.signal })
      const { status } = response
      let text: string | null = null
      if (status === 200 || status >= 400) text = await response.text()
      else await response.body?.cancel() // nothing to read: free the connection
      const receivedAt = Date.now()
      return {
        status,
        etag: response.headers.get("etag"),
        text,
        retryAfter: RetryAfter.seconds(response.headers.get("retry-after"), receivedAt),
        receivedAt
      }
    } catch (cause) {
      if (signal.aborted) throw signal.reason
      throw new NetworkError({ url, cause: timedOut ? `no answer within ${timeoutMs} ms` : cause })
    } finally {
      clearTimeout(timer)
      signal.removeEventListener("abort", abort)
    }
  }
