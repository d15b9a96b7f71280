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
import { DATA_CACHE_CONTROL, ifNoneMatchMatches, VARY } from "../protocol/ConditionalGet.js"
import { type Encoded, sendsGzip } from "../protocol/Compression.js"
import { HEADER as REQUEST_ID } from "./RequestId.js"
import * as PrebuiltHead from "./PrebuiltHead.js"
import * as SecurityHeaders from "./SecurityHeaders.js"

export interface Held {
  readonly etag: string
  readonly validUntil: number
  /** The full answer in both forms, when it was served (not for a 304). */
  readonly body?: Encoded | undefined
}

/**
 * What the front door works out once per held answer rather than on every request: the answer's
 * fixed headers, and whatever it needs per URL (its metric series, its loggable path).
 */
interface Entry<E> extends Held {
  /** The answer's fixed headers, flat (name, value, …): its caching headers and the front door's own. */
  head: Array<string> | undefined
  /** Those as checked lines (`PrebuiltHead`), for each form of answer, over plain HTTP and over https. */
  lines: Prebuilt | undefined
  edge: E | undefined
}

interface Prebuilt {
  readonly notModified: PrebuiltHead.Lines
  readonly json: PrebuiltHead.Lines
  readonly jsonHttps: PrebuiltHead.Lines
  readonly gzip: PrebuiltHead.Lines
  readonly gzipHttps: PrebuiltHead.Lines
}

export interface Index<E = unknown> {
  /** Keyed by the request line's URL exactly as received. */
  readonly remember: (url: string, held: Held) => void
  readonly lookup: (url: string, now: number) => Entry<E> | undefined
  /**
   * The body last served for `url` under `etag`, even once its validity has ended: the same ETag
   * means the same bytes (the token covers whatever changes them), so a replay through the app
   * reuses its gzip instead of compressing again.
   */
  readonly encoded: (url: string, etag: string) => Encoded | undefined
}

export class ResponseIndex extends Context.Tag("@climate-grade/http/ResponseIndex")<ResponseIndex, Index>() {}

export type { Entry }

/**
 * What an entry holds beside its key, its ETag and its bodies: the object itself, the front
 * door's prebuilt header lines (five forms of about 300 bytes each) and its metric series.
 */
export const ENTRY_OVERHEAD = 2048

/**
 * An entry's bytes: its bodies, its ETag, and its URL twice — the key, and the loggable path the
 * front door keeps beside it (the URL with its values redacted: at most about as long). A URL is
 * ASCII, one byte a character in V8's strings. A client chooses the URL (up to the server's
 * header limit), so it is counted like a body.
 */
export const sizeOf = (held: Held | undefined, url: string) =>
  held === undefined
    ? 0
    : ENTRY_OVERHEAD +
      2 * url.length +
      held.etag.length +
      (held.body === undefined ? 0 : held.body.json.byteLength + (held.body.gzip?.byteLength ?? 0))

export interface Options {
  /** Entries held at most. */
  readonly capacity?: number
  /** Bytes held at most: bodies, URLs and the rest (`sizeOf`). */
  readonly maxBytes?: number
  /** What `remember` takes as now: an answer already past its validity is not remembered. */
  readonly clock?: () => number
}

/**
 * Bounded both in entries and in the bytes it holds (`sizeOf`); the least recently
 * remembered goes first (a lookup does not reorder: hot answers are remembered again on each
 * rebuild or revalidation that reaches the app).
 */
export const make = <E = unknown>({ capacity = 10_000, clock = Date.now, maxBytes = 32 * 1024 * 1024 }: Options = {}): Index<E> => {
  const entries = Lru.make<string, Entry<E>>({ name: "responses", capacity, maxWeight: maxBytes, weigh: sizeOf })
  return {
    remember: (url, held) => {
      if (held.validUntil <= clock()) return
      const previous = entries.peek(url)
      // A revalidation (no body) must not drop the body a previous answer left.
      const body = held.body ?? (previous?.etag === held.etag ? previous.body : undefined)
      // Every entry has one shape from the start (the fields the front door fills in later too), so
      // the fast path's property reads stay monomorphic.
      entries.set(url, { etag: held.etag, validUntil: held.validUntil, body, head: undefined, lines: undefined, edge: undefined })
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

/** Both forms' headers beyond the 304's, and https's own. */
const GZIP_HEAD = ["content-type", "application/json", "content-encoding", "gzip"] as const
const JSON_HEAD = ["content-type", "application/json"] as const
const HTTPS_HEAD = ["strict-transport-security", SecurityHeaders.HSTS] as const

/** The 304's part of an entry's head: etag, cache-control and vary, as name/value pairs. */
const NOT_MODIFIED_PAIRS = 6

const prebuilt = (head: ReadonlyArray<string>): Prebuilt => ({
  notModified: PrebuiltHead.lines(head.slice(0, NOT_MODIFIED_PAIRS)),
  json: PrebuiltHead.lines([...head, ...JSON_HEAD]),
  jsonHttps: PrebuiltHead.lines([...head, ...JSON_HEAD, ...HTTPS_HEAD]),
  gzip: PrebuiltHead.lines([...head, ...GZIP_HEAD]),
  gzipHttps: PrebuiltHead.lines([...head, ...GZIP_HEAD, ...HTTPS_HEAD])
})

/** The entry's checked lines, made on its first answer (only where Node takes prebuilt heads). */
const linesOf = (held: Entry<unknown>, head: ReadonlyArray<string>): Prebuilt => {
  if (held.lines === undefined) held.lines = prebuilt(head)
  return held.lines
}

/**
 * Answers a request from the index when it can, with the front door's fixed headers (`fixed`,
 * flat), `Strict-Transport-Security` when the request came over https, and its request id (safe
 * characters only: generated, or a proxy's that `RequestId` accepted); the entry answered from, or
 * undefined when the request must go to the app. The answers carry the headers and bytes the app
 * would send, their fixed lines checked once per entry rather than once per answer (`PrebuiltHead`).
 */
export const answer = <E>(
  index: Index<E>,
  req: IncomingMessage,
  res: ServerResponse,
  fixed: ReadonlyArray<string>,
  https: boolean,
  requestId: string
): Entry<E> | undefined => {
  if (req.method !== "GET" || req.url === undefined) return undefined
  const held = index.lookup(req.url, Date.now())
  if (held === undefined) return undefined
  if (held.head === undefined) held.head = ["etag", held.etag, "cache-control", DATA_CACHE_CONTROL, "vary", VARY, ...fixed]
  const head = held.head
  const inm = req.headers["if-none-match"]
  // A client revalidating sends back exactly the ETag it was given: no parsing for that.
  if (inm !== undefined && (inm === held.etag || ifNoneMatchMatches(inm, held.etag))) {
    // The 304 carries the caching headers and the request id only (SecurityHeaders.stripFromNotModified).
    if (PrebuiltHead.supported) {
      const lines = linesOf(held, head)
      PrebuiltHead.write(res, 304, lines.notModified, PrebuiltHead.line(REQUEST_ID, requestId))
    } else {
      res.writeHead(304, [...head.slice(0, NOT_MODIFIED_PAIRS), REQUEST_ID, requestId])
    }
    res.end()
    return held
  }
  if (held.body === undefined) return undefined
  const gzip = sendsGzip(held.body, req.headers["accept-encoding"])
  const bytes = gzip ? held.body.gzip : held.body.json
  const length = ["content-length", String(bytes.byteLength)]
  if (PrebuiltHead.supported) {
    const lines = linesOf(held, head)
    const fixedLines = gzip ? (https ? lines.gzipHttps : lines.gzip) : https ? lines.jsonHttps : lines.json
    PrebuiltHead.write(res, 200, fixedLines, PrebuiltHead.line(REQUEST_ID, requestId), length)
  } else {
    res.writeHead(200, head.concat(gzip ? GZIP_HEAD : JSON_HEAD, https ? HTTPS_HEAD : [], length, [REQUEST_ID, requestId]))
  }
  res.end(bytes)
  return held
}
