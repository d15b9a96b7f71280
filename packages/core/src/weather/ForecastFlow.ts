/**
 * A cell's recent days and forecast: refetched at most hourly; a failed refetch
 * keeps the last one, stamp unchanged. Concurrent requests for one cell share one run
 * (SingleFlight); the store's claim makes other processes wait for it and reuse it.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type { Cell } from "../Cell.js"
import type { Guard } from "./Backoff.js"
import type { CellStore } from "./CellStore.js"
import type { UpstreamError } from "./Errors.js"
import { type Forecast, fresh, toForecast } from "./Held.js"
import type { RecordCache } from "./RecordCache.js"
import * as SingleFlight from "./SingleFlight.js"
import type { Budget } from "./UpstreamBudget.js"
import type { WeatherSource } from "./WeatherSource.js"

export interface Deps {
  readonly store: CellStore["Type"]
  readonly source: WeatherSource["Type"]
  readonly cache: RecordCache
  readonly guard: Guard
  /** Told of each successful refetch (alerts evaluate a watched cell then). */
  readonly refetched?: PubSub.PubSub<Cell> | undefined
  readonly budget: Budget
  /** Where the shared runs go on (closing their scope interrupts them). */
  readonly fibers: FiberSet.FiberSet
}

export const make = ({ store, source, cache, guard, refetched, budget, fibers }: Deps) => {
  const refetch = (cell: Cell, now: number) =>
    store.exclusive(
      cell.key,
      "forecast",
      Effect.gen(function* () {
        const record = yield* cache.latest(cell.key)
        const last = toForecast(record)
        if (Option.isSome(last) && fresh(last.value.checkedAt, now)) return last.value
        // Paid by whoever asked (the budget's upkeep), refused past their limits.
        return yield* guard("forecast", budget.upkeep(source.cost.forecast, source.forecast(cell))).pipe(
          Effect.flatMap((fetched) =>
            Effect.gen(function* () {
              yield* store.saveForecast(cell, { timezone: fetched.timezone, forecast: fetched.series, stamp: now })
              cache.patch(record, {
                timezone: record.timezone ?? fetched.timezone,
                forecast: fetched.series,
                forecastStamp: now,
                forecastCheckedAt: now
              })
              if (refetched !== undefined) yield* PubSub.publish(refetched, cell)
              return { timezone: record.timezone ?? fetched.timezone, series: fetched.series, stamp: now, checkedAt: now }
            })
          ),
          // A failed refetch keeps the last forecast, stamp unchanged; the attempt counts,
          // so the upstream is asked at most hourly.
          Effect.catchAll((error) =>
            Option.match(last, {
              onNone: () => Effect.fail(error),
              onSome: (last) =>
                Effect.gen(function* () {
                  // Refused by the budget, nothing was asked: the next request (whoever pays) tries again.
                  if (error._tag === "BudgetSpent" || error._tag === "ShareSpent") return last
                  yield* Effect.logWarning(`forecast refetch failed for ${cell.key} (${error._tag}); keeping the last`)
                  yield* store.markForecastChecked(cell, now)
                  cache.patch(record, { forecastCheckedAt: now })
                  return { ...last, checkedAt: now }
                })
            })
          )
        )
      })
    )

  const flight = SingleFlight.make<Forecast, UpstreamError>(fibers)
  const fromStore = (cell: Cell) =>
    flight(
      cell.key,
      Effect.gen(function* () {
        const cached = yield* cache.current(cell.key)
        const now = yield* Clock.currentTimeMillis
        const held = toForecast(cached)
        if (Option.isSome(held) && fresh(held.value.checkedAt, now)) return held.value
        return yield* refetch(cell, now)
      })
    ).pipe(Effect.withSpan("CellData.forecast", { attributes: { cell: cell.key } }))

  return (cell: Cell): Effect.Effect<Forecast, UpstreamError> =>
    cache.cachedOr(
      cell.key,
      (record, now) => {
        const held = Option.getOrUndefined(toForecast(record))
        return held !== undefined && fresh(held.checkedAt, now) ? held : undefined
      },
      fromStore(cell)
    )
}
