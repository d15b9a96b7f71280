/**
 * Kept place-search answers in `place_searches` (migration 0008), behind the core's PlaceCache.
 * A row that no longer decodes counts as absent (the next search overwrites it).
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Places } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** A kept answer as stored; its places are decoded apart, so a row that no longer decodes is only absent. */
const Row = Schema.Struct({
  places_json: Schema.String,
  // A timestamptz: a Date from node-postgres and PGlite alike.
  fetched_at: Schema.DateFromSelf
})

const decodePlaces = Schema.decodeUnknownOption(Schema.parseJson(Places.Places))

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const kept = SqlSchema.findOne({
    Request: Schema.String,
    Result: Row,
    execute: (query) => sql`select places_json, fetched_at from place_searches where query = ${query}`
  })
  return Places.PlaceCache.of({
    get: (query) =>
      kept(query).pipe(
        Effect.map(
          Option.flatMap((row) =>
            Option.map(decodePlaces(row.places_json), (places) => ({ places, fetchedAt: row.fetched_at.getTime() }))
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
