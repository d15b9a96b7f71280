import { SqlClient, SqlSchema } from "@effect/sql"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * The stored value of a setting, or `generate()`'s value stored now. `on conflict do nothing`
 * then a read makes every instance that races here agree on the first writer's value.
 */
export const getOrCreate = (key: string, generate: Effect.Effect<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const candidate = yield* generate
    yield* sql`insert into settings (key, value) values (${key}, ${candidate}) on conflict (key) do nothing`
    const read = SqlSchema.single({
      Request: Schema.String,
      Result: Schema.Struct({ value: Schema.String }),
      execute: (k) => sql`select value from settings where key = ${k}`
    })
    return (yield* read(key)).value
  })
