import { SqlClient, SqlSchema } from "@effect/sql"
import { ColdCells } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { PgliteClient } from "./PgliteClient.js"

/** An arbitrary constant naming "a client's cold-cell slots" among advisory locks. */
const SLOTS_NAMESPACE = 727_000_003

/**
 * `ColdCells.ColdCellSlots` over one table of leases (`cold_cell_slots`): `ColdCells.admits` in
 * SQL, in one statement that counts only the client's live leases and deletes lapsed rows on the
 * way (an instance that died leaves rows behind). On a PostgreSQL server that statement runs in a
 * short transaction under a transaction-scoped advisory lock on the client, so two instances
 * admitting the same client's requests at once take turns and cannot both see room for one more;
 * other clients are not held up. PGlite serves one process on one connection, where statements
 * already take turns: the statement alone (one round trip instead of five, before every cold
 * cell's upstream call).
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const singleProcess = Option.isSome(yield* Effect.serviceOption(PgliteClient))
  const take = SqlSchema.findOne({
    Request: Schema.Struct({ client: Schema.String, cell: Schema.String, limit: Schema.Number, now: Schema.Number, expiresAt: Schema.Number }),
    // The bigint id as text: node-postgres gives int8 as a string, PGlite as a number.
    Result: Schema.Struct({ id: Schema.String }),
    // The delete's effect is not visible to the rest of the statement (one snapshot): the
    // counts leave lapsed leases out themselves.
    execute: ({ cell, client, expiresAt, limit, now }) => sql`
      with lapsed as (delete from cold_cell_slots where expires_at <= ${now})
      insert into cold_cell_slots (client, cell_key, expires_at)
      select ${client}, ${cell}, ${expiresAt}
      where exists (select 1 from cold_cell_slots where client = ${client} and cell_key = ${cell} and expires_at > ${now})
         or (select count(distinct cell_key) from cold_cell_slots where client = ${client} and expires_at > ${now}) < ${limit}
      returning id::text as id`
  })
  return ColdCells.ColdCellSlots.of({
    acquire: (client, cell, limit, now, expiresAt) => {
      const taken = Effect.map(take({ client, cell, limit, now, expiresAt }), Option.map((row) => row.id))
      return (
        singleProcess
          ? taken
          : sql.withTransaction(Effect.zipRight(sql`select pg_advisory_xact_lock(${SLOTS_NAMESPACE}, hashtext(${client}))`, taken))
      ).pipe(Effect.orDie, Effect.withSpan("ColdCellSlots.acquire"))
    },
    renew: (slot, expiresAt) =>
      sql`update cold_cell_slots set expires_at = ${expiresAt} where id = ${slot}::bigint`.pipe(Effect.asVoid, Effect.orDie),
    release: (slot) => sql`delete from cold_cell_slots where id = ${slot}::bigint`.pipe(Effect.asVoid, Effect.orDie)
  })
})

export const layer = Layer.effect(ColdCells.ColdCellSlots, make)
