import { SqlClient } from "@effect/sql"
import { ColdCells } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

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
  return ColdCells.ColdCellSlots.of({
    acquire: (client, cell, limit, now, expiresAt) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            yield* sql`select pg_advisory_xact_lock(${SLOTS_NAMESPACE}, hashtext(${client}))`
            yield* sql`delete from cold_cell_slots where expires_at <= ${now}`
            const rows = yield* sql<{ id: string }>`
              insert into cold_cell_slots (client, cell_key, expires_at)
              select ${client}, ${cell}, ${expiresAt}
              where exists (select 1 from cold_cell_slots where client = ${client} and cell_key = ${cell})
                 or (select count(distinct cell_key) from cold_cell_slots where client = ${client}) < ${limit}
              returning id::text as id`
            return Option.fromNullable(rows[0]?.id)
          })
        )
        .pipe(Effect.orDie, Effect.withSpan("ColdCellSlots.acquire")),
    renew: (slot, expiresAt) =>
      sql`update cold_cell_slots set expires_at = ${expiresAt} where id = ${slot}::bigint`.pipe(Effect.asVoid, Effect.orDie),
    release: (slot) => sql`delete from cold_cell_slots where id = ${slot}::bigint`.pipe(Effect.asVoid, Effect.orDie)
  })
})

export const layer = Layer.effect(ColdCells.ColdCellSlots, make)
