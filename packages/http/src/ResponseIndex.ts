/**
 * Answers to data requests, kept for the short time their ETag provably cannot change (the plan's
 * `validUntil`: at most a minute, never past a refresh or the cell's local midnight), so that the
 * hot path — a client revalidating what it holds, or asking again for a stored payload — is
 * answered before the request enters the Effect pipeline, at close to a bare server's speed.
 * Anything not held, expired or not matching goes through the full pipeline as usual.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Lru } from "@climate-grade/core"
import * as Context from "effect/Context"
import { CACHE_CONTROL, ifNoneMatchMatches, VARY } from "./ConditionalGet.js"
import { type Encoded, sendsGzip } from "./Compression.js"

export interface Held {
  readonly etag: string
  readonly validUntil: number
  /** The full answer in both forms, when it was served (not for a 304). */
  readonly body?: Encoded
}

export interface Index {
  /** Keyed by the request line's URL exactly as received. */
  readonly remember: (url: string, held: Held) => void
  readonly lookup: (url: string, now: number) => Held | undefined
  /**
   * The body last served for `url` under `etag`, even once its validity has ended: the same ETag
   * means the same bytes (the token covers whatever changes them), so a replay through the app
   * reuses its gzip instead of compressing again.
   */
  readonly encoded: (url: string, etag: string) => Encoded | undefined
}

export class ResponseIndex extends Context.Tag("@climate-grade/http/ResponseIndex")<ResponseIndex, Index>() {}

const sizeOf = (held: Held | undefined) =>
  held?.body === undefined ? 0 : held.body.json.byteLength + (held.body.gzip?.byteLength ?? 0)

export interface Options {
  /** Entries held at most. */
  readonly capacity?: number
  /** Bytes of bodies held at most. */
  readonly maxBytes?: number
  /** What `remember` takes as now: an answer already past its validity is not remembered. */
  readonly clock?: () => number
}

/**
 * Bounded both in entries and in the bytes of the bodies it holds; the least recently
 * remembered goes first (a lookup does not reorder: hot answers are remembered again on each
 * rebuild or revalidation that reaches the app).
 */
export const make = ({ capacity = 10_000, clock = Date.now, maxBytes = 64 * 1024 * 1024 }: Options = {}): Index => {
  const entries = Lru.make<string, Held>({ capacity, maxWeight: maxBytes, weigh: sizeOf })
  return {
    remember: (url, held) => {
      if (held.validUntil <= clock()) return
      const previous = entries.peek(url)
      // A revalidation (no body) must not drop the body a previous answer left.
      const body = held.body ?? (previous?.etag === held.etag ? previous.body : undefined)
      entries.set(url, body === undefined ? held : { ...held, body })
    },
    // An expired entry stays (bounded like the rest) for `encoded`; it is never answered from.
    lookup: (url, now) => {
      const held = entries.peek(url)
      return held === undefined || held.validUntil <= now ? undefined : held
    },
    encoded: (url, etag) => {
      const held = entries.peek(url)
      return held?.etag === etag ? held.body : undefined
    }
  }
}

/**
 * Answers a request from the index when it can; false when the request must go to the app.
 * The answers are byte for byte what the app would send.
 */
export const answer = (index: Index, req: IncomingMessage, res: ServerResponse): boolean => {
  if (req.method !== "GET" || req.url === undefined) return false
  const held = index.lookup(req.url, Date.now())
  if (held === undefined) return false
  const headers = { etag: held.etag, "cache-control": CACHE_CONTROL, vary: VARY }
  if (ifNoneMatchMatches(req.headers["if-none-match"], held.etag)) {
    res.writeHead(304, headers)
    res.end()
    return true
  }
  if (held.body === undefined) return false
  const gzip = sendsGzip(held.body, req.headers["accept-encoding"])
  const bytes = gzip ? held.body.gzip : held.body.json
  res.writeHead(200, {
    ...headers,
    "content-type": "application/json",
    "content-length": String(bytes.byteLength),
    ...(gzip ? { "content-encoding": "gzip" } : {})
  })
  res.end(bytes)
  return true
}
