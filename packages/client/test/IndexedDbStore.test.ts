/** The IndexedDB adapter on fake-indexeddb: the port's operations, upgrades by another tab, fallback. */
import "fake-indexeddb/auto"
import { openDB } from "idb"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { createClient, indexedDbStore, type StoredEntry } from "../src/index.js"
import { fakeApi } from "./support/FakeApi.js"

const entry = (key: string, lastAccess: number): StoredEntry => ({
  key,
  etag: `W/"${key}"`,
  v: 1,
  data: { view: "grade", key },
  storedAt: lastAccess,
  lastAccess
})

let dbs = 0
const fresh = () => `test-db-${++dbs}`

describe("IndexedDB store", () => {
  it("gets, puts, deletes, and lists entries by last access through the index", async () => {
    const store = indexedDbStore(fresh())
    await Effect.runPromise(
      Effect.gen(function* () {
        for (const [key, at] of [["c", 30], ["a", 10], ["d", 40], ["b", 20]] as const) yield* store.put(entry(key, at))
        expect(yield* store.get("a")).toEqual(entry("a", 10))
        expect(yield* store.get("nope")).toBeUndefined()
        expect((yield* store.byLastAccess()).map((r) => r.key)).toEqual(["a", "b", "c", "d"])
        expect(yield* store.byLastAccess({ before: 30 })).toEqual([
          { key: "a", lastAccess: 10 },
          { key: "b", lastAccess: 20 }
        ])
        expect((yield* store.byLastAccess({ limit: 3 })).map((r) => r.key)).toEqual(["a", "b", "c"])
        // A touch moves an entry to the back of the queue.
        yield* store.put(entry("a", 50))
        expect((yield* store.byLastAccess()).map((r) => r.key)).toEqual(["b", "c", "d", "a"])
        yield* store.delete("b")
        expect(yield* store.get("b")).toBeUndefined()
        yield* store.close
        // Closed is not gone: the next call opens it again.
        expect((yield* store.byLastAccess()).map((r) => r.key)).toEqual(["c", "d", "a"])
        yield* store.close
      })
    )
  })

  it("closes itself when another tab upgrades the database, instead of blocking it", async () => {
    const name = fresh()
    const store = indexedDbStore(name)
    await Effect.runPromise(store.put(entry("a", 1)))
    let blocked = false
    const upgraded = await openDB(name, 2, {
      blocked() {
        blocked = true
      }
    })
    expect(blocked).toBe(false)
    expect(upgraded.version).toBe(2)
    upgraded.close()
    // The old tab keeps working (on memory, since its version is now too old to open).
    await expect(Effect.runPromise(store.get("a"))).resolves.toBeUndefined()
    await Effect.runPromise(store.put(entry("b", 2)))
    await expect(Effect.runPromise(store.get("b"))).resolves.toEqual(entry("b", 2))
  })

  it("falls back to memory where IndexedDB is missing", async () => {
    const saved = globalThis.indexedDB
    // @ts-expect-error: a browser without IndexedDB
    delete globalThis.indexedDB
    try {
      const store = indexedDbStore(fresh())
      await Effect.runPromise(store.put(entry("a", 1)))
      await expect(Effect.runPromise(store.get("a"))).resolves.toEqual(entry("a", 1))
    } finally {
      globalThis.indexedDB = saved
    }
  })

  it("a QuotaExceededError from IndexedDB is the port's QuotaExceeded: the client evicts and retries once", async () => {
    const name = fresh()
    const api = fakeApi()
    const store = indexedDbStore(name)
    let now = 1_000
    const client = createClient({ baseUrl: "http://api.test/api/v2", fetch: api.fetch, store, now: () => now })
    await client.view("grade", 1, 1)
    now += 1_000
    await client.view("grade", 2, 2)
    now += 1_000
    // The next write is refused once, as a full origin's would be.
    const put = IDBObjectStore.prototype.put
    let refusals = 0
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore["put"]>) {
      if (refusals++ === 0) throw new DOMException("The quota has been exceeded.", "QuotaExceededError")
      return put.apply(this, args)
    }
    try {
      expect((await client.view("grade", 3, 3)).source).toBe("network")
    } finally {
      IDBObjectStore.prototype.put = put
    }
    expect(refusals).toBe(2)
    const keys = (await Effect.runPromise(store.byLastAccess())).map((r) => r.key)
    // The least recently used half of the others (one of two) made room for the new entry.
    expect(keys).toEqual(["/grade?lat=2.00&lon=2.00", "/grade?lat=3.00&lon=3.00"])
    await client.close()
  })

  it("carries a client's copies across clients (a page reload), revalidating them", async () => {
    const name = fresh()
    const api = fakeApi()
    const first = createClient({ baseUrl: "http://api.test/api/v2", fetch: api.fetch, store: indexedDbStore(name) })
    const stored = await first.view("grade", 52.5, 13.5)
    await first.close()
    const second = createClient({ baseUrl: "http://api.test/api/v2", fetch: api.fetch, store: indexedDbStore(name) })
    const again = await second.view("grade", 52.5, 13.5)
    expect(again).toMatchObject({ source: "revalidated", data: stored.data, etag: stored.etag })
    expect(api.requests.map((r) => r.ifNoneMatch)).toEqual([null, stored.etag])
    await second.close()
  })
})
