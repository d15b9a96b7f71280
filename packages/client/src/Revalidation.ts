/**
 * What an answer means for a cached view or bundle, from its status
 * and whether a copy is stored: a plain decision the client acts on.
 */
import { Refusal } from "@climate-grade/core/rules"

export type Outcome =
  /** 200: the body is stored and answered. */
  | "network"
  /** 304 to a conditional request: the stored body is kept, its times touched. */
  | "revalidated"
  /** 304 with nothing stored (the server matched something the client does not hold): ask once more, unconditionally. */
  | "refetch"
  /** 4xx that refuses the request itself: the call rejects and nothing stays stored under the key. */
  | "rejected"
  /**
   * No usable answer (network failure, timeout, 5xx, an unknown status or body, or a refusal whose
   * code says to wait: core `Refusal.WAITS`), but a copy is stored: it is answered as it is.
   */
  | "stale"
  /** The same with nothing stored: the call rejects. */
  | "failed"

/** An answer the client cannot use: the stored copy if there is one, else a rejection. */
export const fallback = (stored: boolean): "stale" | "failed" => (stored ? "stale" : "failed")

/**
 * `status` is null when no answer came (the request failed, timed out or was cut off). `stored`: a
 * copy is held under the key (and its ETag went out as If-None-Match). `retried`: this was the
 * unconditional request after a 304 with nothing stored, which is asked only once. `code`: the
 * refusal's code, which decides whether a 4xx refuses the request (rejected) or asks for a wait
 * (a 429's `client-share-spent`, `cold-cells-busy`, `too-many-requests`: the stored copy stands).
 */
export const outcome = (status: number | null, stored: boolean, retried: boolean, code: Refusal.Code | null = null): Outcome => {
  if (status === 200) return "network"
  if (status === 304) return stored ? "revalidated" : retried ? "failed" : "refetch"
  if (status !== null && status >= 400 && status < 500 && !Refusal.isWait(code)) return "rejected"
  return fallback(stored)
}
