/**
 * Kept place-search answers in `place_searches` (migration 0008), behind the core's PlaceCache.
 * A row that no longer decodes counts as absent (the next search overwrites it).
 */
import { SqlClient } from "@effect/sql"
import { Places } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

interface Row {
  readonly places_json: string
  readonly fetched_at: Date | string
}

const decodePlaces = Schema.decodeUnknownOption(Schema.parseJson(Places.Places))

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return Places.PlaceCache.of({
    get: (query) =>
      sql<Row>`select places_json, fetched_at from place_searches where query = ${query}`.pipe(
        Effect.map((rows) =>
          Option.flatMap(Option.fromNullable(rows[0]), (row) =>
            Option.map(decodePlaces(row.places_json), (places) => ({ places, fetchedAt: new Date(row.fetched_at).getTime() }))
          )
        ),
        Effect.orDie
      ),
    put: (query, search, expiredBefore) =>
      Effect.all([
        sql`insert into place_searches (query, places_json, fetched_at)
            values (${query}, ${JSON.stringify(search.places)}, ${new Date(search.fetchedAt)})
            on conflict (query) do update set places_json = excluded.places_json, fetched_at = excluded.fetched_at`,
        // Old answers would be refetched anyway; dropping them keeps the table to what is in use.
        sql`delete from place_searches where fetched_at < ${new Date(expiredBefore)}`
      ]).pipe(Effect.asVoid, Effect.orDie)
  })
})

export const layer = Layer.effect(Places.PlaceCache, make)
