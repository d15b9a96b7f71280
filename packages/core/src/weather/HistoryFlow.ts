/**
 * A cell's history: fetched once per cell (HISTORY_START…today), then its tail
 * topped up at most hourly; a failed top-up keeps what is held. Concurrent requests for one cell
 * share one run (SingleFlight); the store's claim makes other processes wait for it and reuse it.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import type { Cell } from "../Cell.js"
import * as CivilDate from "../CivilDate.js"
import type { Guard } from "./Backoff.js"
import type { CellStore } from "./CellStore.js"
import * as DailySeries from "./DailySeries.js"
import { NoHistory, type UpstreamError } from "./Errors.js"
import { fresh, type History, toHistory, trimmed } from "./Held.js"
import type { RecordCache } from "./RecordCache.js"
import * as SingleFlight from "./SingleFlight.js"
import type { Budget } from "./UpstreamBudget.js"
import type { WeatherSource } from "./WeatherSource.js"

export interface Deps {
  readonly store: CellStore["Type"]
  readonly source: WeatherSource["Type"]
  readonly cache: RecordCache
  readonly guard: Guard
  readonly budget: Budget
  /** Where the shared runs go on (closing their scope interrupts them). */
  readonly fibers: FiberSet.FiberSet
  readonly historyStart: CivilDate.EpochDay
}

export const make = ({ store, source, cache, guard, budget, historyStart, fibers }: Deps) => {
  const coldFetch = (cell: Cell) =>
    store.exclusive(
      cell.key,
      "history",
      Effect.gen(function* () {
        // Another process may have fetched it while this one waited for the claim.
        const record = yield* cache.latest(cell.key)
        const now = yield* Clock.currentTimeMillis
        const held = toHistory(record)
        if (Option.isSome(held)) return held.value
        if (record.historyCheckedAt !== null && fresh(record.historyCheckedAt, now)) {
          return yield* new NoHistory({ cell: cell.key })
        }
        // The cell's time zone comes with the answer: until then, no date that is still
        // tomorrow somewhere.
        const today = CivilDate.earliestToday(now)
        // A new cell is the expensive call: refused, before it is made, when the day's budget cannot pay it.
        const fetched = yield* guard(
          "archive",
          budget.reserved(source.cost.archive(historyStart, today), source.archive(cell, historyStart, today))
        )
        const history = trimmed(fetched.series)
        yield* store.saveHistory(cell, { timezone: fetched.timezone, history, checkedAt: now })
        const saved = cache.patch(record, { timezone: fetched.timezone, history, historyCheckedAt: now })
        return yield* Option.match(toHistory(saved), {
          onNone: () => Effect.fail(new NoHistory({ cell: cell.key })),
          onSome: Effect.succeed
        })
      })
    )

  const topUp = (cell: Cell, held: History) =>
    store.exclusive(
      cell.key,
      "history",
      Effect.gen(function* () {
        const record = yield* cache.latest(cell.key)
        const now = yield* Clock.currentTimeMillis
        const newest = Option.getOrElse(toHistory(record), () => held)
        if (fresh(record.historyCheckedAt, now)) return newest
        const today = CivilDate.todayIn(now, newest.timezone)
        if (newest.end + 1 > today) {
          yield* store.markHistoryChecked(cell, now)
          cache.patch(record, { historyCheckedAt: now })
          return newest
        }
        // A top-up keeps a held cell current: paid by whoever asked, refused past their limits.
        return yield* guard("archive", budget.upkeep(source.cost.archive(newest.end + 1, today), source.archive(cell, newest.end + 1, today))).pipe(
          Effect.flatMap((tail) =>
            Effect.gen(function* () {
              const merged = trimmed(DailySeries.merge(newest.series, tail.series)) ?? newest.series
              yield* store.saveHistory(cell, { timezone: newest.timezone, history: merged, checkedAt: now })
              const saved = cache.patch(record, { history: merged, historyCheckedAt: now })
              return Option.getOrElse(toHistory(saved), () => newest)
            })
          ),
          // What is held is still served; the attempt counts, so the upstream is asked at most hourly.
          // Refused by the budget, nothing was asked: the next request (whoever pays) tries again.
          Effect.catchAll((error) =>
            Effect.gen(function* () {
              if (error._tag === "BudgetSpent" || error._tag === "ShareSpent") return newest
              // The failure and its cause were logged where it happened (the adapter); this says what was done.
              yield* Effect.logWarning(`history top-up failed for ${cell.key} (${error._tag}); serving what is held`)
              yield* store.markHistoryChecked(cell, now)
              cache.patch(record, { historyCheckedAt: now })
              return newest
            })
          )
        )
      })
    )

  const flight = SingleFlight.make<History, UpstreamError | NoHistory>(fibers)
  const fromStore = (cell: Cell) =>
    flight(
      cell.key,
      Effect.gen(function* () {
        const record = yield* cache.current(cell.key)
        const now = yield* Clock.currentTimeMillis
        const held = toHistory(record)
        if (Option.isNone(held)) return yield* coldFetch(cell)
        if (fresh(record.historyCheckedAt, now)) return held.value
        return yield* topUp(cell, held.value)
      })
    ).pipe(Effect.withSpan("CellData.history", { attributes: { cell: cell.key } }))

  return (cell: Cell): Effect.Effect<History, UpstreamError | NoHistory> =>
    cache.cachedOr(
      cell.key,
      (record, now) => (fresh(record.historyCheckedAt, now) ? Option.getOrUndefined(toHistory(record)) : undefined),
      fromStore(cell)
    )
}
