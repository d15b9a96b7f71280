/**
 * A cell's label: looked up while the cell has none; a failed lookup leaves it
 * unlabeled (null) and is tried again on a later request.
 *
 * The geocoder allows one call a second for the whole process, so a burst of new cells makes a
 * queue. A view never waits in it for more than `wait` (a lone lookup, queued behind nothing, is
 * waited for: the geocoder's timeout bounds it): the lookup goes on in the background and
 * the view is served with `label: null` (its freshness token names the label, so the payload is
 * rebuilt once the label arrives, and nothing unlabeled is held in the response index). One
 * lookup per cell: concurrent requests share it, and across instances the store's label claim
 * lets one of them look it up while the others serve null and read the label it saves.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import type * as FiberSet from "effect/FiberSet"
import type { Cell } from "../Cell.js"
import type { CellRecord, CellStore } from "./CellStore.js"
import type { RecordCache } from "./RecordCache.js"
import { startIn } from "./SingleFlight.js"
import type { Geocoder } from "./WeatherSource.js"

export interface Deps {
  readonly store: CellStore["Type"]
  readonly geocoder: Geocoder["Type"]
  readonly cache: RecordCache
  /** The longest a request waits for a lookup before it is answered without a label. */
  readonly wait: Duration.DurationInput
  /** Lookups waiting or running at most; past it a new cell is served unlabeled and tried later. */
  readonly maxPending?: number
  /** Where lookups run: closing their scope (shutdown) interrupts those under way. */
  readonly fibers: FiberSet.FiberSet
}

export const make = ({ cache, fibers, geocoder, maxPending = 120, store, wait }: Deps) => {
  const pending = new Map<string, Deferred.Deferred<string | null>>()

  /** The label another lookup (of this process or another) saved meanwhile, read from the store. */
  const savedLabel = (cell: Cell, record: CellRecord) =>
    Effect.map(store.label(cell.key), (label) => {
      if (label !== null) cache.patch(record, { label })
      return label
    })

  const lookup = (cell: Cell) =>
    Effect.gen(function* () {
      const record = yield* cache.current(cell.key)
      if (record.label !== null) return record.label
      // Another instance is looking it up: serve null now; its label is read on a later request.
      if (!(yield* store.claimLabel(cell.key, yield* Clock.currentTimeMillis))) return yield* savedLabel(cell, record)
      return yield* Effect.gen(function* () {
        const saved = yield* savedLabel(cell, record)
        if (saved !== null) return saved
        return yield* geocoder.label(cell).pipe(
          Effect.tap((found) =>
            Effect.zipRight(
              store.saveLabel(cell, found),
              Effect.sync(() => cache.patch(record, { label: found }))
            )
          ),
          Effect.catchAll((error) =>
            Effect.as(Effect.logWarning(`reverse geocoding failed for ${cell.key} (${error._tag}); the cell stays unlabeled`), null)
          )
        )
      }).pipe(Effect.ensuring(store.releaseLabel(cell.key)))
    })

  /** The cell's lookup in flight, started now if there is none (and the queue has room). */
  const started = (cell: Cell) =>
    Effect.suspend(() => {
      const running = pending.get(cell.key)
      if (running !== undefined) return Effect.succeed(running)
      if (pending.size >= maxPending) return Effect.succeed(undefined)
      const done = Deferred.unsafeMake<string | null>(FiberId.none)
      pending.set(cell.key, done)
      // Not the request's own fiber: it outlives the request that started it, so the label
      // arrives for the next one; the layer's scope owns it.
      return Effect.as(
        startIn(
          fibers,
          lookup(cell).pipe(
            Effect.catchAllCause((cause) => Effect.as(Effect.logWarning(`labeling ${cell.key} failed`, cause), null)),
            Effect.flatMap((label) => Deferred.succeed(done, label)),
            // Interrupted (shutdown), it answers no one: the waiters are interrupted with it.
            Effect.onInterrupt(() => Deferred.interrupt(done)),
            Effect.ensuring(Effect.sync(() => pending.delete(cell.key)))
          ),
          done,
          () => pending.delete(cell.key)
        ),
        done
      )
    })

  const fromStore = (cell: Cell) =>
    Effect.gen(function* () {
      const record = yield* cache.current(cell.key)
      if (record.label !== null) return record.label
      const done = yield* started(cell)
      if (done === undefined) return null
      // The only lookup in flight is not queued: it ends within the geocoder's own timeout, and
      // the view waits for it as before. Behind others, the view waits `wait` at most.
      if (pending.size <= 1) return yield* Deferred.await(done)
      return yield* Deferred.await(done).pipe(Effect.timeoutTo({ duration: wait, onTimeout: () => null, onSuccess: (l) => l }))
    }).pipe(Effect.withSpan("CellData.label", { attributes: { cell: cell.key } }))

  return (cell: Cell): Effect.Effect<string | null> =>
    cache.cachedOr(cell.key, (record) => record.label ?? undefined, fromStore(cell))
}
