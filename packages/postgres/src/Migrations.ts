import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import accounts from "./migrations/0001_accounts.js"
import weatherCells from "./migrations/0002_weather_cells.js"
import payloads from "./migrations/0003_payloads.js"
import forecastChecked from "./migrations/0004_forecast_checked.js"
import alerts from "./migrations/0005_alerts.js"
import loginThrottle from "./migrations/0006_login_throttle.js"
import weatherBudget from "./migrations/0007_weather_budget.js"
import places from "./migrations/0008_places.js"
import geocoderClaims from "./migrations/0009_geocoder_claims.js"

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
  "0009_geocoder_claims": geocoderClaims
})

/** An arbitrary constant naming "this service's migrations" among advisory locks. */
const MIGRATION_LOCK = 727_000_001
const MIGRATIONS_TABLE = "schema_migrations"

/**
 * Runs pending migrations. Several instances may start at once on one PostgreSQL: the
 * whole run is one transaction that first takes a transaction-scoped advisory lock, so the
 * second instance waits, then finds nothing left to do. The Migrator creates its bookkeeping
 * table only after a failing probe, which would abort this transaction, and is not race-safe
 * on its own; so the table is created here first, under the lock, in the Migrator's shape.
 */
export const run = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`
      yield* sql`create table if not exists ${sql(MIGRATIONS_TABLE)} (
        migration_id integer primary key,
        created_at timestamp with time zone not null default now(),
        name text not null
      )`
      return yield* Migrator.make({})({ loader: migrations, table: MIGRATIONS_TABLE })
    })
  )
}).pipe(Effect.withSpan("Migrations.run"))

export const layer = Layer.effectDiscard(Effect.orDie(run))
