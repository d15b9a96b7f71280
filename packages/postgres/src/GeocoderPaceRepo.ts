/**
 * The core's `GeocoderPace` over the `settings` table: one row holds the earliest start of the next
 * geocoder call (epoch ms, as text), moved on by `gap` in the same statement that reads it
 * (GeocoderPace.step), so two instances claiming at once get starts `gap` apart.
 */
import { SqlClient } from "@effect/sql"
import { GeocoderPace } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const KEY = "geocoder_next_call_at"

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return GeocoderPace.GeocoderPace.of({
    claim: (nowMs, gapMs) =>
      sql<{ value: string }>`
        insert into settings (key, value) values (${KEY}, ${String(nowMs + gapMs)})
        on conflict (key) do update set value = (greatest(settings.value::bigint, ${nowMs}::bigint) + ${gapMs}::bigint)::text
        returning value`.pipe(
        Effect.map(([row]) => Number(row!.value) - gapMs),
        // The pace is a courtesy to the geocoder: a database that does not answer leaves the process's own pace.
        Effect.catchAll((error) => Effect.as(Effect.logWarning(`the shared geocoder pace could not be read (${error.message})`), nowMs))
      )
  })
})

export const layer = Layer.effect(GeocoderPace.GeocoderPace, make)
