import { SqlClient, SqlSchema } from "@effect/sql"
import { LoginThrottle } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"

/** A key's counter: `count` is an integer, the bigint `window_start` is selected as float8, so both are numbers from either driver. */
const Row = Schema.Struct({ key: Schema.String, count: Schema.Number, window_start: Schema.Number })

/**
 * `LoginThrottle.LoginAttempts` over one table. Counting is one upsert for every key of an attempt
 * (pair, address and account, or a known device's one), so each key's increment is atomic
 * (PostgreSQL's `on conflict do update` locks the row) and concurrent attempts on several
 * instances each see their own count: `LoginThrottle.step` in SQL. Plain SQL serves PGlite and
 * PostgreSQL alike (a `pg`-pool rate limiter would not run on PGlite).
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const increment = SqlSchema.findAll({
    Request: Schema.Struct({ keys: Schema.Array(Schema.String), now: Schema.Number, windowMillis: Schema.Number }),
    Result: Row,
    execute: ({ keys, now, windowMillis }) => sql`
      insert into login_attempts as a (key, window_start, count)
      values ${sql.csv(keys.map((key) => sql`(${key}, ${now}, 1)`))}
      on conflict (key) do update set
        count = case when a.window_start + ${windowMillis} <= excluded.window_start then 1 else a.count + 1 end,
        window_start = case when a.window_start + ${windowMillis} <= excluded.window_start
                            then excluded.window_start else a.window_start end
      returning key, count, window_start::float8 as window_start`
  })
  return LoginThrottle.LoginAttempts.of({
    count: (keys, now, windowMillis) =>
      Effect.gen(function* () {
        if (keys.length === 0) return []
        const rows = yield* increment({ keys, now, windowMillis })
        // Rows whose window ended long ago say nothing any more; keep the table small.
        yield* sql`delete from login_attempts where window_start < ${now - 2 * windowMillis}`
        return yield* Effect.forEach(keys, (key) => {
          const row = rows.find((r) => r.key === key)
          return row === undefined
            ? Effect.dieMessage(`login_attempts returned no row for ${key}`)
            : Effect.succeed<LoginThrottle.Counter>({ count: row.count, windowStart: row.window_start })
        })
      }).pipe(Effect.orDie, Effect.withSpan("LoginAttempts.count")),
    succeeded: (forget, takeBack) =>
      Effect.all([
        forget.length === 0 ? Effect.void : sql`delete from login_attempts where key in ${sql.in(forget)}`,
        takeBack.length === 0 ? Effect.void : sql`update login_attempts set count = greatest(count - 1, 0) where key in ${sql.in(takeBack)}`
      ]).pipe(Effect.asVoid, Effect.orDie)
  })
})

export const layer = Layer.effect(LoginThrottle.LoginAttempts, make)
