import { SqlClient, SqlSchema } from "@effect/sql"
import { ColdCells } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** An arbitrary constant naming "a client's cold-cell slots" among advisory locks. */
const SLOTS_NAMESPACE = 727_000_003

/**
 * `ColdCells.ColdCellSlots` over one table of leases (`cold_cell_slots`): `ColdCells.admits` in
 * SQL. Taking a slot is one short transaction under a transaction-scoped advisory lock on the
 * client, so two instances admitting the same client's requests at once take turns and cannot
 * both see room for one more; other clients are not held up. Lapsed rows are deleted on the way
 * (an instance that died leaves rows behind), so the rows left are the live ones.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const take = SqlSchema.findOne({
    Request: Schema.Struct({ client: Schema.String, cell: Schema.String, limit: Schema.Number, expiresAt: Schema.Number }),
    // The bigint id as text: node-postgres gives int8 as a string, PGlite as a number.
    Result: Schema.Struct({ id: Schema.String }),
    execute: ({ cell, client, expiresAt, limit }) => sql`
      insert into cold_cell_slots (client, cell_key, expires_at)
      select ${client}, ${cell}, ${expiresAt}
      where exists (select 1 from cold_cell_slots where client = ${client} and cell_key = ${cell})
         or (select count(distinct cell_key) from cold_cell_slots where client = ${client}) < ${limit}
      returning id::text as id`
  })
  return ColdCells.ColdCellSlots.of({
    acquire: (client, cell, limit, now, expiresAt) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* sql`select pg_advisory_xact_lock(${SLOTS_NAMESPACE}, hashtext(${client}))`
            yield* sql`delete from cold_cell_slots where expires_at <= ${now}`
            return Option.map(yield* take({ client, cell, limit, expiresAt }), (row) => row.id)
          })
        )
        .pipe(Effect.orDie, Effect.withSpan("ColdCellSlots.acquire")),
    renew: (slot, expiresAt) =>
      sql`update cold_cell_slots set expires_at = ${expiresAt} where id = ${slot}::bigint`.pipe(Effect.asVoid, Effect.orDie),
    release: (slot) => sql`delete from cold_cell_slots where id = ${slot}::bigint`.pipe(Effect.asVoid, Effect.orDie)
  })
})

export const layer = Layer.effect(ColdCells.ColdCellSlots, make)
