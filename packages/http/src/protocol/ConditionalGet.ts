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

export const CACHE_CONTROL = "no-cache"
export const VARY = "Accept-Encoding"

/** The empty 304: ETag, Cache-Control and Vary, and nothing of the body. */
export const notModified = (etag: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.empty({ status: 304, headers: { etag, "cache-control": CACHE_CONTROL, vary: VARY } })
