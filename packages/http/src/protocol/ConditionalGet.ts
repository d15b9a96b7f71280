/**
 * Conditional GET (docs/api.md "Common rules"): weak ETags, and `If-None-Match` with weak comparison over a
 * comma list. `*` matches anything. A list that does not parse as entity-tags — an unquoted tag,
 * a stray character — matches nothing, so the client simply gets the full answer.
 */
import { HttpServerResponse } from "@effect/platform"
import { FreshnessToken } from "@climate-grade/core"

/**
 * `W/"<opaque>"`: the core's one definition (a payload's ETag is also a field of the bundle
 * payload the core builds), used for every ETag header this adapter sends.
 */
export const weakEtag: (opaque: string) => string = FreshnessToken.etag

/** RFC 9110 entity-tag: optional `W/`, then a quoted opaque tag without `"`. */
const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/

/** The opaque tags of an If-None-Match list; "*" for the wildcard; undefined when it does not parse. */
export const parseIfNoneMatch = (header: string): ReadonlyArray<string> | "*" | undefined => {
  const trimmed = header.trim()
  if (trimmed === "*") return "*"
  const tags: Array<string> = []
  for (const part of trimmed.split(",")) {
    const item = part.replace(/^[ \t]+|[ \t]+$/g, "")
    if (item === "") continue
    const match = ENTITY_TAG.exec(item)
    if (match === null) return undefined
    tags.push(match[2]!)
  }
  return tags.length === 0 ? undefined : tags
}

/** Weak comparison: the opaque tags are equal, whether either side is weak or strong. */
export const ifNoneMatchMatches = (header: string | undefined, etag: string): boolean => {
  if (header === undefined) return false
  const tags = parseIfNoneMatch(header)
  if (tags === undefined) return false
  if (tags === "*") return true
  const ours = ENTITY_TAG.exec(etag)
  return ours !== null && tags.includes(ours[2]!)
}

/** Pages, static assets and the share card: every cache asks before each use. */
export const CACHE_CONTROL = "no-cache"

/** How long a shared cache (nginx's proxy_cache, a CDN) may answer a data view without asking. */
export const SHARED_MAX_AGE_SECONDS = 10

/**
 * Data answers: a browser revalidates before each use (`max-age=0`: stale at once, and RFC 9111
 * lets no cache use a stale answer unless told it may), while a shared cache may answer for
 * `s-maxage` seconds, so a place shared in a busy chat reaches the instances once per window.
 * No `stale-while-revalidate`: browsers honour it too, and would then show an answer without
 * asking first; a proxy gets that effect from its own settings (deploy/nginx). docs/api.md "Caching".
 */
export const DATA_CACHE_CONTROL = `max-age=0, s-maxage=${SHARED_MAX_AGE_SECONDS}`
export const VARY = "Accept-Encoding"

/** The empty 304: ETag, Cache-Control and Vary, and nothing of the body. */
export const notModified = (etag: string, cacheControl: string = CACHE_CONTROL): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.empty({ status: 304, headers: { etag, "cache-control": cacheControl, vary: VARY } })
