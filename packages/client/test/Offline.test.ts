/**
 * Revalidation offline: a stored copy is served `stale` when the network fails (a stopped
 * server), a request times out or the server answers 5xx; without one, the call rejects.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createClient, memoryStore, NetworkError, ServerError } from "../src/index.js"
import { backends } from "@climate-grade/testing"
import { hang, recorder, startWorld, type World } from "./support/World.js"

let world: World

for (const backend of backends) describe(`on ${backend.name}`, () => {
  beforeAll(async () => {
    world = await startWorld(backend)
  }, 180_000)
  afterAll(() => world?.stop())

  describe("offline", () => {
    it("a 5xx or a timeout serves the stored copy as stale; with nothing stored the call rejects", async () => {
      let mode: "through" | "503" | "hang" = "through"
      const rec = recorder((url, init, real) =>
        mode === "through" ? real(url, init) : mode === "503" ? Promise.resolve(new Response(null, { status: 503 })) : hang(init)
      )
      const store = memoryStore()
      // A cold cell takes longer than the short timeout below: a first client stores the copy.
      const warm = createClient({ baseUrl: world.baseUrl, store })
      const stored = await warm.view("grade", 10.01, 20.01)
      await warm.close()
      const client = createClient({ baseUrl: world.baseUrl, fetch: rec.fetch, timeoutMs: 300, store })
      mode = "503"
      const stale = await client.view("grade", 10.01, 20.01)
      expect(stale).toMatchObject({ source: "stale", data: stored.data, etag: stored.etag, storedAt: stored.storedAt })
      await expect(client.view("forecast", 10.01, 20.01)).rejects.toBeInstanceOf(ServerError)
      mode = "hang"
      const timedOut = await client.view("grade", 10.01, 20.01)
      expect(timedOut.source).toBe("stale")
      // The timed-out request was aborted, not left running.
      expect(rec.calls.at(-1)!.aborted).toBe(true)
      await expect(client.view("forecast", 10.01, 20.01)).rejects.toBeInstanceOf(NetworkError)
      await client.close()
    })

    it("a stopped server: views and the bundle come from the store, marked stale", async () => {
      const store = memoryStore()
      const client = createClient({ baseUrl: world.baseUrl, store })
      const loaded = await client.load(30.01, 40.01)
      client.cancelWarmUp()
      const calendar = await client.view("calendar", 30.01, 40.01, { months: "6" })
      await world.stop()

      const stale = await client.view("calendar", 30.01, 40.01, { months: "6" })
      expect(stale).toMatchObject({ source: "stale", data: calendar.data, etag: calendar.etag })
      const seeded = await client.view("day", 30.01, 40.01)
      expect(seeded).toMatchObject({ source: "stale", data: loaded.day.data, etag: loaded.day.etag })
      const again = await client.load(30.01, 40.01)
      client.cancelWarmUp()
      expect(again.calendar).toMatchObject({ source: "stale", data: loaded.calendar.data })
      expect(again.grade).toMatchObject({ source: "stale", data: loaded.grade!.data })
      expect(again.cell).toEqual(loaded.cell)
      await expect(client.view("grade", 50.01, 60.01)).rejects.toBeInstanceOf(NetworkError)
      await expect(client.load(50.01, 60.01)).rejects.toBeInstanceOf(NetworkError)
      await client.close()

      // A new client on the same store (a reload of the page) shows the same copies.
      const later = createClient({ baseUrl: world.baseUrl, store })
      expect((await later.view("calendar", 30.01, 40.01, { months: "6" })).source).toBe("stale")
      await later.close()
    })
  })
})
