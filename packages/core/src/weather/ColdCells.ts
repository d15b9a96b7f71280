/**
 * A limit on the new ("cold") cells one client may have loading at once. A cold cell costs a
 * history fetch of up to 30 s and hundreds of upstream cost units; without a limit one client
 * asking for 30 places at once spends the day's budget and fills every claim, so everyone
 * else's new place waits behind it. Past the limit the request is answered at once, 429 with
 * Retry-After (rather than queued: a queued request would hold a connection, and the client
 * learns to pace itself). Requests for a cell the client is already loading share its slot.
 * Counted per process: with several instances a client may have this many on each.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Cell } from "../Cell.js"
import * as ClientNetwork from "../ClientNetwork.js"
import { CellData } from "./CellData.js"

/** Cold cells one client may have loading at once, by default. */
export const DEFAULT_PER_CLIENT = 2
/** What Retry-After says: a cold cell usually loads within a few seconds. */
export const RETRY_AFTER_SECONDS = 5

export class TooManyColdCells extends Schema.TaggedError<TooManyColdCells>()("TooManyColdCells", {
  limit: Schema.Number
}) {}

export interface ColdCells {
  /** Runs `effect` in one of `client`'s slots for `cell`, or fails at once when they are all taken. */
  readonly admit: <A, E, R>(client: string, cell: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | TooManyColdCells, R>
}

export const make = (perClient: number): ColdCells => {
  // client → cell → requests in flight for it
  const loading = new Map<string, Map<string, number>>()
  const acquire = (client: string, cell: string) =>
    Effect.suspend(() => {
      const cells = loading.get(client) ?? new Map<string, number>()
      if (!cells.has(cell) && cells.size >= perClient) return Effect.fail(new TooManyColdCells({ limit: perClient }))
      cells.set(cell, (cells.get(cell) ?? 0) + 1)
      loading.set(client, cells)
      return Effect.void
    })
  const release = (client: string, cell: string) =>
    Effect.sync(() => {
      const cells = loading.get(client)
      if (cells === undefined) return
      const n = (cells.get(cell) ?? 1) - 1
      if (n > 0) cells.set(cell, n)
      else cells.delete(cell)
      if (cells.size === 0) loading.delete(client)
    })
  return {
    admit: (client, cell, effect) =>
      Effect.acquireUseRelease(
        acquire(client, cell),
        () => effect,
        () => release(client, cell)
      )
  }
}

/**
 * Runs `effect` for a request from `address` about `cell`: at once when the cell's history is
 * held (it costs no history fetch), else in one of the slots of the client's network
 * (`ClientNetwork`: an IPv6 address counts as its /64).
 */
export const gate = <A, E, R>(
  coldCells: ColdCells,
  address: string,
  cell: Cell,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | TooManyColdCells, R | CellData> =>
  Effect.flatMap(CellData, (data) =>
    Effect.flatMap(data.heldHistory(cell), (held) =>
      Option.isSome(held) ? effect : coldCells.admit(ClientNetwork.of(address), cell.key, effect)
    )
  )

/** The 429's detail. */
export const detail = (limit: number): string =>
  `This client is already loading ${limit} new place${limit === 1 ? "" : "s"}; try again once ${limit === 1 ? "it has" : "one of them has"} loaded.`
