/** The IndexedDB adapter on fake-indexeddb: the port's operations, batches, upgrades by another tab, fallback. */
import "fake-indexeddb/auto"
import { describe, expect, it } from "vitest"
import { createClient, indexedDbStore, type StoredEntry } from "../src/index.js"
import { fakeApi, gradePayload } from "./support/FakeApi.js"

const entry = (key: string, lastAccess: number): StoredEntry => ({
  key,
  etag: `W/"${key}"`,
  v: 1,
  text: JSON.stringify({ view: "grade", key }),
  storedAt: lastAccess,
  lastAccess
})

let dbs = 0
const fresh = () => `test-db-${++dbs}`

/** Opens `name` at `version` as another tab would, with the raw API. */
const openRaw = (name: string, version?: number, onBlocked?: () => void): Promise<IDBDatabase> =>
  new Promise((resolve, reject) => {
    const request = indexedDB.open(name, version)
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error)
    request.onblocked = () => onBlocked?.()
  })

describe("IndexedDB store", () => {
  it("gets, puts, deletes, and lists entries by last access through the index", async () => {
    const store = indexedDbStore(fresh())
    await store.put([entry("c", 30), entry("a", 10)])
    await store.put([entry("d", 40), entry("b", 20)])
    expect(await store.get(["a", "nope", "d"])).toEqual([entry("a", 10), undefined, entry("d", 40)])
    expect((await store.byLastAccess()).map((r) => r.key)).toEqual(["a", "b", "c", "d"])
    expect(await store.byLastAccess({ before: 30 })).toEqual([
      { key: "a", lastAccess: 10 },
      { key: "b", lastAccess: 20 }
    ])
    expect((await store.byLastAccess({ limit: 3 })).map((r) => r.key)).toEqual(["a", "b", "c"])
    // A touch moves an entry to the back of the queue.
    await store.put([entry("a", 50)])
    expect((await store.byLastAccess()).map((r) => r.key)).toEqual(["b", "c", "d", "a"])
    await store.delete(["b", "c"])
    expect(await store.get(["b", "c"])).toEqual([undefined, undefined])
    await store.close()
    // Closed is not gone: the next call opens it again.
    expect((await store.byLastAccess()).map((r) => r.key)).toEqual(["d", "a"])
    await store.close()
  })

  it("a batch is one transaction: a write refused part-way stores none of it", async () => {
    const store = indexedDbStore(fresh())
    await store.put([entry("a", 1)])
    const put = IDBObjectStore.prototype.put
    let calls = 0
    IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore["put"]>) {
      if (++calls === 2) throw new DOMException("The quota has been exceeded.", "QuotaExceededError")
      return put.apply(this, args)
    }
    try {
      await expect(store.put([entry("a", 9), entry("b", 2), entry("c", 3)])).rejects.toMatchObject({ _tag: "QuotaExceeded" })
    } finally {
      IDBObjectStore.prototype.put = put
    }
    expect(await store.get(["a", "b", "c"])).toEqual([entry("a", 1), undefined, undefined])
    await store.close()
  })

  it("clears the entries of the earlier format (decoded objects) when it opens", async () => {
    const name = fresh()
    const old = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open(name, 1)
      request.onupgradeneeded = () => request.result.createObjectStore("entries", { keyPath: "key" }).createIndex("lastAccess", "lastAccess")
      request.onsuccess = () => resolve(request.result)
      request.onerror = () => reject(request.error)
    })
    await new Promise<void>((resolve, reject) => {
      const tx = old.transaction("entries", "readwrite")
      tx.objectStore("entries").put({ key: "k", etag: null, v: 1, data: { view: "grade" }, storedAt: 0, lastAccess: 0 })
      tx.oncomplete = () => resolve()
      tx.onerror = () => reject(tx.error)
    })
    old.close()
    const store = indexedDbStore(name)
    expect(await store.get(["k"])).toEqual([undefined])
    await store.put([entry("a", 1)])
    expect(await store.byLastAccess()).toEqual([{ key: "a", lastAccess: 1 }])
    await store.close()
  })

  it("closes itself when another tab upgrades the database, instead of blocking it", async () => {
    const name = fresh()
    const store = indexedDbStore(name)
    await store.put([entry("a", 1)])
    let blocked = false
    const upgraded = await openRaw(name, 3, () => {
      blocked = true
    })
    expect(blocked).toBe(false)
    expect(upgraded.version).toBe(3)
    upgraded.close()
    // The old tab keeps working (on memory, since its version is now too old to open).
    expect(await store.get(["a"])).toEqual([undefined])
    await store.put([entry("b", 2)])
    expect(await store.get(["b"])).toEqual([entry("b", 2)])
  })

  it("falls back to memory where IndexedDB is missing", async () => {
    const saved = globalThis.indexedDB
    // @ts-expect-error: a browser without IndexedDB
    delete globalThis.indexedDB
    try {
      const store = indexedDbStore(fresh())
      await store.put([entry("a", 1)])
      expect(await store.get(["a"])).toEqual([entry("a", 1)])
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
    const keys = (await store.byLastAccess()).map((r) => r.key)
    // The least recently used half of the others (one of two) made room for the new entry.
    expect(keys).toEqual(["/grade?lat=2.00&lon=2.00", "/grade?lat=3.00&lon=3.00"])
    await client.close()
  })

  it("carries a client's copies across clients (a page reload), revalidating them", async () => {
    const name = fresh()
    const api = fakeApi()
    const first = createClient({ baseUrl: "http://api.test/api/v2", fetch: api.fetch, store: indexedDbStore(name) })
    const stored = await first.view("grade", 52.5, 13.5)
    expect(stored.data).toEqual(gradePayload(52.5, 13.5))
    await first.close()
    const second = createClient({ baseUrl: "http://api.test/api/v2", fetch: api.fetch, store: indexedDbStore(name) })
    const again = await second.view("grade", 52.5, 13.5)
    expect(again).toMatchObject({ source: "revalidated", data: stored.data, etag: stored.etag })
    expect(api.requests.map((r) => r.ifNoneMatch)).toEqual([null, stored.etag])
    await second.close()
  })
})
