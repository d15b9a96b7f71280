/**
 * The severe or extreme heat wave or cold spell on or coming at a cell, from what is held (the
 * history and the forecast, never an upstream call), for the share card and a shared link's head.
 * Kept per cell by the record's end and the forecast's fetch, so a repeated request costs a lookup.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Cell } from "../Cell.js"
import * as CivilDate from "../CivilDate.js"
import * as Lru from "../Lru.js"
import { CellData } from "../weather/CellData.js"
import * as Notable from "./Notable.js"

export const make = Effect.gen(function* () {
  const data = yield* CellData
  const kept = Lru.make<string, { readonly stamp: string; readonly notable: Notable.NotableSpell | null }>({
    name: "held-spells",
    capacity: 2_000,
    maxWeight: 2 * 1024 * 1024,
    weigh: () => 400
  })
  return (cell: Cell): Effect.Effect<Option.Option<Notable.NotableSpell>> =>
    Effect.gen(function* () {
      const history = yield* data.heldHistory(cell)
      const forecast = yield* data.heldForecast(cell)
      if (Option.isNone(history) || Option.isNone(forecast)) return Option.none()
      const now = yield* Clock.currentTimeMillis
      const today = CivilDate.todayIn(now, history.value.timezone)
      const stamp = `${history.value.end}|${forecast.value.stamp}|${today}`
      const hit = kept.get(cell.key)
      if (hit !== undefined && hit.stamp === stamp) return Option.fromNullable(hit.notable)
      const notable = Notable.notableOf(
        Notable.nowOf({
          record: history.value.series,
          recordLast: history.value.end,
          forecast: forecast.value.series,
          today,
          thresholds: Notable.heldThresholds(history.value.series, history.value.end)
        })
      )
      kept.set(cell.key, { stamp, notable })
      return Option.fromNullable(notable)
    }).pipe(
      // A head or a card never fails for its spell: without one it says what it said before.
      Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("a place's spell could not be told", cause), Option.none()))
    )
})

export type HeldSpell = Effect.Effect.Success<typeof make>
