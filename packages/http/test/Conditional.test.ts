/**
 * The If-None-Match cases of jshttp/fresh (test/fresh.js) and the encoding cases of
 * jshttp/negotiator (test/encoding.js), used as data. Where our rules (docs/api.md "Common rules")
 * decide differently, the row says so and ours win.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConditionalGet, ContentNegotiation } from "@climate-grade/http"

// [If-None-Match, ETag, fresh?, note]
const freshVectors: ReadonlyArray<readonly [string | undefined, string, boolean, string?]> = [
  [undefined, '"tobi"', false], // "when a non-conditional GET is performed: stale"
  ['"tobi"', '"tobi"', true], // "when ETags match" (fresh uses bare tobi; quoted here, as RFC 9110 writes tags)
  ['"tobi"', '"luna"', false], // "when ETags mismatch"
  ['W/"foo"', 'W/"foo"', true], // "weak: fresh on exact match"
  ['W/"foo"', '"foo"', true], // "weak: fresh on strong match"
  ['"foo"', '"foo"', true], // "strong: fresh on exact match"
  ['"foo"', 'W/"foo"', true, "fresh says stale; ours: If-None-Match uses weak comparison (RFC 9110 §13.1.2)"],
  ["*", '"hey"', true], // "when * is given"
  ["tobi", '"tobi"', false, "fresh matches bare tokens; ours: unparseable values match nothing"],
  // Lists, spaces and tabs.
  ['"a", "b", W/"c"', 'W/"c"', true],
  ['"a",\tW/"c"\t', 'W/"c"', true],
  ['  W/"c"  ', 'W/"c"', true],
  ['"a", "b"', 'W/"c"', false],
  ['"a", c', 'W/"c"', false, "one malformed member: the header does not parse, matches nothing"],
  ['W/"c" junk', 'W/"c"', false],
  ["", 'W/"c"', false],
  [",", 'W/"c"', false]
]

// [Accept-Encoding, gzip admitted?, source]
const negotiatorVectors: ReadonlyArray<readonly [string | undefined, boolean, string]> = [
  [undefined, false, "no encoding provided → identity only"],
  ["gzip", true, "gzip → gzip, identity"],
  ["identity;q=0", false, "identity refused, gzip not offered"],
  ["*;q=0", false, "* refused"],
  ["*;q=0, identity;q=0.5", false, "only identity acceptable"],
  ["gzip, compress", true, "gzip, compress"],
  ["deflate", false, "deflate → identity"],
  ["*", true, "negotiator prefers identity for *; ours: * with q > 0 admits gzip"],
  ["gzip;q=0.8, identity;q=0.5, *;q=0.3", true, "→ gzip first"],
  ["gzip;q=0.8, compress", true, "→ compress, gzip"],
  // Our additions.
  ["x-gzip", true, "x-gzip counts"],
  ["gzip;q=0", false, "explicit refusal"],
  ["GZip", true, "names are case-insensitive"],
  ["gzip;q=0.000", false, "q of zero however written"],
  ["gzip;q=0.001", true, "any q above zero"],
  ["x-gzip;q=0, *", false, "an explicit gzip refusal beats the wildcard"],
  ["identity", false, "identity only"],
  ["gzip;q=abc", false, "an unreadable q counts as zero"]
]

describe("If-None-Match (jshttp/fresh vectors)", () => {
  for (const [header, etag, fresh, note] of freshVectors) {
    it(`${JSON.stringify(header)} vs ${etag} → ${fresh ? "304" : "200"}${note === undefined ? "" : ` (${note})`}`, () => {
      expect(ConditionalGet.ifNoneMatchMatches(header, etag)).toBe(fresh)
    })
  }

  it("the 304 carries ETag, Cache-Control and Vary and nothing of a body", () => {
    const response = ConditionalGet.notModified('W/"abc"')
    expect(response.status).toBe(304)
    expect(response.headers).toEqual({ etag: 'W/"abc"', "cache-control": "no-cache", vary: "Accept-Encoding" })
    expect(response.body._tag).toBe("Empty")
  })
})

describe("Accept-Encoding (jshttp/negotiator vectors)", () => {
  for (const [header, gzip, source] of negotiatorVectors) {
    it(`${JSON.stringify(header)} → ${gzip ? "gzip" : "identity"} (${source})`, () => {
      expect(ContentNegotiation.acceptsGzip(header)).toBe(gzip)
    })
  }
})
