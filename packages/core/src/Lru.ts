/**
 * The one least-recently-used cache of the service (record cache, gradings, stored payloads,
 * the response index): bounded in entries and, optionally, in a weight such as bytes. A `get`
 * makes an entry the most recently used; `peek` does not. No clock: expiry is the caller's rule.
 * A Map keeps insertion order, so its first key is always the least recently used.
 */
export interface Lru<K, V> {
  readonly get: (key: K) => V | undefined
  readonly peek: (key: K) => V | undefined
  /** Inserts or replaces, as the most recently used, then evicts from the least recently used end. */
  readonly set: (key: K, value: V) => void
  readonly delete: (key: K) => void
  readonly size: () => number
  /** The total weight held (0 without a `weigh`). */
  readonly weight: () => number
  /**
   * Weighs `key`'s entry again, after its value changed what it weighs (something built later
   * and kept on it), then evicts from the least recently used end as `set` does.
   */
  readonly reweigh: (key: K) => void
}

export interface LruOptions<K, V> {
  /**
   * Reported under this name by `registered` (the service's /metrics); a later cache of the
   * same name replaces an earlier one there.
   */
  readonly name?: string
  /** At most this many entries (at least 1). */
  readonly capacity: number
  /** At most this total weight; an entry heavier than this alone is not kept. */
  readonly maxWeight?: number
  /**
   * An entry's weight; the key is given too, for a cache whose keys weigh (long URLs). Taken when
   * the entry is set (or `reweigh`ed) and kept: what leaves the total is what was added.
   */
  readonly weigh?: (value: V, key: K) => number
  /** Told of every entry that leaves: evicted, replaced by `set`, or deleted. */
  readonly onRemove?: (key: K, value: V) => void
}

/** A named cache as /metrics reports it: its weight (bytes, for every cache of the service) and entries. */
export interface Registered {
  readonly name: string
  readonly maxWeight: number
  readonly weight: () => number
  readonly size: () => number
}

const registry = new Map<string, Registered>()

/** Every named cache made in this process (the latest of each name), by name. */
export const registered = (): ReadonlyArray<Registered> => [...registry.values()].sort((a, b) => a.name.localeCompare(b.name))

export const make = <K, V>(options: LruOptions<K, V>): Lru<K, V> => {
  const capacity = Math.max(1, options.capacity)
  const maxWeight = options.maxWeight ?? Infinity
  const weigh = options.weigh
  const onRemove = options.onRemove
  const entries = new Map<K, V>()
  // Each entry's weight as it was counted (only with a `weigh`).
  const weights = new Map<K, number>()
  let total = 0
  const remove = (key: K) => {
    const value = entries.get(key)
    if (value === undefined && !entries.has(key)) return
    if (weigh !== undefined) {
      total -= weights.get(key) ?? 0
      weights.delete(key)
    }
    entries.delete(key)
    onRemove?.(key, value as V)
  }
  const evict = () => {
    while (entries.size > capacity || total > maxWeight) remove(entries.keys().next().value as K)
  }
  const lru: Lru<K, V> = {
    get: (key) => {
      if (!entries.has(key)) return undefined
      const value = entries.get(key) as V
      entries.delete(key)
      entries.set(key, value)
      return value
    },
    peek: (key) => entries.get(key),
    set: (key, value) => {
      remove(key)
      entries.set(key, value)
      if (weigh !== undefined) {
        const weight = weigh(value, key)
        weights.set(key, weight)
        total += weight
      }
      evict()
    },
    delete: remove,
    size: () => entries.size,
    weight: () => total,
    reweigh: (key) => {
      if (weigh === undefined || !entries.has(key)) return
      const weight = weigh(entries.get(key) as V, key)
      total += weight - (weights.get(key) ?? 0)
      weights.set(key, weight)
      evict()
    }
  }
  if (options.name !== undefined) registry.set(options.name, { name: options.name, maxWeight, weight: lru.weight, size: lru.size })
  return lru
}
