/**
 * The browser store: IndexedDB through `idb`, one object store keyed by the cache key with an index
 * on last access (pruning and LRU eviction walk it without reading bodies). Where IndexedDB is
 * missing, or cannot be opened (private windows), it falls back to memory.
 */
import { type DBSchema, type IDBPDatabase, openDB } from "idb"
import * as Effect from "effect/Effect"
import * as MemoryStore from "./MemoryStore.js"
import { type AccessRecord, QuotaExceeded, StorageFailure, type Store, type StoredEntry } from "./Store.js"

interface CacheSchema extends DBSchema {
  entries: { key: string; value: StoredEntry; indexes: { lastAccess: number } }
}

const VERSION = 1

const isQuotaError = (e: unknown): boolean =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "QuotaExceededError"

export const make = (name = "climate-grade-client"): Store => {
  if (typeof indexedDB === "undefined") return MemoryStore.make()
  let connection: Promise<IDBPDatabase<CacheSchema>> | undefined
  let fallback: Store | undefined

  const open = (): Promise<IDBPDatabase<CacheSchema>> => {
    if (connection !== undefined) return connection
    const opening = openDB<CacheSchema>(name, VERSION, {
      upgrade(db) {
        const entries = db.createObjectStore("entries", { keyPath: "key" })
        entries.createIndex("lastAccess", "lastAccess")
      },
      // Another tab wants a newer version: step aside (it would wait on us forever otherwise).
      blocking() {
        void opening.then((db) => db.close())
        if (connection === opening) connection = undefined
      },
      terminated() {
        if (connection === opening) connection = undefined
      }
    })
    connection = opening
    // A browser that has IndexedDB but will not open it (a private window) gets memory instead.
    opening.catch(() => {
      if (connection === opening) connection = undefined
      fallback ??= MemoryStore.make()
    })
    return opening
  }

  const use = <A, E>(
    onMemory: (store: Store) => Effect.Effect<A, E>,
    run: (db: IDBPDatabase<CacheSchema>) => Promise<A>,
    failure: (cause: unknown) => E | StorageFailure = (cause) => new StorageFailure({ cause })
  ): Effect.Effect<A, E | StorageFailure> =>
    Effect.suspend((): Effect.Effect<A, E | StorageFailure> => {
      if (fallback !== undefined) return onMemory(fallback)
      return Effect.tryPromise({ try: () => open(), catch: (cause) => cause }).pipe(
        Effect.matchEffect({
          onFailure: (cause): Effect.Effect<A, E | StorageFailure> =>
            fallback === undefined ? Effect.fail(new StorageFailure({ cause })) : onMemory(fallback),
          onSuccess: (db) => Effect.tryPromise({ try: () => run(db), catch: failure })
        })
      )
    })

  return {
    get: (key) => use((m) => m.get(key), (db) => db.get("entries", key)),
    put: (entry) =>
      use(
        (m) => m.put(entry),
        (db) => db.put("entries", entry).then(() => undefined),
        (cause) => (isQuotaError(cause) ? new QuotaExceeded({ cause }) : new StorageFailure({ cause }))
      ),
    delete: (key) => use((m) => m.delete(key), (db) => db.delete("entries", key)),
    byLastAccess: (options = {}) =>
      use(
        (m) => m.byLastAccess(options),
        async (db) => {
          const range = options.before === undefined ? undefined : IDBKeyRange.upperBound(options.before, true)
          const out: Array<AccessRecord> = []
          const tx = db.transaction("entries")
          let cursor = await tx.store.index("lastAccess").openKeyCursor(range)
          while (cursor !== null && (options.limit === undefined || out.length < options.limit)) {
            out.push({ key: cursor.primaryKey, lastAccess: cursor.key })
            cursor = await cursor.continue()
          }
          return out
        }
      ),
    // Closed now; a later call opens it again, so a store can outlive one client.
    close: Effect.promise(async () => {
      const current = connection
      connection = undefined
      if (current !== undefined) await current.then((db) => db.close()).catch(() => undefined)
    })
  }
}
