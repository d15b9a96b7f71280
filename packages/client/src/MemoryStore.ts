/** The in-memory store: the default, and the fallback where IndexedDB is missing. */
import * as Effect from "effect/Effect"
import { type AccessRecord, QuotaExceeded, type Store, type StoredEntry } from "./Store.js"

export interface MemoryStoreOptions {
  /**
   * A quota on the entries' JSON size, in characters; a write that would pass it fails with
   * `QuotaExceeded`, as a browser's storage does. Default: none.
   */
  readonly quota?: number
}

const sizeOf = (entry: StoredEntry): number => JSON.stringify(entry).length

export const make = (options: MemoryStoreOptions = {}): Store => {
  const entries = new Map<string, { readonly entry: StoredEntry; readonly size: number }>()
  let used = 0
  return {
    get: (key) => Effect.sync(() => entries.get(key)?.entry),
    put: (entry) =>
      Effect.suspend(() => {
        const size = options.quota === undefined ? 0 : sizeOf(entry)
        const previous = entries.get(entry.key)?.size ?? 0
        if (options.quota !== undefined && used - previous + size > options.quota) {
          return Effect.fail(new QuotaExceeded({}))
        }
        // Kept as a copy, as a real store would: a caller's later change to its object is not stored.
        entries.set(entry.key, { entry: structuredClone(entry), size })
        used += size - previous
        return Effect.void
      }),
    delete: (key) =>
      Effect.sync(() => {
        used -= entries.get(key)?.size ?? 0
        entries.delete(key)
      }),
    byLastAccess: ({ before, limit } = {}) =>
      Effect.sync(() => {
        const all: Array<AccessRecord> = []
        for (const { entry } of entries.values()) {
          if (before === undefined || entry.lastAccess < before) all.push({ key: entry.key, lastAccess: entry.lastAccess })
        }
        all.sort((a, b) => a.lastAccess - b.lastAccess)
        return limit === undefined ? all : all.slice(0, limit)
      }),
    close: Effect.void
  }
}
