/**
 * Warming the neighbour cells, against the real server: measured from the requests the client
 * makes (their start times, parameters and aborts), not from its own account.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createClient, memoryStore, type Store } from "../src/index.js"
import { cellOf, neighbours } from "../src/Keys.js"
import { backends } from "@climate-grade/testing"
import { hang, type Recorded, recorder, sleep, startWorld, until, type World } from "./support/World.js"

let world: World

const isPrefetch = (c: Recorded) => c.url.pathname === "/api/v2/cell" && c.url.searchParams.get("prefetch") === "1"
const cellParams = (c: Recorded) => `${c.url.searchParams.get("lat")},${c.url.searchParams.get("lon")}`
const keyOf = (cell: { lat: number; lon: number }) => `${cell.lat.toFixed(2)},${cell.lon.toFixed(2)}`

for (const backend of backends) describe(`on ${backend.name}`, () => {
  beforeAll(async () => {
    world = await startWorld(backend)
  }, 180_000)
  afterAll(() => world?.stop())

  describe("neighbour warm-up", () => {
    it("after load, the 8 neighbours with prefetch=1, one at a time, starts ≥ 1100 ms apart; 204 stores nothing", async () => {
      const centre = cellOf(20.01, 30.01)
      const north = { lat: centre.lat + 0.25, lon: centre.lon }
      // The northern neighbour has history on the server already; the others have none (204).
      const other = createClient({ baseUrl: world.baseUrl })
      await other.view("calendar", north.lat, north.lon)
      await other.close()

      const rec = recorder()
      const store = memoryStore()
      // Asked for less than the floor: raised to 1100.
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch, store, neighbourSpacingMs: 50 })
      await client.load(centre.lat, centre.lon)
      const cellCall = rec.calls[0]!
      expect(rec.calls.filter(isPrefetch)).toHaveLength(0) // none before load resolved
      await until(() => rec.calls.filter(isPrefetch).filter((c) => c.status !== null).length === 8, 30_000)
      await sleep(1300)
      const warm = rec.calls.filter(isPrefetch)
      expect(warm).toHaveLength(8) // and no more
      expect(new Set(warm.map(cellParams))).toEqual(new Set(neighbours(centre).map(keyOf)))
      // Spacing, from the requests themselves: each start ≥ 1100 ms after the previous one (the
      // first after the load's own /cell), and after the previous answer (one at a time).
      const starts = [cellCall, ...warm]
      for (let i = 1; i < starts.length; i++) {
        expect(starts[i]!.start - starts[i - 1]!.start).toBeGreaterThanOrEqual(1100)
        expect(starts[i]!.start).toBeGreaterThanOrEqual(starts[i - 1]!.end!)
      }
      expect(warm.map((c) => (cellParams(c) === keyOf(north) ? c.status : c.status === 204))).toEqual(
        warm.map((c) => (cellParams(c) === keyOf(north) ? 200 : true))
      )
      // The warmed slices are stored under their views' keys, with their ETags: the views revalidate.
      const calendar = await client.view("calendar", north.lat, north.lon, { months: "24" })
      expect(calendar.source).toBe("revalidated")
      const dayKeys = rec.calls.length // marker: requests before the day lookups
      const storedDayKey = await findStoredDayKey(store, north)
      expect(storedDayKey).toMatch(/^\/day\?date=\d{4}-\d{2}-\d{2}&lat=/)
      const date = new URLSearchParams(storedDayKey!.split("?")[1]).get("date")!
      expect((await client.view("day", north.lat, north.lon, { date })).source).toBe("revalidated")
      expect(rec.calls.slice(dayKeys).map((c) => c.status)).toEqual([304])
      // A 204 neighbour stored nothing: its view is fetched unconditionally.
      const south = { lat: centre.lat - 0.25, lon: centre.lon }
      await client.view("calendar", south.lat, south.lon, { months: "24" })
      expect(rec.calls.at(-1)!.headers.get("if-none-match")).toBeNull()
      await client.close()
    }, 60_000)

    it("cancelWarmUp() cancels the queue and aborts the request in flight", async () => {
      const rec = recorder((url, init, real) => (url.includes("prefetch=1") ? hang(init) : real(url, init)))
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch })
      await client.load(-20.01, -30.01)
      await until(() => rec.calls.some(isPrefetch))
      expect(rec.calls.filter(isPrefetch)[0]!.aborted).toBe(false)
      client.cancelWarmUp()
      await until(() => rec.calls.filter(isPrefetch)[0]!.aborted)
      await sleep(1500)
      expect(rec.calls.filter(isPrefetch)).toHaveLength(1)
      await client.close()
    }, 30_000)

    it("a new load() cancels the previous warm-up, aborts its request, and warms around the new cell; close() aborts too", async () => {
      const rec = recorder((url, init, real) => (url.includes("prefetch=1") ? hang(init) : real(url, init)))
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch })
      const a = cellOf(-40.01, 50.01)
      const b = cellOf(-41.01, 51.01)
      await client.load(a.lat, a.lon)
      await until(() => rec.calls.some(isPrefetch))
      const first = rec.calls.filter(isPrefetch)[0]!
      expect(neighbours(a).map(keyOf)).toContain(cellParams(first))
      await client.load(b.lat, b.lon)
      expect(first.aborted).toBe(true)
      await until(() => rec.calls.filter(isPrefetch).length === 2)
      const second = rec.calls.filter(isPrefetch)[1]!
      expect(neighbours(b).map(keyOf)).toContain(cellParams(second))
      await client.close()
      expect(second.aborted).toBe(true)
      await sleep(1500)
      expect(rec.calls.filter(isPrefetch)).toHaveLength(2)
      await expect(client.view("grade", b.lat, b.lon)).rejects.toThrow(/closed/)
    }, 30_000)
  })
})

/** The stored key of the warm-up's day slice for `cell` (its date is the record's last day). */
const findStoredDayKey = async (store: Store, cell: { lat: number; lon: number }) => {
  const records = await store.byLastAccess()
  const tail = `&lat=${cell.lat.toFixed(2)}&lon=${cell.lon.toFixed(2)}`
  return records.map((r) => r.key).find((k) => k.startsWith("/day?date=") && k.endsWith(tail))
}
