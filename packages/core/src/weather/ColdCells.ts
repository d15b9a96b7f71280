/**
 * A limit on the new ("cold") cells one client may have loading at once. A cold cell costs a
 * history fetch of up to 30 s and hundreds of upstream cost units; without a limit one client
 * asking for 30 places at once fills every claim, so everyone else's new place waits behind it.
 * Past the limit the request is answered at once, 429 with Retry-After (rather than queued: a
 * queued request would hold a connection, and the client learns to pace itself). Requests for a
 * cell the client is already loading share its slot. A client is its network (`ClientNetwork`).
 *
 * The slots are kept where every instance sees them (`ColdCellSlots`, a table in production), so
 * behind a load balancer a client has the limit across all instances, not on each. A slot is a
 * lease: renewed while its load runs, released when it ends, and free by itself `LEASE_MS` after
 * the last renewal when the instance holding it died. A held cell needs no slot and costs no
 * look-up of one.
 *
 * Whoever takes a slot is also the `UpstreamBudget.Spender` of the cell's history: the new cell
 * is paid from the client network's (and the signed-in user's) share of the day. In the slot the
 * history is loaded first, alone, and only then what the request wanted (a view: its forecast and
 * label too): a new cell the budget refuses, or that has no history, costs no forecast call (never
 * refused, so a client past its share could otherwise spend the day one forecast at a time) and
 * no geocoder turn.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Cell } from "../Cell.js"
import * as ClientNetwork from "../ClientNetwork.js"
import { CellData } from "./CellData.js"
import type { NoHistory, UpstreamError } from "./Errors.js"
import * as UpstreamBudget from "./UpstreamBudget.js"

/** Cold cells one client may have loading at once, by default. */
export const DEFAULT_PER_CLIENT = 2
/** What Retry-After says: a cold cell usually loads within a few seconds. */
export const RETRY_AFTER_SECONDS = 5
/** How long a slot outlives its last renewal: how soon the slots of an instance that died are free. */
export const LEASE_MS = 30_000
/** How often a running load renews its slot (a third of the lease: two renewals may fail before it lapses). */
export const RENEW_EVERY_MS = 10_000

export class TooManyColdCells extends Schema.TaggedError<TooManyColdCells>()("TooManyColdCells", {
  limit: Schema.Number
}) {}

/** A slot as the store keeps it. */
export interface Lease {
  readonly cell: string
  /** Epoch ms after which the slot is free. */
  readonly expiresAt: number
}

/**
 * The rule: a client whose slots are `leases` may start loading `cell` at `now` when one of its
 * live slots is that cell's already, or its live slots hold fewer than `limit` distinct cells.
 */
export const admits = (leases: Iterable<Lease>, cell: string, limit: number, now: number): boolean => {
  const live = new Set<string>()
  for (const lease of leases) if (lease.expiresAt > now) live.add(lease.cell)
  return live.has(cell) || live.size < limit
}

/** Where the slots are kept; every instance sharing it shares each client's limit. */
export class ColdCellSlots extends Context.Tag("@climate-grade/core/ColdCellSlots")<
  ColdCellSlots,
  {
    /**
     * Takes a slot of `client` for `cell` until `expiresAt`, atomically by `admits` at `now` over
     * the client's slots in every process: the slot's id, or None when the client is at its limit.
     */
    readonly acquire: (client: string, cell: string, limit: number, now: number, expiresAt: number) => Effect.Effect<Option.Option<string>>
    /** Moves a slot's expiry (a slot already gone stays gone). */
    readonly renew: (slot: string, expiresAt: number) => Effect.Effect<void>
    readonly release: (slot: string) => Effect.Effect<void>
  }
>() {}

/** The slots of one process, for a store no other process shares (and for tests). */
export const memorySlots = (): ColdCellSlots["Type"] => {
  const slots = new Map<string, Lease & { readonly client: string }>()
  let next = 0
  return ColdCellSlots.of({
    acquire: (client, cell, limit, now, expiresAt) =>
      Effect.sync(() => {
        for (const [id, slot] of slots) if (slot.expiresAt <= now) slots.delete(id)
        const own = [...slots.values()].filter((slot) => slot.client === client)
        if (!admits(own, cell, limit, now)) return Option.none()
        const id = String(++next)
        slots.set(id, { client, cell, expiresAt })
        return Option.some(id)
      }),
    renew: (id, expiresAt) =>
      Effect.sync(() => {
        const slot = slots.get(id)
        if (slot !== undefined) slots.set(id, { ...slot, expiresAt })
      }),
    release: (id) => Effect.sync(() => void slots.delete(id))
  })
}

/** Who asks for a cell. */
export interface Client {
  /** The client's address (`TRUSTED_PROXY_HOPS` applied); its network is what is counted. */
  readonly address: string
  /** The signed-in user's id, if any; looked up only for a cold cell. */
  readonly user: Effect.Effect<string | null>
}

export class ColdCells extends Context.Tag("@climate-grade/core/ColdCells")<
  ColdCells,
  {
    /**
     * Runs `effect` for `client`'s request about `cell`: at once when the cell's history is held
     * (it costs no history fetch), else in one of the slots of the client's network, after the
     * cell's history has been loaded with its units reserved for the client (its failure is the
     * request's); `TooManyColdCells` at once when the client's slots are all taken.
     */
    readonly gate: <A, E, R>(
      client: Client,
      cell: Cell,
      effect: Effect.Effect<A, E, R>
    ) => Effect.Effect<A, E | TooManyColdCells | UpstreamError | NoHistory, R>
  }
>() {}

export const make = (perClient: number) =>
  Effect.gen(function* () {
    const data = yield* CellData
    const slots = yield* ColdCellSlots

    const acquire = (network: string, cell: Cell) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(slots.acquire(network, cell.key, perClient, now, now + LEASE_MS), (slot) =>
          Option.isSome(slot) ? Effect.succeed(slot.value) : Effect.fail(new TooManyColdCells({ limit: perClient }))
        )
      )

    // A failed renewal is not the load's failure: the slot lapses a little early at worst.
    const renewing = (slot: string) =>
      Effect.forever(
        Effect.sleep(RENEW_EVERY_MS).pipe(
          Effect.zipRight(Clock.currentTimeMillis),
          Effect.flatMap((now) => slots.renew(slot, now + LEASE_MS)),
          Effect.catchAllCause((cause) => Effect.logWarning("renewing a cold-cell slot failed", cause))
        )
      )

    const admit = <A, E, R>(client: Client, cell: Cell, effect: Effect.Effect<A, E, R>) => {
      const network = ClientNetwork.of(client.address)
      return Effect.acquireUseRelease(
        acquire(network, cell),
        (slot) =>
          Effect.flatMap(client.user, (user) =>
            Effect.scoped(
              Effect.zipRight(
                Effect.forkScoped(renewing(slot)),
                UpstreamBudget.spendingAs({ network, user })(Effect.zipRight(data.history(cell), effect))
              )
            )
          ),
        (slot) => slots.release(slot)
      )
    }

    return ColdCells.of({
      gate: (client, cell, effect) =>
        Effect.flatMap(data.heldHistory(cell), (held) =>
          Option.isSome(held)
            ? // A held cell's upkeep (top-up, forecast refetch) is paid by the client too, its user looked up only then.
              UpstreamBudget.payingAs({ network: ClientNetwork.of(client.address), user: client.user })(effect)
            : admit(client, cell, effect)
        )
    })
  })

export const layer = (perClient: number) => Layer.effect(ColdCells, make(perClient))

/** The 429's detail. */
export const detail = (limit: number): string =>
  `This client is already loading ${limit} new place${limit === 1 ? "" : "s"}; try again once ${limit === 1 ? "it has" : "one of them has"} loaded.`
