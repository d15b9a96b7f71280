/**
 * What goes from the store: entries untouched for two weeks, and after a
 * storage quota error the least recently used ones.
 */
import type { AccessRecord } from "./Store.js"

export const MAX_IDLE_MS = 14 * 24 * 60 * 60 * 1000

/** Entries last accessed strictly before this instant are pruned. */
export const pruneBefore = (now: number): number => now - MAX_IDLE_MS

export const isExpired = (lastAccess: number, now: number): boolean => lastAccess < pruneBefore(now)

/** The keys `prune()` removes at `now`. */
export const expired = (records: ReadonlyArray<AccessRecord>, now: number): ReadonlyArray<string> =>
  records.filter((r) => isExpired(r.lastAccess, now)).map((r) => r.key)

/**
 * After a quota error: the least recently used half (at least one) of the entries other than those
 * being written. Half, not one: a write refused once is likely refused again after a single eviction,
 * and a cache that is full now will be full again at the next place.
 */
export const evictionVictims = (records: ReadonlyArray<AccessRecord>, writing: ReadonlySet<string>): ReadonlyArray<string> => {
  const others = records.filter((r) => !writing.has(r.key)).sort((a, b) => a.lastAccess - b.lastAccess)
  return others.slice(0, Math.max(1, Math.ceil(others.length / 2))).map((r) => r.key)
}
