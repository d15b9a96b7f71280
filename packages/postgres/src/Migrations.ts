import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import accounts from "./migrations/0001_accounts.js"
import weatherCells from "./migrations/0002_weather_cells.js"
import payloads from "./migrations/0003_payloads.js"
import forecastChecked from "./migrations/0004_forecast_checked.js"
import alerts from "./migrations/0005_alerts.js"
import loginThrottle from "./migrations/0006_login_throttle.js"
import weatherBudget from "./migrations/0007_weather_budget.js"
import places from "./migrations/0008_places.js"
import geocoderClaims from "./migrations/0009_geocoder_claims.js"
import payloadsJsonOnly from "./migrations/0010_payloads_json_only.js"
import fairShares from "./migrations/0011_fair_shares.js"
import spellAlerts from "./migrations/0012_spell_alerts.js"
import userVoice from "./migrations/0013_user_voice.js"

/** Every migration, in order. Imported statically so a bundled server carries them. */
export const migrations = Migrator.fromRecord({
  "0001_accounts": accounts,
  "0002_weather_cells": weatherCells,
  "0003_payloads": payloads,
  "0004_forecast_checked": forecastChecked,
  "0005_alerts": alerts,
  "0006_login_throttle": loginThrottle,
  "0007_weather_budget": weatherBudget,
  "0008_places": places,
  "0009_geocoder_claims": geocoderClaims,
  "0010_payloads_json_only": payloadsJsonOnly,
  "0011_fair_shares": fairShares,
  "0012_spell_alerts": spellAlerts,
  "0013_user_voice": userVoice
})

/** An arbitrary constant naming "this service's migrations" among advisory locks. */
const MIGRATION_LOCK = 727_000_001
const MIGRATIONS_TABLE = "schema_migrations"

/**
 * Runs pending migrations. Several instances may start at once on one PostgreSQL: the
 * whole run is one transaction that first takes a transaction-scoped advisory lock, so the
 * second instance waits, then finds nothing left to do. Every migration not yet recorded runs,
 * in id order, even one numbered below a migration already applied: `Migrator.make` runs only
 * ids above the highest applied, so a migration that reached a database after a higher-numbered
 * one (numbers reserved by parallel work land out of order) would otherwise never run there.
 * The bookkeeping table keeps the Migrator's shape.
 */
export const run = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const appliedIds = SqlSchema.findAll({
    Request: Schema.Void,
    // An integer column: a number from both drivers.
    Result: Schema.Struct({ migration_id: Schema.Number }),
    execute: () => sql`select migration_id from ${sql(MIGRATIONS_TABLE)}`
  })
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`
      yield* sql`create table if not exists ${sql(MIGRATIONS_TABLE)} (
        migration_id integer primary key,
        created_at timestamp with time zone not null default now(),
        name text not null
      )`
      const applied = new Set((yield* appliedIds(undefined)).map((r) => r.migration_id))
      const pending = (yield* migrations).filter(([id]) => !applied.has(id))
      for (const [id, name, load] of pending) {
        const migration = (yield* load) as Effect.Effect<unknown, unknown, SqlClient.SqlClient>
        yield* Effect.orDieWith(migration, (cause) => new Error(`Migration ${id}_${name} failed: ${String(cause)}`))
        yield* sql`insert into ${sql(MIGRATIONS_TABLE)} ${sql.insert({ migration_id: id, name })}`
      }
      return pending.map(([id, name]) => [id, name] as const)
    })
  )
}).pipe(Effect.withSpan("Migrations.run"))

export const layer = Layer.effectDiscard(Effect.orDie(run))
