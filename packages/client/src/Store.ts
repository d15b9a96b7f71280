/**
 * The storage port: what the client needs from a cache. Adapters: `MemoryStore`, `IndexedDbStore`.
 * Every operation takes a batch, so one bundle is one transaction. An entry is read back as
 * `unknown`: a store outlives the code that wrote it (IndexedDB keeps last month's entries), and the
 * client checks each one (Payload.ts) and drops what no longer fits.
 */
export interface StoredEntry {
  /** The cache key (Keys.ts). */
  readonly key: string
  readonly etag: string | null
  /** The payload version the entry was written under (PAYLOAD_VER). */
  readonly v: number
  /**
   * The payload's JSON text as the server sent it: kept as text, a write is a copy of a string (not
   * a structured clone of an object graph) and a slice stored for later is never decoded now.
   */
  readonly text: string
  /** When the body was last confirmed by the server (200 or 304), epoch ms. */
  readonly storedAt: number
  /** When the entry was last read or written, epoch ms: pruning and eviction go by it. */
  readonly lastAccess: number
}

export interface AccessRecord {
  readonly key: string
  readonly lastAccess: number
}

/** The store refused a write for lack of space (IndexedDB's `QuotaExceededError`). */
export class QuotaExceeded extends Error {
  readonly _tag = "QuotaExceeded"
  override readonly name = "QuotaExceeded"
  constructor(cause?: unknown) {
    super("Storage quota exceeded", { cause })
  }
}

/** Any other storage fault (a closed or broken database). */
export class StorageFailure extends Error {
  readonly _tag = "StorageFailure"
  override readonly name = "StorageFailure"
  constructor(cause: unknown) {
    super(`Storage failed: ${String(cause)}`, { cause })
  }
}

export type StoreError = QuotaExceeded | StorageFailure

export interface Store {
  /** The entries under `keys`, in order; `undefined` where there is none. */
  readonly get: (keys: ReadonlyArray<string>) => Promise<ReadonlyArray<unknown>>
  /** Writes all of `entries` or none (one transaction). Rejects with a `StoreError`. */
  readonly put: (entries: ReadonlyArray<StoredEntry>) => Promise<void>
  readonly delete: (keys: ReadonlyArray<string>) => Promise<void>
  /**
   * Entries least recently accessed first; with `before`, only those accessed strictly before it;
   * with `limit`, at most that many.
   */
  readonly byLastAccess: (options?: {
    readonly before?: number
    readonly limit?: number
  }) => Promise<ReadonlyArray<AccessRecord>>
  readonly close: () => Promise<void>
}
