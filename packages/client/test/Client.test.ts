/**
 * The client against the real server on loopback (fake upstreams): its keys,
 * revalidation and bundles, observed through the requests it makes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createClient, memoryStore, RequestRejected } from "../src/index.js"
import { backends } from "@climate-grade/testing"
import { recorder, startWorld, type World } from "./support/World.js"

let world: World

let n = 0
/** A point in a cell no other test here has touched. */
const fresh = () => {
  n++
  return { lat: 40 + n * 1.5 + 0.01, lon: -100 + n * 2.5 + 0.02 }
}
const snapped = (x: number) => (Math.round(x * 4) / 4).toFixed(2)

for (const backend of backends) describe(`on ${backend.name}`, () => {
  beforeAll(async () => {
    n = 0
    world = await startWorld(backend)
  }, 180_000)
  afterAll(() => world?.stop())

  describe("view", () => {
    it("fetches, then revalidates with If-None-Match: a 304 on the wire keeps the body", async () => {
      const rec = recorder()
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch })
      const p = fresh()
      const first = await client.view("grade", p.lat, p.lon)
      expect(first.source).toBe("network")
      expect(first.etag).toMatch(/^W\/"[0-9a-f]{32}"$/)
      expect(first.data).toMatchObject({ view: "grade", v: 1, cell: { lat: Number(snapped(p.lat)) } })
      const second = await client.view("grade", p.lat, p.lon)
      expect(second).toMatchObject({ source: "revalidated", etag: first.etag, data: first.data })
      expect(second.storedAt).toBeGreaterThanOrEqual(first.storedAt)
      const calls = rec.to("/api/v2/grade")
      expect(calls.map((c) => c.status)).toEqual([200, 304])
      expect(calls[0]!.headers.get("if-none-match")).toBeNull()
      expect(calls[1]!.headers.get("if-none-match")).toBe(first.etag)
      // Sent with the snapped cell and sorted parameters; a browser's HTTP cache is bypassed.
      expect(calls[0]!.url.search).toBe(`?lat=${snapped(p.lat)}&lon=${snapped(p.lon)}`)
      for (const c of calls) expect(c.init?.cache).toBe("no-store")
      await client.close()
    })

    it("points of one cell share one entry; other parameters make another", async () => {
      const rec = recorder()
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch })
      const p = fresh()
      await client.view("calendar", p.lat, p.lon, { months: "3" })
      const again = await client.view("calendar", p.lat + 0.05, p.lon - 0.05, { months: "3" })
      expect(again.source).toBe("revalidated")
      const other = await client.view("calendar", p.lat, p.lon, { months: "2" })
      expect(other.source).toBe("network")
      expect(rec.to("/api/v2/calendar").map((c) => c.status)).toEqual([200, 304, 200])
      await client.close()
    })

    it("concurrent calls for one key share one request", async () => {
      const rec = recorder()
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch })
      const p = fresh()
      const results = await Promise.all([1, 2, 3].map(() => client.view("forecast", p.lat, p.lon)))
      expect(rec.to("/api/v2/forecast")).toHaveLength(1)
      expect(new Set(results.map((r) => r.etag)).size).toBe(1)
      await client.close()
    })

    it("a 4xx rejects with the server's detail and keeps nothing", async () => {
      const rec = recorder()
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch })
      const p = fresh()
      const error = await client.view("day", p.lat, p.lon, { date: "2024-02-30" }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(RequestRejected)
      expect(error).toMatchObject({ status: 400, detail: expect.stringContaining("'date'") })
      await expect(client.view("day", p.lat, p.lon, { date: "2024-02-30" })).rejects.toBeInstanceOf(RequestRejected)
      // Nothing was stored: the second request is unconditional too.
      expect(rec.to("/api/v2/day").map((c) => [c.status, c.headers.get("if-none-match")])).toEqual([
        [400, null],
        [400, null]
      ])
      await client.close()
    })

    it("a 304 with nothing stored refetches once, unconditionally", async () => {
      // The first request goes out with `If-None-Match: *`, which the server answers 304.
      const rec = recorder((url, init, real) => {
        const first = rec.calls.length === 1
        return real(url, first ? { ...init, headers: { ...(init?.headers as Record<string, string>), "if-none-match": "*" } } : init)
      })
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch })
      const p = fresh()
      const result = await client.view("grade", p.lat, p.lon)
      expect(result.source).toBe("network")
      expect(rec.to("/api/v2/grade").map((c) => c.status)).toEqual([304, 200])
      expect(rec.calls[1]!.headers.get("if-none-match")).toBeNull()
      await client.close()
    })
  })

  describe("the trend view", () => {
    it("is fetched and stored on its own; a later client on the same store revalidates it: a 304 on the wire keeps the body", async () => {
      const store = memoryStore()
      const rec = recorder()
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch, store })
      const p = fresh()
      // A loaded place does not bring the trend with it (it is not in the bundle).
      await client.load(p.lat, p.lon)
      expect(rec.to("/api/v2/trend")).toEqual([])
      const first = await client.view("trend", p.lat, p.lon)
      expect(first.source).toBe("network")
      expect(first.data).toMatchObject({ view: "trend", v: 1, cell: { lat: Number(snapped(p.lat)) }, years: expect.any(Array) })
      const key = `/trend?lat=${snapped(p.lat)}&lon=${snapped(p.lon)}`
      expect((await store.get([key]))[0]).toMatchObject({ key, etag: first.etag, v: 1 })
      await client.close()

      const later = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch, store })
      const again = await later.view("trend", p.lat, p.lon)
      expect(again).toMatchObject({ source: "revalidated", etag: first.etag, data: first.data })
      const calls = rec.to("/api/v2/trend")
      expect(calls.map((c) => [c.status, c.headers.get("if-none-match")])).toEqual([
        [200, null],
        [304, first.etag]
      ])
      expect(calls[0]!.url.search).toBe(`?lat=${snapped(p.lat)}&lon=${snapped(p.lon)}`)
      await later.close()
    })
  })

  describe("the spells view", () => {
    it("is fetched and stored on its own and revalidated by a later client with a 304 on the wire", async () => {
      const store = memoryStore()
      const rec = recorder()
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch, store })
      const p = fresh()
      await client.load(p.lat, p.lon)
      expect(rec.to("/api/v2/spells")).toEqual([])
      const first = await client.view("spells", p.lat, p.lon)
      expect(first.source).toBe("network")
      expect(first.data).toMatchObject({
        view: "spells",
        v: 1,
        cell: { lat: Number(snapped(p.lat)) },
        now: expect.any(Array),
        top: { heat: expect.any(Array), cold: expect.any(Array), dry: expect.any(Array), wet: expect.any(Array) },
        years: expect.any(Array),
        recent: expect.any(Array)
      })
      const key = `/spells?lat=${snapped(p.lat)}&lon=${snapped(p.lon)}`
      expect((await store.get([key]))[0]).toMatchObject({ key, etag: first.etag, v: 1 })
      await client.close()

      const later = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch, store })
      const again = await later.view("spells", p.lat, p.lon)
      expect(again).toMatchObject({ source: "revalidated", etag: first.etag, data: first.data })
      expect(rec.to("/api/v2/spells").map((c) => [c.status, c.headers.get("if-none-match")])).toEqual([
        [200, null],
        [304, first.etag]
      ])
      await later.close()
    })
  })

  describe("load", () => {
    it("peek: the stored bundle as cache results, or null, and never a request", async () => {
      const rec = recorder()
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch, store: memoryStore() })
      const p = fresh()
      expect(await client.peek(p.lat, p.lon)).toBeNull()
      expect(rec.calls).toEqual([])
      const loaded = await client.load(p.lat, p.lon)
      client.cancelWarmUp()
      const calls = rec.calls.length
      const peeked = await client.peek(p.lat, p.lon)
      expect(rec.calls.length).toBe(calls)
      expect(peeked!.cell).toEqual(loaded.cell)
      for (const v of ["grade", "forecast", "calendar", "day"] as const) {
        expect(peeked![v]).toMatchObject({ source: "cache", etag: loaded[v]!.etag, data: loaded[v]!.data })
      }
      await client.close()
    })

    it("one /cell request seeds all four views under their own keys and ETags", async () => {
      const rec = recorder()
      const store = memoryStore()
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch, store })
      const p = fresh()
      const loaded = await client.load(p.lat, p.lon)
      client.cancelWarmUp()
      expect(loaded.cell).toMatchObject({ lat: Number(snapped(p.lat)), lon: Number(snapped(p.lon)), timezone: "Europe/Berlin" })
      for (const v of ["grade", "forecast", "calendar", "day"] as const) {
        expect(loaded[v]).toMatchObject({ source: "network", etag: expect.stringMatching(/^W\//), data: { view: v } })
      }
      expect(rec.calls.map((c) => c.url.pathname)).toEqual(["/api/v2/cell"])
      expect(rec.calls[0]!.url.search).toBe(`?lat=${snapped(p.lat)}&lon=${snapped(p.lon)}`)
      // Each view now revalidates with its slice's ETag, and the server agrees: 304 on the wire.
      const grade = await client.view("grade", p.lat, p.lon)
      const forecast = await client.view("forecast", p.lat, p.lon)
      const calendar = await client.view("calendar", p.lat, p.lon, { months: "24" })
      const day = await client.view("day", p.lat, p.lon)
      for (const r of [grade, forecast, calendar, day]) expect(r.source).toBe("revalidated")
      expect(calendar.data).toEqual(loaded.calendar.data)
      const perView = rec.calls.slice(1)
      expect(perView.map((c) => c.url.pathname)).toEqual(["grade", "forecast", "calendar", "day"].map((v) => `/api/v2/${v}`))
      expect(perView.map((c) => c.status)).toEqual([304, 304, 304, 304])
      expect(perView.map((c) => c.headers.get("if-none-match"))).toEqual([
        loaded.grade!.etag,
        loaded.forecast!.etag,
        loaded.calendar.etag,
        loaded.day.etag
      ])
      await client.close()
    })

    it("a second load of the cell is one conditional /cell request: 304, every view revalidated", async () => {
      const rec = recorder()
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch })
      const p = fresh()
      const first = await client.load(p.lat, p.lon)
      const second = await client.load(p.lat, p.lon)
      client.cancelWarmUp()
      const cells = rec.to("/api/v2/cell").filter((c) => !c.url.searchParams.has("prefetch"))
      expect(cells.map((c) => c.status)).toEqual([200, 304])
      expect(cells[1]!.headers.get("if-none-match")).toMatch(/^W\//)
      expect(second.calendar).toMatchObject({ source: "revalidated", etag: first.calendar.etag, data: first.calendar.data })
      expect(second.grade?.source).toBe("revalidated")
      expect(second.cell).toEqual(first.cell)
      await client.close()
    })
  })

  describe("load, more", () => {
    it("concurrent loads of one cell share one /cell request", async () => {
      const rec = recorder()
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch })
      const p = fresh()
      const [a, b] = await Promise.all([client.load(p.lat, p.lon), client.load(p.lat + 0.01, p.lon)])
      client.cancelWarmUp()
      expect(rec.to("/api/v2/cell")).toHaveLength(1)
      expect(a.calendar.etag).toBe(b.calendar.etag)
      await client.close()
    })

    it("a 304 to /cell with no bundle stored refetches once, unconditionally", async () => {
      const rec = recorder((url, init, real) => {
        const first = rec.calls.length === 1
        return real(url, first ? { ...init, headers: { ...(init?.headers as Record<string, string>), "if-none-match": "*" } } : init)
      })
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch })
      const p = fresh()
      const loaded = await client.load(p.lat, p.lon)
      client.cancelWarmUp()
      expect(loaded.day.source).toBe("network")
      expect(rec.to("/api/v2/cell").map((c) => [c.status, c.headers.get("if-none-match")])).toEqual([
        [304, null],
        [200, null]
      ])
      await client.close()
    })
  })

  describe("watch", () => {
    it("yields the cached copy first (when there is one), then the outcome", async () => {
      const rec = recorder()
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch })
      const p = fresh()
      const collect = async () => {
        const out = []
        for await (const r of client.watch("forecast", p.lat, p.lon)) out.push(r)
        return out
      }
      const cold = await collect()
      expect(cold.map((r) => r.source)).toEqual(["network"])
      const warm = await collect()
      expect(warm.map((r) => r.source)).toEqual(["cache", "revalidated"])
      expect(warm[0]!.data).toEqual(cold[0]!.data)
      expect(rec.to("/api/v2/forecast").map((c) => c.status)).toEqual([200, 304])
      await client.close()
    })
  })

  describe("pruning", () => {
    it("entries idle for more than 14 days are removed by prune() and when a client is created", async () => {
      const DAY = 24 * 60 * 60 * 1000
      let now = Date.UTC(2026, 0, 1)
      const store = memoryStore()
      const rec = recorder()
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch, store, now: () => now })
      const a = fresh()
      const b = fresh()
      const stored = await client.view("grade", a.lat, a.lon)
      expect(stored.storedAt).toBe(now)
      now += 10 * DAY
      await client.view("grade", b.lat, b.lon)
      now += 4 * DAY
      expect(await client.prune()).toBe(0) // exactly 14 days is not more than 14 days
      now += 1
      expect(await client.prune()).toBe(1)
      await client.close()
      // b was last touched 4 days + 1 ms ago; 10 more days and a new client prunes it at creation.
      now += 10 * DAY
      const later = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch, store, now: () => now })
      const again = await later.view("grade", b.lat, b.lon)
      expect(again.source).toBe("network")
      expect(rec.calls.at(-1)!.headers.get("if-none-match")).toBeNull()
      expect(await later.prune()).toBe(0)
      await later.close()
    })
  })
})
