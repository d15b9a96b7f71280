/**
 * Answers to data requests, kept for the short time their ETag provably cannot change (the plan's
 * `validUntil`: at most a minute, never past a refresh or the cell's local midnight), so that the
 * hot path — a client revalidating what it holds, or asking again for a stored payload — is
 * answered before the request enters the Effect pipeline, at close to a bare server's speed.
 * Anything not held, expired or not matching goes through the full pipeline as usual.
 */
import { createHash } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Lru } from "@climate-grade/core"
import * as Context from "effect/Context"
import { DATA_CACHE_CONTROL, ifNoneMatchMatches, VARY } from "../protocol/ConditionalGet.js"
import { type Encoded, sendsGzip } from "../protocol/Compression.js"
import { HEADER as REQUEST_ID } from "./RequestId.js"
import * as PrebuiltHead from "./PrebuiltHead.js"
import * as SecurityHeaders from "./SecurityHeaders.js"
import * as V8String from "./V8String.js"

export interface Held {
  readonly etag: string
  readonly validUntil: number
  /** The full answer in both forms, when it was served (not for a 304). */
  readonly body?: Encoded | undefined
}

/** What the front door keeps per URL beside an entry, once the entry has answered: its metric series (shared) and its loggable path. */
export interface Edge {
  readonly series: unknown
  readonly path: string
}

/**
 * What the front door works out once per held answer rather than on every request: the answer's
 * fixed headers, and whatever it needs per URL (its metric series, its loggable path).
 */
interface Entry<E extends Edge> extends Held {
  /** The answer's fixed headers, flat (name, value, …): its caching headers and the front door's own (only where Node takes no prebuilt heads). */
  head: Array<string> | undefined
  /** Those as checked lines (`PrebuiltHead`), for each form of answer, over plain HTTP and over https. */
  lines: Prebuilt | undefined
  edge: E | undefined
  /** What the entry weighs before any of the above is built: itself, its key and its ETag. */
  readonly bytes: number
  /** Whether its body's bytes are counted on this entry (entries of one payload share its body: counted once, on one of them). */
  countsBody: boolean
}

interface Prebuilt {
  readonly notModified: PrebuiltHead.Lines
  readonly json: PrebuiltHead.Lines
  readonly jsonHttps: PrebuiltHead.Lines
  readonly gzip: PrebuiltHead.Lines
  readonly gzipHttps: PrebuiltHead.Lines
}

export interface Index<E extends Edge = Edge> {
  /** Keyed by the request line's URL exactly as received (a long one by its digest: `keyOf`). */
  readonly remember: (url: string, held: Held) => void
  readonly lookup: (url: string, now: number) => Entry<E> | undefined
  /**
   * The body last served for `url` under `etag`, even once its validity has ended: the same ETag
   * means the same bytes (the token covers whatever changes them), so a replay through the app
   * reuses its gzip instead of compressing again.
   */
  readonly encoded: (url: string, etag: string) => Encoded | undefined
  /**
   * The body held for these JSON bytes (the same array, as the payload store hands out for one
   * payload) under any URL: many URLs of one payload (a parameter the API ignores, another
   * spelling of the coordinates) share its body rather than each compressing and keeping its own.
   */
  readonly bodyOf: (json: Uint8Array) => Encoded | undefined
  /** Weighs `url`'s entry again once the front door has built what it keeps on it (`answer`, the edge). */
  readonly reweigh: (url: string) => void
}

export class ResponseIndex extends Context.Tag("@climate-grade/http/ResponseIndex")<ResponseIndex, Index>() {}

export type { Entry }

/**
 * What V8 takes for objects of fixed shape, measured on Node 20 (x64; Node's builds have no
 * pointer compression): an entry (nine fields, its `validUntil` a heap number) with its slots in
 * the index's maps; a typed array with its ArrayBuffer object (its bytes are counted apart); a
 * small object (`Encoded`, the edge, the prebuilt lines' record); an array of n elements is
 * `ARRAY_BYTES + 8n`. packages/http/test/ResponseIndex.test.ts checks the sum against the heap.
 */
export const ENTRY_BYTES = 240
export const VIEW_BYTES = 200
export const OBJECT_BYTES = 64
export const ARRAY_BYTES = 48

/** A body's bytes: its forms and the objects around them. */
export const bodyBytes = (body: Encoded): number =>
  OBJECT_BYTES + VIEW_BYTES + body.json.byteLength + (body.gzip === null ? 0 : VIEW_BYTES + body.gzip.byteLength)

const headBytes = (entry: Entry<Edge>): number => {
  let bytes = entry.head === undefined ? 0 : ARRAY_BYTES + 8 * entry.head.length
  const lines = entry.lines
  if (lines !== undefined) {
    bytes +=
      OBJECT_BYTES +
      V8String.bytes(lines.notModified) +
      V8String.bytes(lines.json) +
      V8String.bytes(lines.jsonHttps) +
      V8String.bytes(lines.gzip) +
      V8String.bytes(lines.gzipHttps)
  }
  return entry.edge === undefined ? bytes : bytes + OBJECT_BYTES + V8String.bytes(entry.edge.path)
}

/**
 * An entry's bytes as V8 holds them: the entry, its key (a client chooses the URL, up to the
 * server's header limit, so it is counted like a body) and its ETag; its body, when counted on
 * this entry; and what the front door built on it once it answered (its heads, its loggable
 * path). Its head's strings other than the ETag are constants shared by every entry.
 */
export const sizeOf = (entry: Entry<Edge>): number =>
  entry.bytes + (entry.countsBody && entry.body !== undefined ? bodyBytes(entry.body) : 0) + headBytes(entry)

/**
 * URLs at least this long are held by their digest, not their text. A URL the index holds
 * outlives scavenges, so V8 copies it in the young generation, then promotes it: under a flood of
 * 14 KB URLs the keys were a third of all that survived scavenges (and V8 grows its young
 * generation by what survives), and the index held 14 KB a URL where a digest takes 64 bytes. A
 * real client's URL is far shorter and stays its own key (no hashing on the fast path).
 */
export const DIGEST_FROM = 512

/**
 * The key a URL is held under: the URL itself, or for a long one its SHA-256 (of its UTF-16 code
 * units: distinct strings, distinct inputs) in base64url, one flat string of 43 characters. No
 * request target Node's parser passes is one (an origin-form target starts with "/", an absolute
 * one has "://", else it is "*"), so a digest never equals a URL; and finding two URLs of one
 * digest is out of anyone's reach.
 */
export const keyOf = (url: string): string =>
  url.length < DIGEST_FROM ? url : createHash("sha256").update(url, "utf16le").digest("base64url")

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
export const make = <E extends Edge = Edge>({ capacity = 10_000, clock = Date.now, maxBytes = 32 * 1024 * 1024 }: Options = {}): Index<E> => {
  // Each body held, by its JSON bytes, with the URLs of the entries that hold it; it is counted on
  // the first of them, and on another when that one leaves.
  const bodies = new Map<Uint8Array, { readonly body: Encoded; readonly urls: Set<string> }>()
  const release = (url: string, entry: Entry<E>) => {
    if (entry.body === undefined) return
    const shared = bodies.get(entry.body.json)
    if (shared === undefined || !shared.urls.delete(url)) return
    if (shared.urls.size === 0) bodies.delete(entry.body.json)
    else if (entry.countsBody) {
      const heir = shared.urls.values().next().value as string
      const next = entries.peek(heir)
      if (next !== undefined) {
        next.countsBody = true
        entries.reweigh(heir)
      }
    }
  }
  const entries = Lru.make<string, Entry<E>>({ name: "responses", capacity, maxWeight: maxBytes, weigh: sizeOf, onRemove: release })
  // A request asks for its key a few times (the lookup, then the reweighs or the app's remember):
  // a long URL is hashed once for them (the last one is kept for that, no more).
  let lastUrl = ""
  let lastKey = ""
  const key = (url: string): string => {
    if (url.length < DIGEST_FROM) return url
    if (url !== lastUrl) {
      lastUrl = url
      lastKey = keyOf(url)
    }
    return lastKey
  }
  return {
    remember: (requestUrl, held) => {
      const url = key(requestUrl)
      if (held.validUntil <= clock()) return
      const previous = entries.peek(url)
      // A revalidation (no body) must not drop the body a previous answer left.
      const given = held.body ?? (previous?.etag === held.etag ? previous.body : undefined)
      const shared = given === undefined ? undefined : bodies.get(given.json)
      const body = shared?.body ?? given
      // Counted here when no other entry holds it (this URL's previous entry is released by `set`).
      const countsBody = body !== undefined && (shared === undefined || shared.urls.size === (shared.urls.has(url) ? 1 : 0))
      // Every entry has one shape from the start (the fields the front door fills in later too), so
      // the fast path's property reads stay monomorphic.
      const entry: Entry<E> = {
        // Its own copy: the app's may be a concatenation, whose pieces outweigh it.
        etag: V8String.ownCopy(held.etag),
        validUntil: held.validUntil,
        body,
        head: undefined,
        lines: undefined,
        edge: undefined,
        bytes: ENTRY_BYTES + V8String.bytes(url) + V8String.bytes(held.etag),
        countsBody
      }
      entries.set(url, entry)
      // After `set`, which released the previous entry's share and may have evicted others.
      if (body === undefined || entries.peek(url) !== entry) return
      const holders = bodies.get(body.json)
      if (holders !== undefined) holders.urls.add(url)
      else {
        bodies.set(body.json, { body, urls: new Set([url]) })
        // The entries that held it were evicted to make room for this one: it is counted here now.
        if (!entry.countsBody) {
          entry.countsBody = true
          entries.reweigh(url)
        }
      }
    },
    // An expired entry stays (bounded like the rest) for `encoded`; it is never answered from.
    lookup: (url, now) => {
      const held = entries.peek(key(url))
      return held === undefined || held.validUntil <= now ? undefined : held
    },
    encoded: (url, etag) => {
      const held = entries.peek(key(url))
      return held?.etag === etag ? held.body : undefined
    },
    bodyOf: (json) => bodies.get(json)?.body,
    reweigh: (url) => entries.reweigh(key(url))
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

/**
 * Answers a request from the index when it can, with the front door's fixed headers (`fixed`,
 * flat), `Strict-Transport-Security` when the request came over https, and its request id (safe
 * characters only: generated, or a proxy's that `RequestId` accepted); the entry answered from, or
 * undefined when the request must go to the app. The answers carry the headers and bytes the app
 * would send, their fixed lines checked once per entry rather than once per answer (`PrebuiltHead`).
 */
export const answer = <E extends Edge>(
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
  if (held.head === undefined && held.lines === undefined) {
    // Made on the entry's first answer and counted then: its checked lines where Node takes
    // prebuilt heads (the pairs are not needed after), else the pairs.
    const pairs = ["etag", held.etag, "cache-control", DATA_CACHE_CONTROL, "vary", VARY, ...fixed]
    if (PrebuiltHead.supported) held.lines = prebuilt(pairs)
    else held.head = pairs
    index.reweigh(req.url)
  }
  const lines = held.lines
  const inm = req.headers["if-none-match"]
  // A client revalidating sends back exactly the ETag it was given: no parsing for that.
  if (inm !== undefined && (inm === held.etag || ifNoneMatchMatches(inm, held.etag))) {
    // The 304 carries the caching headers and the request id only (SecurityHeaders.stripFromNotModified).
    if (lines !== undefined) {
      PrebuiltHead.write(res, 304, lines.notModified, PrebuiltHead.line(REQUEST_ID, requestId))
    } else {
      res.writeHead(304, [...held.head!.slice(0, NOT_MODIFIED_PAIRS), REQUEST_ID, requestId])
    }
    res.end()
    return held
  }
  if (held.body === undefined) return undefined
  const gzip = sendsGzip(held.body, req.headers["accept-encoding"])
  const bytes = gzip ? held.body.gzip : held.body.json
  const length = ["content-length", String(bytes.byteLength)]
  if (lines !== undefined) {
    const fixedLines = gzip ? (https ? lines.gzipHttps : lines.gzip) : https ? lines.jsonHttps : lines.json
    PrebuiltHead.write(res, 200, fixedLines, PrebuiltHead.line(REQUEST_ID, requestId), length)
  } else {
    res.writeHead(200, held.head!.concat(gzip ? GZIP_HEAD : JSON_HEAD, https ? HTTPS_HEAD : [], length, [REQUEST_ID, requestId]))
  }
  res.end(bytes)
  return held
}
