import { SqlClient } from "@effect/sql"
import { LoginThrottle } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

interface Row {
  readonly key: string
  readonly count: number
  readonly window_start: number
}

/**
 * `LoginThrottle.LoginAttempts` over one table. Counting is one upsert for both keys, so each
 * key's increment is atomic (PostgreSQL's `on conflict do update` locks the row) and concurrent
 * attempts on several instances each see their own count: `LoginThrottle.step` in SQL. Plain SQL
 * serves PGlite and PostgreSQL alike (a `pg`-pool rate limiter would not run on PGlite).
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return LoginThrottle.LoginAttempts.of({
    count: ([account, address], now, windowMillis) =>
      Effect.gen(function* () {
        const rows = yield* sql<Row>`
          insert into login_attempts as a (key, window_start, count)
          values (${account}, ${now}, 1), (${address}, ${now}, 1)
          on conflict (key) do update set
            count = case when a.window_start + ${windowMillis} <= excluded.window_start then 1 else a.count + 1 end,
            window_start = case when a.window_start + ${windowMillis} <= excluded.window_start
                                then excluded.window_start else a.window_start end
          returning key, count, window_start::float8 as window_start`
        // Rows whose window ended long ago say nothing any more; keep the table small.
        yield* sql`delete from login_attempts where window_start < ${now - 2 * windowMillis}`
        const counter = (key: string) => {
          const row = rows.find((r) => r.key === key)
          return row === undefined
            ? Effect.dieMessage(`login_attempts returned no row for ${key}`)
            : Effect.succeed<LoginThrottle.Counter>({ count: Number(row.count), windowStart: Number(row.window_start) })
        }
        return [yield* counter(account), yield* counter(address)] as const
      }).pipe(Effect.orDie, Effect.withSpan("LoginAttempts.count")),
    succeeded: ([account, address]) =>
      Effect.all([
        sql`delete from login_attempts where key = ${account}`,
        sql`update login_attempts set count = greatest(count - 1, 0) where key = ${address}`
      ]).pipe(Effect.asVoid, Effect.orDie)
  })
})

export const layer = Layer.effect(LoginThrottle.LoginAttempts, make)
