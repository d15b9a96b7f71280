/**
 * A cell's label (CONTRACT.md §3): looked up while the cell has none; a failed lookup leaves it
 * unlabeled (null) and is tried again on a later request. Concurrent requests share one lookup.
 */
import * as Effect from "effect/Effect"
import type { Cell } from "../Cell.js"
import type { CellStore } from "./CellStore.js"
import type { RecordCache } from "./RecordCache.js"
import * as SingleFlight from "./SingleFlight.js"
import type { Geocoder } from "./WeatherSource.js"

export interface Deps {
  readonly store: CellStore["Type"]
  readonly geocoder: Geocoder["Type"]
  readonly cache: RecordCache
}

export const make = ({ store, geocoder, cache }: Deps) => {
  const flight = SingleFlight.make<string | null, never>()
  const fromStore = (cell: Cell) =>
    flight(
      cell.key,
      Effect.gen(function* () {
        const record = yield* cache.current(cell.key)
        if (record.label !== null) return record.label
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
      })
    )

  return (cell: Cell): Effect.Effect<string | null> =>
    cache.cachedOr(cell.key, (record) => record.label ?? undefined, fromStore(cell))
}
