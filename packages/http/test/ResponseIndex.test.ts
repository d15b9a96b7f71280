import { type IncomingMessage, request, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { memoryUsage } from "node:process"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { describe, expect, it } from "@effect/vitest"
import { Lru } from "@climate-grade/core"
import { FrontDoor, ResponseIndex, V8String } from "@climate-grade/http"
import * as Effect from "effect/Effect"

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
    const byBytes = ResponseIndex.make({ capacity: 100, maxBytes: 2_000, clock })
    for (const url of ["/1", "/2", "/3"]) byBytes.remember(url, { etag: "x", validUntil: now + 60_000, body: body(400) })
    // Each entry weighs 1,352 bytes (600 of bodies and 464 around them, 240 for the entry, 24 each for the URL and the ETag): only the newest fits in 2,000.
    expect(Lru.registered().find((c) => c.name === "responses")!.weight()).toBe(1_352)
    expect(["/1", "/2", "/3"].map((u) => byBytes.lookup(u, now) !== undefined)).toEqual([false, false, true])
  })

  it("under a flood of 14 KB URLs, holds each by its digest, counts the keys and the bound holds them", () => {
    const maxBytes = 64 * 1024
    const index = ResponseIndex.make({ capacity: 10_000, maxBytes, clock })
    const metric = Lru.registered().find((c) => c.name === "responses")!
    const urls = Array.from({ length: 500 }, (_, i) => `/api/v2/grade?lat=1&lon=2&pad=${String(i).padStart(14 * 1024, "x")}`)
    // Revalidations: no bodies, so only what is kept beside them weighs.
    for (const url of urls) index.remember(url, { etag: 'W/"1"', validUntil: now + 60_000 })
    const held = urls.filter((u) => index.lookup(u, now) !== undefined)
    expect(metric.size()).toBe(held.length)
    const keys = held.reduce((sum, u) => sum + V8String.bytes(ResponseIndex.keyOf(u)), 0)
    expect(metric.weight()).toBeGreaterThanOrEqual(keys)
    expect(metric.weight()).toBeLessThanOrEqual(maxBytes)
    // An entry weighs its 64-byte key, not its 14 KB URL: about 200 of them in 64 KB, the last ones remembered.
    expect(V8String.bytes(ResponseIndex.keyOf(urls[0]!))).toBe(64)
    expect(held).toEqual(urls.slice(urls.length - held.length))
    expect(held.length).toBeGreaterThan(190)
    expect(held.length).toBeLessThan(215)
  })

  it("tells long URLs apart by their digests, and a long URL from a short one", () => {
    const index = ResponseIndex.make({ clock })
    const long = (tail: string) => `/api/v2/grade?lat=1&lon=2&pad=${"x".repeat(14 * 1024)}${tail}`
    // Code units beyond Latin-1 hash as themselves: "ā" (U+0101) is not "\u0001" followed by "\u0001".
    const urls = [long("a"), long("b"), long("ā"), long("\u0001\u0001"), "/api/v2/grade?lat=1&lon=2", "/"]
    urls.forEach((url, i) => index.remember(url, { etag: `W/"${i}"`, validUntil: now + 60_000 }))
    urls.forEach((url, i) => expect(index.lookup(url, now)?.etag).toBe(`W/"${i}"`))
    // The key is exactly the URL below the threshold, a digest from it (never a request target: no "/", no ":").
    const short = "/x".padEnd(ResponseIndex.DIGEST_FROM - 1, "y")
    expect(ResponseIndex.keyOf(short)).toBe(short)
    expect(ResponseIndex.keyOf(`${short}y`)).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(index.lookup(long("c"), now)).toBeUndefined()
    expect(index.encoded(long("a"), 'W/"0"')).toBeUndefined()
  })
})

/** A full collection, from a function V8 makes once asked to (vitest runs without --expose-gc). */
const collect = (() => {
  setFlagsFromString("--expose-gc")
  const gc = runInNewContext("gc") as () => void
  return () => {
    gc()
    gc()
  }
})()

const get = (port: number, path: string) =>
  new Promise<number>((done, fail) => {
    request({ port, host: "127.0.0.1", path, agent: false, headers: { "accept-encoding": "gzip" } }, (res) => {
      res.resume()
      res.on("end", () => done(res.statusCode ?? 0))
    })
      .on("error", fail)
      .end()
  })

describe("ResponseIndex's weight", () => {
  it("counts a URL once, as V8 stores it: one byte a character in Latin-1, two beyond; a long one as its digest", () => {
    const index = ResponseIndex.make({ clock })
    const metric = Lru.registered().find((c) => c.name === "responses")!
    const latin1 = `/api/v2/grade?lat=1&lon=2&pad=${"é".repeat(400)}`
    const wide = `/api/v2/grade?lat=1&lon=2&pad=${"€".repeat(400)}`
    index.remember(latin1, { etag: 'W/"1"', validUntil: now + 60_000 })
    expect(metric.weight()).toBe(ResponseIndex.ENTRY_BYTES + V8String.bytes(latin1) + V8String.bytes('W/"1"'))
    expect(V8String.bytes(latin1)).toBe(Math.ceil((16 + latin1.length) / 8) * 8)
    index.remember(wide, { etag: 'W/"1"', validUntil: now + 60_000 })
    expect(V8String.bytes(wide)).toBe(Math.ceil((16 + 2 * wide.length) / 8) * 8)
    expect(metric.weight()).toBe(2 * ResponseIndex.ENTRY_BYTES + V8String.bytes(latin1) + V8String.bytes(wide) + 2 * V8String.bytes('W/"1"'))
    // A long URL is held by its digest: 64 bytes, whatever its length.
    index.remember(`${latin1}${"é".repeat(14 * 1024)}`, { etag: 'W/"1"', validUntil: now + 60_000 })
    expect(metric.weight()).toBe(3 * ResponseIndex.ENTRY_BYTES + V8String.bytes(latin1) + V8String.bytes(wide) + 64 + 3 * V8String.bytes('W/"1"'))
  })

  it("counts a body shared by the URLs of one payload once, on another of them when the first leaves", () => {
    const index = ResponseIndex.make({ capacity: 3, clock })
    const metric = Lru.registered().find((c) => c.name === "responses")!
    const shared = body(4000)
    const entry = (url: string) => ResponseIndex.ENTRY_BYTES + V8String.bytes(url) + V8String.bytes('W/"1"')
    index.remember("/a?x=1", { etag: 'W/"1"', validUntil: now + 60_000, body: shared })
    // Another URL of the same payload: its body is found by its JSON and shared, not compressed again.
    expect(index.bodyOf(shared.json)).toBe(shared)
    index.remember("/a?x=2", { etag: 'W/"1"', validUntil: now + 60_000, body: { json: shared.json, gzip: new Uint8Array(2000) } })
    expect(index.lookup("/a?x=2", now)?.body).toBe(shared)
    expect(metric.weight()).toBe(entry("/a?x=1") + entry("/a?x=2") + ResponseIndex.bodyBytes(shared))
    // The first one out (capacity 3): the body is still held, and still counted, once.
    index.remember("/b", { etag: 'W/"1"', validUntil: now + 60_000 })
    index.remember("/c", { etag: 'W/"1"', validUntil: now + 60_000 })
    expect(index.lookup("/a?x=1", now)).toBeUndefined()
    expect(metric.weight()).toBe(entry("/a?x=2") + entry("/b") + entry("/c") + ResponseIndex.bodyBytes(shared))
    // A revalidation of the last holder keeps the body, counted once; once it is gone, nothing holds the body.
    index.remember("/a?x=2", { etag: 'W/"1"', validUntil: now + 60_000 })
    expect(metric.weight()).toBe(entry("/a?x=2") + entry("/b") + entry("/c") + ResponseIndex.bodyBytes(shared))
    index.remember("/d", { etag: 'W/"1"', validUntil: now + 60_000 })
    index.remember("/e", { etag: 'W/"1"', validUntil: now + 60_000 })
    index.remember("/f", { etag: 'W/"1"', validUntil: now + 60_000 })
    expect(index.bodyOf(shared.json)).toBeUndefined()
    expect(metric.weight()).toBe(entry("/d") + entry("/e") + entry("/f"))
  })

  it.live("under a flood of 14 KB URLs through the front door, counts what the heap holds for them", () =>
    Effect.scoped(Effect.gen(function* () {
      const make = () => ResponseIndex.make({ capacity: 10_000, maxBytes: 64 * 1024 * 1024 })
      // The front door asks whichever index is current: dropping the filled one frees exactly what it
      // holds, however much the server itself keeps of the requests meanwhile.
      let index = make()
      const responses: ResponseIndex.Index = {
        remember: (url, held) => index.remember(url, held),
        lookup: (url, now) => index.lookup(url, now),
        encoded: (url, etag) => index.encoded(url, etag),
        bodyOf: (json) => index.bodyOf(json),
        reweigh: (url) => index.reweigh(url)
      }
      // Five payloads, as the flood's warm views: every URL of one shares its body.
      const payloads = Array.from({ length: 5 }, (_, i) => ({ json: new Uint8Array(3000 + i), gzip: new Uint8Array(1000 + i) }))
      const app = (req: IncomingMessage, res: ServerResponse) => {
        const url = req.url!
        const given = payloads[Number(/view=(\d)/.exec(url)![1])]!
        const body = index.bodyOf(given.json) ?? { json: given.json, gzip: new Uint8Array(given.gzip) }
        index.remember(url, { etag: `W/"${url.length}-${url.charCodeAt(40)}"`, validUntil: Date.now() + 600_000, body })
        res.writeHead(200, { "content-type": "application/json" })
        res.end(body.json)
      }
      const door = FrontDoor.makeServer({ basePath: "", publicOriginHttps: false, responses }, app, () => {})
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void door.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.async<void>((resume) => void door.close(() => resume(Effect.void)))
      )
      const port = (door.address() as AddressInfo).port
      const url = (i: number) => `/api/v2/grade?view=${i % 5}&lat=1&lon=2&pad=${String(i).padStart(14 * 1024, "x")}`
      const heap = () => {
        collect()
        return memoryUsage().heapUsed + memoryUsage().arrayBuffers
      }
      // The heap once what the last requests left behind (their sockets, parsers and buffers, freed
      // over the next milliseconds) is gone: two readings 50 ms apart within 4 KB of each other.
      const settled = Effect.gen(function* () {
        let last = heap()
        for (let tries = 0; tries < 40; tries++) {
          yield* Effect.sleep("50 millis")
          const next = heap()
          if (Math.abs(next - last) < 4096) return next
          last = next
        }
        return last
      })
      // Warm: the code and the shared structures made once, in an index then dropped.
      for (let i = 0; i < 20; i++) for (let ask = 0; ask < 2; ask++) yield* Effect.promise(() => get(port, url(100_000 + i)))
      index = make()
      const n = 250
      for (let i = 0; i < n; i++) {
        // Asked twice: the second answer comes from the index, which then keeps its heads and loggable path.
        expect(yield* Effect.promise(() => get(port, url(i)))).toBe(200)
        expect(yield* Effect.promise(() => get(port, url(i)))).toBe(200)
      }
      expect(index.lookup(url(n - 1), Date.now())?.edge).toBeDefined()
      // The five payloads' JSON is counted on the index, but the test keeps it: it is not freed.
      const kept = payloads.reduce((sum, p) => sum + ResponseIndex.VIEW_BYTES + p.json.byteLength, 0)
      const counted = Lru.registered().find((c) => c.name === "responses")!.weight() - kept
      const filled = yield* settled
      // A new index of the same name takes the old one's place in the metrics' registry too.
      index = make()
      const held = filled - (yield* settled)
      // None of each 14 KB URL: the key is its digest, and its loggable path holds none of it.
      expect(counted).toBeGreaterThan(n * 1024)
      expect(counted).toBeLessThan(n * 4 * 1024)
      // Never less than the heap holds, by more than 32 bytes an entry; more by up to a quarter
      // kilobyte an entry, as the weight is an upper bound (on Node 20 x64 it counted 29–69 over).
      const seen = `counted ${counted} B, held ${held} B for ${n} entries`
      expect(held - counted, seen).toBeLessThan(n * 32)
      expect(counted - held, seen).toBeLessThan(n * 256)
    }))
  )
})
