/**
 * Decoded cell records kept in memory (least recently used dropped first), in front of the
 * `CellStore`. The flows read through it and patch it after each write, so a warm cell is
 * answered without touching the database.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Lru from "../Lru.js"
import type { CellRecord, CellStore } from "./CellStore.js"
import { bytes } from "./DailySeries.js"
import { emptyRecord } from "./Held.js"

/** 24 MB of decoded records: ~32 cells of 86 years (~750 KB each as float64). */
export const DEFAULT_BYTES = 24 * 1024 * 1024

export interface RecordCache {
  /** The record as this process knows it: cached, else loaded. */
  readonly current: (key: string) => Effect.Effect<CellRecord>
  /** Inside a claim: the record as it is now, as the store answers given what is cached (`CellStore.latest`). */
  readonly latest: (key: string) => Effect.Effect<CellRecord>
  /** Merges into what is cached now, so concurrent history and forecast updates keep each other's fields. */
  readonly patch: (base: CellRecord, fields: Partial<CellRecord>) => CellRecord
  /**
   * What `pick` finds in the cached record, answered without a flight, a fiber or a span (the
   * hot path); else `slow`.
   */
  readonly cachedOr: <A, E>(
    key: string,
    pick: (record: CellRecord, now: number) => A | undefined,
    slow: Effect.Effect<A, E>
  ) => Effect.Effect<A, E>
}

/** What a record holds in memory: its two series, and a little for the rest. */
const weigh = (record: CellRecord) => bytes(record.history) + bytes(record.forecast) + 256

export const make = (store: CellStore["Type"], capacity: number, maxBytes = DEFAULT_BYTES): RecordCache => {
  const cache = Lru.make<string, CellRecord>({ name: "records", capacity, maxWeight: maxBytes, weigh })
  const remember = (record: CellRecord) => {
    cache.set(record.key, record)
    return record
  }
  const remembered = (key: string) => (stored: Option.Option<CellRecord>) =>
    remember(Option.getOrElse(stored, () => emptyRecord(key)))
  const load = (key: string) => Effect.map(store.load(key), remembered(key))
  const current = (key: string) =>
    Effect.suspend(() => {
      // A hit becomes the most recently used.
      const hit = cache.get(key)
      return hit === undefined ? load(key) : Effect.succeed(hit)
    })
  return {
    current,
    latest: (key) =>
      Effect.suspend(() => Effect.map(store.latest(key, Option.fromNullable(cache.get(key))), remembered(key))),
    patch: (base, fields) => remember({ ...(cache.peek(base.key) ?? base), ...fields }),
    cachedOr: (key, pick, slow) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const record = cache.get(key)
        const held = record === undefined ? undefined : pick(record, now)
        return held !== undefined ? Effect.succeed(held) : slow
      })
  }
}
