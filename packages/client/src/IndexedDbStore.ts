/**
 * The browser store: IndexedDB, one object store keyed by the cache key with an index on last
 * access (pruning and LRU eviction walk it without reading bodies). Each batch is one transaction.
 * Where IndexedDB is missing, or cannot be opened (private windows, a newer version held by another
 * tab), it falls back to memory.
 *
 * The raw API, not `idb`: the client needs five operations, and the two promise helpers below are
 * all of `idb` it would use.
 */
import * as MemoryStore from "./MemoryStore.js"
import { type AccessRecord, QuotaExceeded, StorageFailure, type Store } from "./Store.js"

/** 2: entries keep the payload's text (version 1 kept a decoded object; those are cleared). */
const VERSION = 2
const ENTRIES = "entries"
const LAST_ACCESS = "lastAccess"

const done = <T>(request: IDBRequest<T>): Promise<T> =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error)
  })

const committed = (tx: IDBTransaction): Promise<void> =>
  new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve()
    tx.onerror = tx.onabort = () => reject(tx.error ?? new DOMException("The transaction was aborted.", "AbortError"))
  })

const failure = (cause: unknown): QuotaExceeded | StorageFailure =>
  (cause as { name?: unknown } | null)?.name === "QuotaExceededError" ? new QuotaExceeded(cause) : new StorageFailure(cause)

export const make = (name = "climate-grade-client"): Store => {
  if (typeof indexedDB === "undefined") return MemoryStore.make()
  let connection: Promise<IDBDatabase> | undefined
  let fallback: Store | undefined

  const open = (): Promise<IDBDatabase> => {
    if (connection !== undefined) return connection
    const request = indexedDB.open(name, VERSION)
    request.onupgradeneeded = () => {
      const db = request.result
      if (db.objectStoreNames.contains(ENTRIES)) request.transaction!.objectStore(ENTRIES).clear()
      else db.createObjectStore(ENTRIES, { keyPath: "key" }).createIndex(LAST_ACCESS, LAST_ACCESS)
    }
    const opening = done(request).then((db) => {
      const forget = () => {
        if (connection === opening) connection = undefined
      }
      // Another tab wants a newer version: step aside (it would wait on us forever otherwise).
      db.onversionchange = () => {
        db.close()
        forget()
      }
      db.onclose = forget
      return db
    })
    connection = opening
    // A browser that has IndexedDB but will not open it gets memory instead.
    opening.catch(() => {
      if (connection === opening) connection = undefined
      fallback ??= MemoryStore.make()
    })
    return opening
  }

  /** Runs `run` on the database, or the same operation on the memory fallback once there is one. */
  const use = async <A>(onMemory: (store: Store) => Promise<A>, run: (db: IDBDatabase) => Promise<A>): Promise<A> => {
    if (fallback !== undefined) return onMemory(fallback)
    let db: IDBDatabase
    try {
      db = await open()
    } catch (cause) {
      if (fallback !== undefined) return onMemory(fallback)
      throw new StorageFailure(cause)
    }
    try {
      return await run(db)
    } catch (cause) {
      throw failure(cause)
    }
  }

  /** A read-write transaction over `entries` that calls `each`; resolves once it commits. */
  const write = (db: IDBDatabase, each: (entries: IDBObjectStore) => void): Promise<void> => {
    const tx = db.transaction(ENTRIES, "readwrite")
    const result = committed(tx)
    try {
      each(tx.objectStore(ENTRIES))
    } catch (cause) {
      // A request refused at once (a value that cannot be cloned, a full origin): nothing is written.
      result.catch(() => undefined)
      tx.abort()
      throw cause
    }
    return result
  }

  return {
    get: (keys) =>
      use(
        (m) => m.get(keys),
        (db) => {
          const entries = db.transaction(ENTRIES).objectStore(ENTRIES)
          return Promise.all(keys.map((key) => done<unknown>(entries.get(key))))
        }
      ),
    put: (batch) =>
      use(
        (m) => m.put(batch),
        (db) =>
          write(db, (entries) => {
            for (const entry of batch) entries.put(entry)
          })
      ),
    delete: (keys) =>
      use(
        (m) => m.delete(keys),
        (db) =>
          write(db, (entries) => {
            for (const key of keys) entries.delete(key)
          })
      ),
    byLastAccess: (options = {}) =>
      use(
        (m) => m.byLastAccess(options),
        (db) =>
          new Promise((resolve, reject) => {
            const range = options.before === undefined ? null : IDBKeyRange.upperBound(options.before, true)
            const request = db.transaction(ENTRIES).objectStore(ENTRIES).index(LAST_ACCESS).openKeyCursor(range)
            const out: Array<AccessRecord> = []
            request.onerror = () => reject(request.error)
            request.onsuccess = () => {
              const cursor = request.result
              if (cursor === null || (options.limit !== undefined && out.length >= options.limit)) return resolve(out)
              out.push({ key: cursor.primaryKey as string, lastAccess: cursor.key as number })
              cursor.continue()
            }
          })
      ),
    // Closed now; a later call opens it again, so a store can outlive one client.
    close: async () => {
      const current = connection
      connection = undefined
      // One that never opened has nothing to close (its failure already chose the fallback).
      if (current !== undefined) await current.then((db) => db.close()).catch(() => undefined)
    }
  }
}
