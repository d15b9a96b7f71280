/** Watching a place as a property over an in-memory store of watches, without IO. */
import { describe, expect, it } from "@effect/vitest"
import {
  AlertEvaluator,
  AlertSettings,
  Cell,
  CellData,
  ColdCells,
  Kinds,
  UpstreamFailure,
  type UserId,
  type Watch,
  WatchLimitReached,
  Watches,
  Watching
} from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

const USERS = ["00000000-0000-4000-9000-000000000001", "00000000-0000-4000-9000-000000000002"] as Array<UserId>

/** The port as its documentation states it: one watch per (user, cell), at most `limit` per user. */
const inMemory = () => {
  const rows: Array<Watch> = []
  let next = 0
  const watches = Watches.of({
    list: (userId) => Effect.sync(() => rows.filter((w) => w.userId === userId)),
    upsert: (userId, input, limit) =>
      Effect.suspend((): Effect.Effect<{ readonly watch: Watch; readonly created: boolean }, WatchLimitReached> => {
        const held = rows.find((w) => w.userId === userId && w.cell.key === input.cell.key)
        if (held !== undefined) {
          const changed = { ...held, kinds: input.kinds }
          rows[rows.indexOf(held)] = changed
          return Effect.succeed({ watch: changed, created: false })
        }
        if (rows.filter((w) => w.userId === userId).length >= limit) return Effect.fail(new WatchLimitReached({ limit }))
        const watch: Watch = { id: `w${++next}`, userId, ...input, label: null, createdAt: new Date(0) }
        rows.push(watch)
        return Effect.succeed({ watch, created: true })
      }),
    remove: () => Effect.succeed("absent" as const),
    forCell: (key) => Effect.sync(() => rows.filter((w) => w.cell.key === key)),
    cells: Effect.sync(() => rows.map((w) => w.cell))
  })
  return { rows, watches }
}

const requestArb = FastCheck.record({
  user: FastCheck.constantFrom(...USERS),
  // Few distinct cells, so a place is often watched again; a limit of 3 is often reached.
  lat: FastCheck.constantFrom(10, 10.1, 20, 30, 40, 50),
  lon: FastCheck.constantFrom(5, 5.1, -120),
  kinds: FastCheck.subarray([...Kinds.kinds], { minLength: 1 })
})

/** Cells whose history is held at the start, and cells whose history cannot be loaded. */
const HELD = ["10.00,5.00", "20.00,5.00"]
const FAILING = ["30.00,5.00", "50.00,-120.00"]

describe("Watching.watch", () => {
  it.effect("one watch per user and cell, kinds replaced and id kept, the limit refused, a new cell loaded first as the client's new cell, and every accepted watch evaluated at once", () =>
    Effect.gen(function* () {
      const seen = { created: 0, changed: 0, refused: 0, loaded: 0, failed: 0 }
      yield* Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(FastCheck.array(requestArb, { minLength: 1, maxLength: 12 }), async (requests) => {
            const { rows, watches } = inMemory()
            const triggered: Array<string> = []
            const held = new Set(HELD)
            const loads: Array<string> = []
            const gated: Array<[string, string | null, string]> = []
            const data = {
              heldHistory: (cell: Cell.Cell) => Effect.succeed(held.has(cell.key) ? Option.some({}) : Option.none()),
              history: (cell: Cell.Cell) =>
                Effect.suspend(() => {
                  loads.push(cell.key)
                  if (FAILING.includes(cell.key)) return Effect.fail(new UpstreamFailure({ source: "archive", reason: "down" }))
                  held.add(cell.key)
                  return Effect.succeed({})
                })
            } as unknown as CellData.CellData["Type"]
            // The gate as the HTTP adapters apply it; its own rules are ColdCells' tests.
            const coldCells = ColdCells.ColdCells.of({
              gate: (client, cell, effect) =>
                Effect.flatMap(client.user, (user) => {
                  gated.push([client.address, user, cell.key])
                  return effect
                })
            })
            const layer = Layer.mergeAll(
              Layer.succeed(Watches, watches),
              Layer.succeed(AlertSettings, { watchLimit: 3 } as AlertSettings["Type"]),
              Layer.succeed(AlertEvaluator, {
                evaluate: () => Effect.void,
                trigger: (cell) => Effect.sync(() => void triggered.push(cell.key)),
                worker: Effect.never
              }),
              Layer.succeed(CellData.CellData, data),
              Layer.succeed(ColdCells.ColdCells, coldCells)
            )
            for (const { user, ...request } of requests) {
              const cell = Cell.fromCoordinates(request.lat, request.lon)
              const before = rows.find((w) => w.userId === user && w.cell.key === cell.key)
              const full = rows.filter((w) => w.userId === user).length >= 3
              const [triggers, loaded, gates, kept] = [triggered.length, loads.length, gated.length, JSON.stringify(rows)]
              const wasHeld = held.has(cell.key)
              const result = await Effect.runPromise(Effect.either(Watching.watch(user, request, "192.0.2.7")).pipe(Effect.provide(layer)))
              if (before === undefined && full) {
                expect(result).toEqual(Either.left(new WatchLimitReached({ limit: 3 })))
                // Refused before anything was loaded.
                expect([triggered.length, loads.length]).toEqual([triggers, loaded])
                seen.refused++
                continue
              }
              // Through the gate, as the watch's user from the request's address; a new cell loaded in it.
              expect(gated.slice(gates)).toEqual([["192.0.2.7", user, cell.key]])
              expect(loads.slice(loaded)).toEqual(wasHeld ? [] : [cell.key])
              if (!wasHeld && FAILING.includes(cell.key)) {
                // No load, no watch: nothing made or changed, nothing evaluated.
                expect(result).toEqual(Either.left(new UpstreamFailure({ source: "archive", reason: "down" })))
                expect([JSON.stringify(rows), triggered.length]).toEqual([kept, triggers])
                seen.failed++
                continue
              }
              if (!wasHeld) seen.loaded++
              const { created, watch } = Either.getOrThrow(result)
              expect(created).toBe(before === undefined)
              if (before !== undefined) expect(watch.id).toBe(before.id)
              expect([watch.cell.key, watch.kinds]).toEqual([cell.key, request.kinds])
              // Evaluated at once, its history held.
              expect(triggered.slice(triggers)).toEqual([cell.key])
              expect(held.has(cell.key)).toBe(true)
              if (created) seen.created++
              else seen.changed++
            }
            for (const user of USERS) {
              const own = rows.filter((w) => w.userId === user)
              expect(own.length).toBeLessThanOrEqual(3)
              expect(new Set(own.map((w) => w.cell.key)).size).toBe(own.length)
            }
          }),
          { numRuns: 200 }
        )
      )
      expect(seen.created).toBeGreaterThan(20)
      expect(seen.changed).toBeGreaterThan(20)
      expect(seen.refused).toBeGreaterThan(20)
      expect(seen.loaded).toBeGreaterThan(20)
      expect(seen.failed).toBeGreaterThan(20)
    }),
    120_000
  )

  it("a watch or an alert is called by its place's label, else by its cell's coordinates (its key's form)", () => {
    const cell = Cell.fromCoordinates(47.26, -130.01)
    expect(Watching.placeName("Berlin, DE", cell)).toBe("Berlin, DE")
    expect(Watching.placeName(null, cell)).toBe("47.25°N 130.00°W")
  })

  it("the limit's detail names the limit", () => {
    expect(Watching.limitDetail(20)).toBe("At most 20 watches per user: stop watching a place first.")
  })
})
