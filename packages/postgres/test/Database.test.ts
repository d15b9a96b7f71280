/**
 * The service's PostgreSQL client (Database.serverLayer) keeps nothing in the session, so that
 * it works through PgBouncer in transaction mode: no `statement_timeout` startup parameter, and
 * the server's bound set per transaction instead — for a transaction's statements and for a
 * statement run on its own. PostgreSQL only (PGlite has no statement timeout to bound).
 */
import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Database } from "@climate-grade/postgres"
import { backends, TestDatabase } from "@climate-grade/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

const postgres = backends.find((b) => b.name === "postgres")

/** The SQLSTATE of a failed statement, down the SqlError's cause. */
const code = (error: unknown): unknown => (error as { cause?: { code?: unknown } }).cause?.code

describe.runIf(postgres !== undefined)("Database.serverLayer on PostgreSQL", () => {
  const bounds: Database.Bounds = { acquireMs: 2_000, queryMs: 1_500, lockWaitMs: 6_000 }
  // A scratch database kept for the test's scope, and the service's client on it.
  const client = Effect.gen(function* () {
    const url = Option.getOrThrow(Context.get(yield* Layer.build(postgres!.layer), TestDatabase).url)
    const context = yield* Layer.build(Database.serverLayer(Redacted.make(url), bounds, 3))
    return Context.get(context, SqlClient.SqlClient)
  })

  it.scoped("sends no session setting at start-up: the server's statement_timeout is its default outside a statement", () =>
    Effect.gen(function* () {
      const sql = yield* client
      // Inside a transaction the bound is the one set for it, a little under the client's.
      const inside = yield* sql.withTransaction(sql<{ t: string }>`select current_setting('statement_timeout') as t`)
      expect(inside[0]!.t).toBe("1200ms")
      // A statement on its own runs in a transaction of its own, with the same bound.
      const alone = yield* sql<{ t: string }>`select current_setting('statement_timeout') as t`
      expect(alone[0]!.t).toBe("1200ms")
      // Nothing is left in the session: a session-level read in a transaction that resets nothing.
      const reset = yield* sql.withTransaction(
        Effect.zipRight(sql`reset statement_timeout`, sql<{ t: string }>`select current_setting('statement_timeout') as t`)
      )
      expect(reset[0]!.t).toBe("0")
      // The connection the pool opened carries no startup option (pg_stat_activity's backend has none).
      const startup = yield* sql<{ n: number }>`select count(*)::int as n from pg_settings where name = 'statement_timeout' and source = 'client'`
      expect(startup[0]!.n).toBe(0)
    }))

  it.scoped("a statement past the bound is cancelled by the server (57014), alone or in a transaction, and the pool goes on", () =>
    Effect.gen(function* () {
      const sql = yield* client
      const alone = yield* Effect.flip(sql`select pg_sleep(5)`)
      expect(code(alone)).toBe("57014")
      const inTransaction = yield* Effect.flip(sql.withTransaction(Effect.zipRight(sql`select 1`, sql`select pg_sleep(5)`)))
      expect(code(inTransaction)).toBe("57014")
      // A write on its own is committed.
      yield* sql`create table if not exists timeout_probe (n int)`
      yield* sql`insert into timeout_probe values (1)`
      const rows = yield* sql<{ n: number }>`select count(*)::int as n from timeout_probe`
      expect(rows[0]!.n).toBe(1)
      // A failed statement on its own leaves no transaction open on its connection.
      yield* Effect.flip(sql`select 1/0`)
      const again = yield* Effect.all(
        Array.from({ length: 6 }, () => sql<{ s: string }>`select pg_current_xact_id_if_assigned() is null as s`),
        { concurrency: 3 }
      )
      expect(again).toHaveLength(6)
    }))

  it.scoped("an advisory-lock wait has its own longer bound, and the transaction's bound is set back after it", () =>
    Effect.gen(function* () {
      const sql = yield* client
      const settings = yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`select pg_advisory_xact_lock(${727_999_001})`
          return yield* sql<{ t: string }>`select current_setting('statement_timeout') as t`
        })
      )
      expect(settings[0]!.t).toBe("1200ms")
    }))
})
