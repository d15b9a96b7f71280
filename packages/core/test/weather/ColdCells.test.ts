import { describe, expect, it } from "@effect/vitest"
import { Cell, CellData, ColdCells } from "@climate-grade/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"

const CLIENTS = ["192.0.2.1", "192.0.2.2", "2001:db8::1"] as const
const CELLS = ["1.00,1.00", "1.00,1.25", "1.00,1.50", "1.00,1.75"] as const

type Command =
  | { readonly _tag: "Start"; readonly client: number; readonly cell: number }
  | { readonly _tag: "End"; readonly which: number; readonly how: "done" | "failed" | "interrupted" }

const commandArb: FastCheck.Arbitrary<Command> = FastCheck.oneof(
  FastCheck.record({
    _tag: FastCheck.constant("Start" as const),
    client: FastCheck.nat({ max: CLIENTS.length - 1 }),
    cell: FastCheck.nat({ max: CELLS.length - 1 })
  }),
  FastCheck.record({
    _tag: FastCheck.constant("End" as const),
    which: FastCheck.nat(),
    how: FastCheck.constantFrom("done" as const, "failed" as const, "interrupted" as const)
  })
)

interface Open {
  readonly client: number
  readonly cell: number
  readonly release: Deferred.Deferred<void, string>
  readonly fiber: Fiber.RuntimeFiber<void, string | ColdCells.TooManyColdCells>
}

describe("ColdCells", () => {
  it.effect.prop(
    "a client's request is admitted exactly when its cell is already loading for it or it has fewer cells loading than the limit; every ending frees the slot",
    [FastCheck.integer({ min: 1, max: 3 }), FastCheck.array(commandArb, { minLength: 1, maxLength: 60 })],
    ([limit, commands]) =>
      Effect.gen(function* () {
        const coldCells = ColdCells.make(limit)
        let open: Array<Open> = []
        for (const command of commands) {
          if (command._tag === "Start") {
            // The model: the distinct cells this client has in flight.
            const loading = new Set(open.filter((o) => o.client === command.client).map((o) => o.cell))
            const admitted = loading.has(command.cell) || loading.size < limit
            const release = yield* Deferred.make<void, string>()
            const fiber = yield* Effect.fork(coldCells.admit(CLIENTS[command.client]!, CELLS[command.cell]!, Deferred.await(release)))
            yield* Effect.yieldNow()
            const polled = yield* Fiber.poll(fiber)
            if (admitted) {
              expect(Option.isNone(polled)).toBe(true)
              open.push({ client: command.client, cell: command.cell, release, fiber })
            } else {
              expect(polled).toEqual(Option.some(Exit.fail(new ColdCells.TooManyColdCells({ limit }))))
            }
          } else if (open.length > 0) {
            const ending = open[command.which % open.length]!
            open = open.filter((o) => o !== ending)
            if (command.how === "interrupted") yield* Fiber.interrupt(ending.fiber)
            else {
              yield* Deferred.done(ending.release, command.how === "done" ? Exit.void : Exit.fail("upstream"))
              yield* Fiber.await(ending.fiber)
            }
          }
        }
        yield* Effect.forEach(open, (o) => Fiber.interrupt(o.fiber), { discard: true })
        // Everything ended: every client has its whole limit again.
        for (const client of CLIENTS) {
          const held = yield* Effect.forEach(CELLS.slice(0, limit), (cell) =>
            Effect.fork(coldCells.admit(client, cell, Effect.never))
          )
          yield* Effect.yieldNow()
          for (const fiber of held) expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
          yield* Effect.forEach(held, Fiber.interrupt, { discard: true })
        }
      })
  )

  it.effect("a held cell needs no slot; a new one takes a slot of the client's network (an IPv6 /64)", () =>
    Effect.gen(function* () {
      const held = Cell.fromCoordinates(10, 10)
      const fresh = Cell.fromCoordinates(20, 20)
      const other = Cell.fromCoordinates(30, 30)
      const data = { heldHistory: (cell: Cell.Cell) => Effect.succeed(cell.key === held.key ? Option.some({}) : Option.none()) }
      const coldCells = ColdCells.make(1)
      const run = <A, E>(address: string, cell: Cell.Cell, effect: Effect.Effect<A, E>) =>
        ColdCells.gate(coldCells, address, cell, effect).pipe(
          Effect.provideService(CellData.CellData, data as unknown as CellData.CellData["Type"])
        )
      // One address of the /64 is loading a new cell …
      const loading = yield* Effect.fork(run("2001:db8:0:0:1::7", fresh, Effect.never))
      yield* Effect.yieldNow()
      // … so another address of the same /64 cannot start a second one,
      const refused = yield* Effect.exit(run("2001:db8::ffff", other, Effect.void))
      expect(refused).toEqual(Exit.fail(new ColdCells.TooManyColdCells({ limit: 1 })))
      // but shares the slot of the cell already loading, is served a held cell at once,
      expect(yield* Effect.exit(run("2001:db8::ffff", fresh, Effect.succeed("shared")))).toEqual(Exit.succeed("shared"))
      expect(yield* Effect.exit(run("2001:db8::ffff", held, Effect.succeed("held")))).toEqual(Exit.succeed("held"))
      // and another /64 has slots of its own.
      expect(yield* Effect.exit(run("2001:db8:0:1::7", other, Effect.succeed("own")))).toEqual(Exit.succeed("own"))
      yield* Fiber.interrupt(loading)
      expect(yield* Effect.exit(run("2001:db8::ffff", other, Effect.succeed("free")))).toEqual(Exit.succeed("free"))
    })
  )
})
