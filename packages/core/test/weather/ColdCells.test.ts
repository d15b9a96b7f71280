import { describe, expect, it } from "@effect/vitest"
import { Cell, CellData, ClientNetwork, ColdCells, ShareSpent, UpstreamBudget } from "@climate-grade/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"

const CLIENTS = ["192.0.2.1", "192.0.2.2", "2001:db8::1"] as const
const CELLS = [
  [1, 1],
  [1, 1.25],
  [1, 1.5],
  [1, 1.75]
].map(([lat, lon]) => Cell.fromCoordinates(lat!, lon!))

type Command =
  | { readonly _tag: "Start"; readonly client: number; readonly cell: number }
  | { readonly _tag: "End"; readonly which: number; readonly how: "done" | "failed" | "interrupted" }
  /** A load on an instance that died: its slot is taken and then neither renewed nor released. */
  | { readonly _tag: "Orphan"; readonly client: number; readonly cell: number }
  | { readonly _tag: "Wait"; readonly ms: number }

const commandArb: FastCheck.Arbitrary<Command> = FastCheck.oneof(
  {
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("Start" as const),
      client: FastCheck.nat({ max: CLIENTS.length - 1 }),
      cell: FastCheck.nat({ max: CELLS.length - 1 })
    }),
    weight: 5
  },
  {
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("End" as const),
      which: FastCheck.nat(),
      how: FastCheck.constantFrom("done" as const, "failed" as const, "interrupted" as const)
    }),
    weight: 4
  },
  {
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("Orphan" as const),
      client: FastCheck.nat({ max: CLIENTS.length - 1 }),
      cell: FastCheck.nat({ max: CELLS.length - 1 })
    }),
    weight: 1
  },
  // Up to twice a lease: loads outlive it (they renew), orphans lapse.
  { arbitrary: FastCheck.record({ _tag: FastCheck.constant("Wait" as const), ms: FastCheck.integer({ min: 1_000, max: 60_000 }) }), weight: 1 }
)

interface Open {
  readonly client: number
  readonly cell: number
  readonly release: Deferred.Deferred<void, string>
  readonly fiber: Fiber.RuntimeFiber<void, unknown>
}

/**
 * CellData as the gate reads it: whether a cell's history is held, and its history loaded (refused
 * for the cells in `refused`, as the budget would), with who was paying.
 */
const cellData = (held: ReadonlySet<string>, refused: ReadonlySet<string> = new Set(), loads: Array<unknown> = []) =>
  ({
    heldHistory: (cell: Cell.Cell) => Effect.succeed(held.has(cell.key) ? Option.some({}) : Option.none()),
    history: (cell: Cell.Cell) =>
      Effect.flatMap(UpstreamBudget.spenderNow, (spender) => {
        loads.push([cell.key, spender])
        return refused.has(cell.key)
          ? Effect.fail(new ShareSpent({ scope: "client", shareUnits: 1, dailyUnits: 5, retryAfterSeconds: 60 }))
          : Effect.succeed({})
      })
  }) as unknown as CellData.CellData["Type"]

const coldCells = (
  limit: number,
  slots: ColdCells.ColdCellSlots["Type"],
  held: ReadonlySet<string> = new Set(),
  refused: ReadonlySet<string> = new Set(),
  loads: Array<unknown> = []
) =>
  ColdCells.make(limit).pipe(
    Effect.provideService(CellData.CellData, cellData(held, refused, loads)),
    Effect.provideService(ColdCells.ColdCellSlots, slots)
  )

const anonymous = (address: string): ColdCells.Client => ({ address, user: Effect.succeed(null) })

describe("ColdCells", () => {
  it.effect("a new cell is admitted exactly when its client is loading it already or holds fewer live cells than the limit; loads keep their slot however long, an orphan's lapses", () =>
    Effect.gen(function* () {
      const seen = { admitted: 0, refused: 0, lapsed: 0 }
      const runs = FastCheck.sample(
        FastCheck.tuple(FastCheck.integer({ min: 1, max: 3 }), FastCheck.array(commandArb, { minLength: 1, maxLength: 40, size: "max" })),
        { numRuns: 60 }
      )
      for (const [limit, commands] of runs) {
        const slots = ColdCells.memorySlots()
        const gate = yield* coldCells(limit, slots)
        let open: Array<Open> = []
        // Orphans: the client, the cell, and when their slot lapses.
        let orphans: Array<{ readonly client: number; readonly cell: number; readonly until: number }> = []
        for (const command of commands) {
          const now = yield* TestClock.currentTimeMillis
          if (command._tag === "Wait") {
            yield* TestClock.adjust(command.ms)
            continue
          }
          if (command._tag === "End") {
            if (open.length === 0) continue
            const ending = open[command.which % open.length]!
            open = open.filter((o) => o !== ending)
            if (command.how === "interrupted") yield* Fiber.interrupt(ending.fiber)
            else {
              yield* Deferred.done(ending.release, command.how === "done" ? Exit.void : Exit.fail("upstream"))
              yield* Fiber.await(ending.fiber)
            }
            continue
          }
          // The model: the distinct cells this client holds a live slot of.
          const live = orphans.filter((o) => o.until > now)
          seen.lapsed += orphans.length - live.length
          orphans = live
          const loading = new Set([
            ...open.filter((o) => o.client === command.client).map((o) => o.cell),
            ...orphans.filter((o) => o.client === command.client).map((o) => o.cell)
          ])
          const admitted = loading.has(command.cell) || loading.size < limit
          const network = CLIENTS[command.client]!
          if (command._tag === "Orphan") {
            const slot = yield* slots.acquire(ClientNetwork.of(network), CELLS[command.cell]!.key, limit, now, now + ColdCells.LEASE_MS)
            expect(Option.isSome(slot)).toBe(admitted)
            if (admitted) orphans.push({ client: command.client, cell: command.cell, until: now + ColdCells.LEASE_MS })
            continue
          }
          const release = yield* Deferred.make<void, string>()
          const fiber = yield* Effect.fork(gate.gate(anonymous(network), CELLS[command.cell]!, Deferred.await(release)))
          yield* Effect.yieldNow()
          const polled = yield* Fiber.poll(fiber)
          if (admitted) {
            expect(Option.isNone(polled)).toBe(true)
            open.push({ client: command.client, cell: command.cell, release, fiber })
            seen.admitted++
          } else {
            expect(polled).toEqual(Option.some(Exit.fail(new ColdCells.TooManyColdCells({ limit }))))
            seen.refused++
          }
        }
        yield* Effect.forEach(open, (o) => Fiber.interrupt(o.fiber), { discard: true })
        // Everything ended and every orphan lapsed: every client has its whole limit again.
        yield* TestClock.adjust(ColdCells.LEASE_MS)
        for (const client of CLIENTS) {
          const held = yield* Effect.forEach(CELLS.slice(0, limit), (cell) => Effect.fork(gate.gate(anonymous(client), cell, Effect.never)))
          yield* Effect.yieldNow()
          for (const fiber of held) expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
          yield* Effect.forEach(held, Fiber.interrupt, { discard: true })
        }
      }
      // Expected over 60 runs of up to 40 commands: 350-430 admitted, 60-110 refused, 20-30 orphans lapsed.
      expect(seen.admitted).toBeGreaterThan(150)
      expect(seen.refused).toBeGreaterThan(30)
      expect(seen.lapsed).toBeGreaterThan(8)
    }), 180_000)

  it.effect("a held cell takes no slot and asks nothing of the store; a new one takes a slot of the client's network (an IPv6 /64)", () =>
    Effect.gen(function* () {
      const held = Cell.fromCoordinates(10, 10)
      const fresh = Cell.fromCoordinates(20, 20)
      const other = Cell.fromCoordinates(30, 30)
      const memory = ColdCells.memorySlots()
      let asked = 0
      const counted = ColdCells.ColdCellSlots.of({
        ...memory,
        acquire: (...args) => Effect.zipRight(Effect.sync(() => void asked++), memory.acquire(...args))
      })
      const { gate } = yield* coldCells(1, counted, new Set([held.key]))
      const run = <A, E>(address: string, cell: Cell.Cell, effect: Effect.Effect<A, E>) => gate(anonymous(address), cell, effect)
      // One address of the /64 is loading a new cell …
      const loading = yield* Effect.fork(run("2001:db8:0:0:1::7", fresh, Effect.never))
      yield* Effect.yieldNow()
      // … so another address of the same /64 cannot start a second one,
      const refused = yield* Effect.exit(run("2001:db8::ffff", other, Effect.void))
      expect(refused).toEqual(Exit.fail(new ColdCells.TooManyColdCells({ limit: 1 })))
      // but shares the slot of the cell already loading, is served a held cell at once,
      expect(yield* Effect.exit(run("2001:db8::ffff", fresh, Effect.succeed("shared")))).toEqual(Exit.succeed("shared"))
      const before = asked
      expect(yield* Effect.exit(run("2001:db8::ffff", held, Effect.succeed("held")))).toEqual(Exit.succeed("held"))
      expect(asked).toBe(before)
      // and another /64 has slots of its own.
      expect(yield* Effect.exit(run("2001:db8:0:1::7", other, Effect.succeed("own")))).toEqual(Exit.succeed("own"))
      yield* Fiber.interrupt(loading)
      expect(yield* Effect.exit(run("2001:db8::ffff", other, Effect.succeed("free")))).toEqual(Exit.succeed("free"))
    }))

  it.effect("a new cell's history is loaded first, paid by whoever takes the slot (the client's network and the signed-in user); refused, nothing else is asked; a held cell's upkeep is the client's", () =>
    Effect.gen(function* () {
      const loads: Array<unknown> = []
      const { gate } = yield* coldCells(2, ColdCells.memorySlots(), new Set(["10.00,10.00"]), new Set(["40.00,40.00"]), loads)
      const spender = UpstreamBudget.spenderNow
      const signedIn = { address: "2001:db8::5", user: Effect.succeed("u7") }
      expect(yield* gate(signedIn, Cell.fromCoordinates(20, 20), spender)).toEqual(
        Option.some({ network: "2001:db8:0:0::/64", user: "u7" })
      )
      expect(yield* gate(anonymous("::ffff:192.0.2.9"), Cell.fromCoordinates(30, 30), spender)).toEqual(
        Option.some({ network: "192.0.2.9", user: null })
      )
      expect(loads).toEqual([
        ["20.00,20.00", Option.some({ network: "2001:db8:0:0::/64", user: "u7" })],
        ["30.00,30.00", Option.some({ network: "192.0.2.9", user: null })]
      ])
      // A history the budget refuses: the request fails with it, and what it wanted (a view's
      // forecast and label) is never asked for.
      let asked = false
      const wanted = Effect.sync(() => {
        asked = true
      })
      const refused = yield* Effect.exit(gate(anonymous("192.0.2.9"), Cell.fromCoordinates(40, 40), wanted))
      expect(refused).toEqual(Exit.fail(new ShareSpent({ scope: "client", shareUnits: 1, dailyUnits: 5, retryAfterSeconds: 60 })))
      expect(asked).toBe(false)
      // A held cell takes no slot, but its upkeep is the client's to pay: its network is named,
      // and the session is read only when a call is to be paid.
      let read = false
      const watched = {
        address: "192.0.2.9",
        user: Effect.sync(() => {
          read = true
          return "u7"
        })
      }
      const payer = yield* gate(watched, Cell.fromCoordinates(10, 10), FiberRef.get(UpstreamBudget.currentSpender))
      expect(Option.map(payer, (p) => p.network)).toEqual(Option.some("192.0.2.9"))
      expect(read).toBe(false)
      expect(yield* gate(watched, Cell.fromCoordinates(10, 10), spender)).toEqual(Option.some({ network: "192.0.2.9", user: "u7" }))
      expect(read).toBe(true)
    }))
})
