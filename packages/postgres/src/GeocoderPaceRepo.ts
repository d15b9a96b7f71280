/**
 * The core's `GeocoderPace` over the `settings` table: one row holds the earliest start of the next
 * geocoder call (epoch ms by the database's clock, as text), moved on by `gap` in the same
 * statement that reads it (GeocoderPace.step), so two instances claiming at once get starts `gap` apart.
 */
import { SqlClient } from "@effect/sql"
import { GeocoderPace } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const KEY = "geocoder_next_call_at"

/** The database's clock in epoch ms: every instance reads the same one. */
const NOW = "floor(extract(epoch from clock_timestamp()) * 1000)::bigint"

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return GeocoderPace.GeocoderPace.of({
    claim: (gapMs) =>
      sql
        .unsafe<{ wait: number }>(
          `with clock as (select ${NOW} as now)
           insert into settings (key, value) select $1, (now + $2::bigint)::text from clock
           on conflict (key) do update set value = (
             case when settings.value::bigint > (select now from clock) + ${GeocoderPace.MAX_AHEAD_MS}
               then (select now from clock)
               else greatest(settings.value::bigint, (select now from clock)) end + $2::bigint
           )::text
           returning (value::bigint - $2::bigint - (select now from clock))::float8 as wait`,
          [KEY, gapMs]
        )
        .pipe(
          Effect.map(([row]) => Math.max(0, Number(row!.wait))),
          // The pace is a courtesy to the geocoder: a database that does not answer leaves the process's own pace.
          Effect.catchAll((error) => Effect.as(Effect.logWarning(`the shared geocoder pace could not be read (${error.message})`), 0))
        )
  })
})

export const layer = Layer.effect(GeocoderPace.GeocoderPace, make)
