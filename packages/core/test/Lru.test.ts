import { describe, expect, it } from "@effect/vitest"
import { Lru } from "@climate-grade/core"
import * as FastCheck from "effect/FastCheck"

/** The plain model: an array, most recently used last. */
const model = (capacity: number, maxWeight: number) => {
  let items: Array<[number, number]> = []
  const weight = () => items.reduce((s, [, v]) => s + v, 0)
  return {
    get: (k: number) => {
      const hit = items.find(([key]) => key === k)
      if (hit !== undefined) items = [...items.filter(([key]) => key !== k), hit]
      return hit?.[1]
    },
    set: (k: number, v: number) => {
      items = [...items.filter(([key]) => key !== k), [k, v]]
      while (items.length > capacity || weight() > maxWeight) items.shift()
    },
    peek: (k: number) => items.find(([key]) => key === k)?.[1],
    delete: (k: number) => {
      items = items.filter(([key]) => key !== k)
    },
    keys: () => items.map(([k]) => k),
    weight
  }
}

describe("Lru", () => {
  it("behaves as the plain model under any sequence of gets, sets and deletes, bounded in entries and weight", () => {
    let evictions = 0
    FastCheck.assert(
      FastCheck.property(
        FastCheck.integer({ min: 1, max: 5 }),
        FastCheck.integer({ min: 5, max: 40 }),
        FastCheck.array(
          FastCheck.tuple(FastCheck.constantFrom("get", "set", "set", "delete", "peek"), FastCheck.nat(8), FastCheck.nat(12)),
          { minLength: 1, maxLength: 60 }
        ),
        (capacity, maxWeight, ops) => {
          const lru = Lru.make<number, number>({ capacity, maxWeight, weigh: (v) => v })
          const m = model(capacity, maxWeight)
          for (const [op, k, v] of ops) {
            if (op === "get") expect(lru.get(k)).toBe(m.get(k))
            else if (op === "peek") expect(lru.peek(k)).toBe(m.peek(k))
            else if (op === "delete") {
              lru.delete(k)
              m.delete(k)
            } else {
              const expected = m.keys().length + (m.keys().includes(k) ? 0 : 1)
              lru.set(k, v)
              m.set(k, v)
              if (m.keys().length < expected) evictions++
            }
            expect(lru.size()).toBe(m.keys().length)
            expect(lru.weight()).toBe(m.weight())
            expect(lru.size()).toBeLessThanOrEqual(capacity)
            expect(lru.weight()).toBeLessThanOrEqual(maxWeight)
          }
          for (const k of m.keys()) expect(lru.peek(k)).toBeDefined()
        }
      ),
      { numRuns: 300 }
    )
    expect(evictions).toBeGreaterThan(0)
  })

  it("evicts the least recently used: a get protects an entry, a peek does not", () => {
    const lru = Lru.make<string, number>({ capacity: 2 })
    lru.set("a", 1)
    lru.set("b", 2)
    lru.get("a")
    lru.set("c", 3)
    expect([lru.peek("a"), lru.peek("b"), lru.peek("c")]).toEqual([1, undefined, 3])
    lru.peek("a")
    lru.set("d", 4)
    expect([lru.peek("a"), lru.peek("c"), lru.peek("d")]).toEqual([undefined, 3, 4])
  })

  it("a named cache is reported with its bytes, bound and entries; a later one of the same name replaces it", () => {
    const first = Lru.make<string, Uint8Array>({ name: "test-bytes", capacity: 10, maxWeight: 100, weigh: (b) => b.byteLength })
    first.set("a", new Uint8Array(40))
    const second = Lru.make<string, Uint8Array>({ name: "test-bytes", capacity: 10, maxWeight: 100, weigh: (b) => b.byteLength })
    second.set("a", new Uint8Array(60))
    second.set("b", new Uint8Array(30))
    const reported = Lru.registered().find((c) => c.name === "test-bytes")!
    expect([reported.weight(), reported.maxWeight, reported.size()]).toEqual([90, 100, 2])
    second.set("c", new Uint8Array(30))
    // 120 bytes do not fit in 100: the least recently used went.
    expect([reported.weight(), reported.size()]).toEqual([60, 2])
    expect(Lru.registered().filter((c) => c.name === "test-bytes")).toHaveLength(1)
  })

  it("an entry that grows after it was set is weighed again, and what leaves the total is what was counted", () => {
    const removed: Array<string> = []
    const lru = Lru.make<string, { bytes: number }>({
      capacity: 10,
      maxWeight: 100,
      weigh: (v) => v.bytes,
      onRemove: (key) => removed.push(key)
    })
    const a = { bytes: 30 }
    lru.set("a", a)
    lru.set("b", { bytes: 30 })
    // Grown without a reweigh: the total still says what was counted, and removing takes that back.
    a.bytes = 50
    expect(lru.weight()).toBe(60)
    lru.reweigh("a")
    expect(lru.weight()).toBe(80)
    // Past the bound: the least recently used leaves, even the one reweighed.
    a.bytes = 90
    lru.reweigh("a")
    expect([lru.peek("a"), lru.weight(), removed]).toEqual([undefined, 30, ["a"]])
    lru.set("b", { bytes: 10 })
    lru.delete("b")
    expect([lru.weight(), removed]).toEqual([0, ["a", "b", "b"]])
  })
})
