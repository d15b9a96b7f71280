/** The in-memory store: the default, and the fallback where IndexedDB is missing. */
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
    get: async (keys) => keys.map((key) => entries.get(key)?.entry),
    put: async (batch) => {
      const sized = batch.map((entry) => ({ entry: { ...entry }, size: options.quota === undefined ? 0 : sizeOf(entry) }))
      let next = used
      for (const { entry, size } of sized) next += size - (entries.get(entry.key)?.size ?? 0)
      // All or nothing, as one IndexedDB transaction.
      if (options.quota !== undefined && next > options.quota) throw new QuotaExceeded()
      for (const item of sized) entries.set(item.entry.key, item)
      used = next
    },
    delete: async (keys) => {
      for (const key of keys) {
        used -= entries.get(key)?.size ?? 0
        entries.delete(key)
      }
    },
    byLastAccess: async ({ before, limit } = {}) => {
      const all: Array<AccessRecord> = []
      for (const { entry } of entries.values()) {
        if (before === undefined || entry.lastAccess < before) all.push({ key: entry.key, lastAccess: entry.lastAccess })
      }
      all.sort((a, b) => a.lastAccess - b.lastAccess)
      return limit === undefined ? all : all.slice(0, limit)
    },
    close: async () => undefined
  }
}
