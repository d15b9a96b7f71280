import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/**
 * The stored value of a setting, or `generate()`'s value stored now. `on conflict do nothing`
 * then a read makes every instance that races here agree on the first writer's value.
 */
export const getOrCreate = (key: string, generate: Effect.Effect<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const candidate = yield* generate
    yield* sql`insert into settings (key, value) values (${key}, ${candidate}) on conflict (key) do nothing`
    const rows = yield* sql<{ value: string }>`select value from settings where key = ${key}`
    return rows[0]!.value
  })
