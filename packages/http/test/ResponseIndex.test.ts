import { describe, expect, it } from "@effect/vitest"
import { Lru } from "@climate-grade/core"
import { ResponseIndex } from "@climate-grade/http"

const body = (size: number) => ({ json: new Uint8Array(size), gzip: new Uint8Array(size / 2) })

// The index's own clock, stopped: validities of a millisecond mean the same however slow the run.
const now = 1_800_000_000_000
const clock = () => now

describe("ResponseIndex", () => {
  it("holds an answer until its validity ends, and keeps the body across a revalidation", () => {
    const index = ResponseIndex.make({ clock })
    index.remember("/a", { etag: 'W/"1"', validUntil: now + 60_000, body: body(10) })
    index.remember("/a", { etag: 'W/"1"', validUntil: now + 60_000 })
    expect(index.lookup("/a", now)?.body?.json.byteLength).toBe(10)
    expect(index.lookup("/a", now + 60_000)).toBeUndefined()
    index.remember("/b", { etag: 'W/"2"', validUntil: now - 1 })
    expect(index.lookup("/b", now)).toBeUndefined()
  })

  it("after its validity, never answers, but still gives its body's forms for the same ETag only", () => {
    const index = ResponseIndex.make({ clock })
    const held = body(2048)
    index.remember("/a", { etag: 'W/"1"', validUntil: now + 1, body: held })
    expect(index.lookup("/a", now + 1)).toBeUndefined()
    expect(index.encoded("/a", 'W/"1"')).toBe(held)
    expect(index.encoded("/a", 'W/"2"')).toBeUndefined()
    expect(index.encoded("/b", 'W/"1"')).toBeUndefined()
  })

  it("is bounded by entries and by the bytes it holds, least recently used out first", () => {
    const byCount = ResponseIndex.make({ capacity: 2, clock })
    for (const url of ["/1", "/2", "/3"]) byCount.remember(url, { etag: "x", validUntil: now + 60_000 })
    expect(byCount.lookup("/1", now)).toBeUndefined()
    expect(byCount.lookup("/3", now)).toBeDefined()
    const byBytes = ResponseIndex.make({ capacity: 100, maxBytes: 4_000, clock })
    for (const url of ["/1", "/2", "/3"]) byBytes.remember(url, { etag: "x", validUntil: now + 60_000, body: body(400) })
    // Each entry weighs 2,653 bytes (600 of bodies, 2,048 for the rest, 5 for the URL twice and the ETag): only the newest fits in 4,000.
    expect(["/1", "/2", "/3"].map((u) => byBytes.lookup(u, now) !== undefined)).toEqual([false, false, true])
  })

  it("under a flood of 14 KB URLs, the metric counts the keys and the bound holds them", () => {
    const maxBytes = 1024 * 1024
    const index = ResponseIndex.make({ capacity: 10_000, maxBytes, clock })
    const metric = Lru.registered().find((c) => c.name === "responses")!
    const urls = Array.from({ length: 500 }, (_, i) => `/api/v2/grade?lat=1&lon=2&pad=${String(i).padStart(14 * 1024, "x")}`)
    // Revalidations: no bodies, so only what is kept beside them weighs.
    for (const url of urls) index.remember(url, { etag: 'W/"1"', validUntil: now + 60_000 })
    const held = urls.filter((u) => index.lookup(u, now) !== undefined)
    expect(metric.size()).toBe(held.length)
    const keys = held.reduce((sum, u) => sum + u.length, 0)
    expect(metric.weight()).toBeGreaterThanOrEqual(2 * keys)
    expect(metric.weight()).toBeLessThanOrEqual(maxBytes)
    // Counted at 512 bytes an entry, all 500 (7 MB of keys) would have been "256 KB".
    expect(held.length).toBeLessThan(40)
    expect(held.length).toBeGreaterThan(30)
  })
})
