/**
 * The storage port: what the client needs from a cache (CONTRACT.md §7). Adapters: `MemoryStore`,
 * `IndexedDbStore`. An entry is read back as `unknown` because a store outlives the code that wrote
 * it (IndexedDB keeps last month's entries); the client decodes it and drops what no longer fits.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export const StoredEntry = Schema.Struct({
  /** The cache key (Keys.ts). */
  key: Schema.String,
  etag: Schema.NullOr(Schema.String),
  /** The payload version the entry was written under (PAYLOAD_VER). */
  v: Schema.Number,
  data: Schema.Unknown,
  /** When the body was last confirmed by the server (200 or 304), epoch ms. */
  storedAt: Schema.Number,
  /** When the entry was last read or written, epoch ms: pruning and eviction go by it. */
  lastAccess: Schema.Number
})
export type StoredEntry = typeof StoredEntry.Type

/** The store refused a write for lack of space (IndexedDB's `QuotaExceededError`). */
export class QuotaExceeded extends Data.TaggedError("QuotaExceeded")<{ readonly cause?: unknown }> {
  override get message() {
    return "Storage quota exceeded"
  }
}

/** Any other storage fault (a closed or broken database). */
export class StorageFailure extends Data.TaggedError("StorageFailure")<{ readonly cause: unknown }> {
  override get message() {
    return `Storage failed: ${String(this.cause)}`
  }
}

export interface AccessRecord {
  readonly key: string
  readonly lastAccess: number
}

export interface Store {
  readonly get: (key: string) => Effect.Effect<unknown, StorageFailure>
  readonly put: (entry: StoredEntry) => Effect.Effect<void, QuotaExceeded | StorageFailure>
  readonly delete: (key: string) => Effect.Effect<void, StorageFailure>
  /**
   * Entries least recently accessed first; with `before`, only those accessed strictly before it;
   * with `limit`, at most that many.
   */
  readonly byLastAccess: (options?: {
    readonly before?: number
    readonly limit?: number
  }) => Effect.Effect<ReadonlyArray<AccessRecord>, StorageFailure>
  readonly close: Effect.Effect<void>
}

export class CacheStore extends Context.Tag("@climate-grade/client/CacheStore")<CacheStore, Store>() {}
