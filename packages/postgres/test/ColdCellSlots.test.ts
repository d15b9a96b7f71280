/**
 * Cold-cell slots in the database (PGlite and PostgreSQL): the core's rule (ColdCells.admits over
 * leases) applied by SQL, answer for answer as the core's memory slots apply it, and held across
 * instances: many requests of one client at once, on a pool of connections, never take more than
 * its limit.
 */
import { describe, expect, layer } from "@effect/vitest"
import { ColdCells } from "@climate-grade/core"
import { ColdCellSlotsRepo } from "@climate-grade/postgres"
import { backends } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

const CLIENTS = ["192.0.2.1", "2001:db8:0:0::/64", "198.51.100.9"] as const
const CELLS = ["1.00,1.00", "1.00,1.25", "1.00,1.50", "1.00,1.75"] as const

type Step =
  | { readonly _tag: "Acquire"; readonly client: number; readonly cell: number; readonly lease: number }
  | { readonly _tag: "Renew"; readonly which: number; readonly lease: number }
  | { readonly _tag: "Release"; readonly which: number }
  | { readonly _tag: "Wait"; readonly ms: number }

const stepArb: FastCheck.Arbitrary<Step> = FastCheck.oneof(
  {
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("Acquire" as const),
      client: FastCheck.nat({ max: CLIENTS.length - 1 }),
      cell: FastCheck.nat({ max: CELLS.length - 1 }),
      lease: FastCheck.integer({ min: 1_000, max: 30_000 })
    }),
    weight: 8
  },
  {
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("Renew" as const),
      which: FastCheck.nat(),
      lease: FastCheck.integer({ min: 1_000, max: 30_000 })
    }),
    weight: 2
  },
  { arbitrary: FastCheck.record({ _tag: FastCheck.constant("Release" as const), which: FastCheck.nat() }), weight: 2 },
  { arbitrary: FastCheck.record({ _tag: FastCheck.constant("Wait" as const), ms: FastCheck.integer({ min: 1, max: 20_000 }) }), weight: 1 }
)

for (const backend of backends) {
  describe(`cold-cell slots on ${backend.name}`, () => {
    layer(ColdCellSlotsRepo.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: 180_000 })((it) => {
      it.effect("admit, renew, release and lapse as the core's rule does (the memory slots, step for step)", () =>
        Effect.gen(function* () {
          const slots = yield* ColdCells.ColdCellSlots
          const seen = { admitted: 0, refused: 0 }
          const runs = FastCheck.sample(
            FastCheck.tuple(FastCheck.integer({ min: 1, max: 3 }), FastCheck.array(stepArb, { minLength: 10, maxLength: 40, size: "max" })),
            { numRuns: 20 }
          )
          // One clock for every run, always forward, so a run starts with the last run's slots lapsed.
          let now = 1_000_000
          for (const [limit, steps] of runs) {
            now += 60_000
            const model = ColdCells.memorySlots()
            // Slots taken, as each store named them.
            const held: Array<{ readonly stored: string; readonly modeled: string }> = []
            for (const step of steps) {
              if (step._tag === "Wait") now += step.ms
              else if (step._tag === "Acquire") {
                const [client, cell] = [CLIENTS[step.client]!, CELLS[step.cell]!]
                const stored = yield* slots.acquire(client, cell, limit, now, now + step.lease)
                const modeled = yield* model.acquire(client, cell, limit, now, now + step.lease)
                expect(Option.isSome(stored)).toBe(Option.isSome(modeled))
                if (Option.isSome(stored) && Option.isSome(modeled)) {
                  held.push({ stored: stored.value, modeled: modeled.value })
                  seen.admitted++
                } else seen.refused++
              } else if (held.length > 0) {
                const slot = held[step.which % held.length]!
                if (step._tag === "Renew") {
                  yield* slots.renew(slot.stored, now + step.lease)
                  yield* model.renew(slot.modeled, now + step.lease)
                } else {
                  held.splice(held.indexOf(slot), 1)
                  yield* slots.release(slot.stored)
                  yield* model.release(slot.modeled)
                }
              }
            }
          }
          // Expected over 20 runs of up to 40 steps: ~240 admitted, 45-75 refused.
          expect(seen.admitted).toBeGreaterThan(100)
          expect(seen.refused).toBeGreaterThan(15)
        }), 180_000)

      it.effect("thirty requests of one client at once, for thirty cells, get exactly its limit of slots; another client its own", () =>
        Effect.gen(function* () {
          const slots = yield* ColdCells.ColdCellSlots
          const now = 5_000_000_000
          const taken = yield* Effect.all(
            Array.from({ length: 30 }, (_, i) => slots.acquire("203.0.113.1", `2.00,${i}.00`, 2, now, now + ColdCells.LEASE_MS)),
            { concurrency: "unbounded" }
          )
          expect(taken.filter(Option.isSome)).toHaveLength(2)
          expect(Option.isSome(yield* slots.acquire("203.0.113.2", "2.00,0.00", 2, now, now + ColdCells.LEASE_MS))).toBe(true)
          // Nobody released them: an instance that died. They lapse with their lease, not before.
          const lapse = now + ColdCells.LEASE_MS
          expect(Option.isSome(yield* slots.acquire("203.0.113.1", "3.00,0.00", 2, lapse - 1, lapse + ColdCells.LEASE_MS))).toBe(false)
          expect(Option.isSome(yield* slots.acquire("203.0.113.1", "3.00,0.00", 2, lapse, lapse + ColdCells.LEASE_MS))).toBe(true)
        }))
    })
  })
}
