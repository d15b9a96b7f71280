/** The PGlite SqlClient's own conversions, checked against what PostgreSQL itself computes. */
import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { PgliteClient } from "@climate-grade/postgres"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"

describe("PgliteClient", () => {
  it.scoped("bytea round-trips every byte value, empty and large values, as PostgreSQL sees them", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`create table blobs (id int primary key, b bytea)`
      const every = Uint8Array.from({ length: 256 }, (_, i) => i)
      const large = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 256)
      const cases = [every, new Uint8Array(0), large, every.subarray(100, 110)]
      for (const [id, bytes] of cases.entries()) yield* sql`insert into blobs values (${id}, ${bytes})`
      const rows = yield* sql<{ id: number; b: Uint8Array; hex: string; n: number }>`
        select id, b, encode(b, 'hex') as hex, length(b) as n from blobs order by id`
      for (const [id, bytes] of cases.entries()) {
        const row = rows[id]!
        expect(row.n).toBe(bytes.length)
        expect(row.hex).toBe(Buffer.from(bytes).toString("hex"))
        expect(row.b).toBeInstanceOf(Uint8Array)
        expect(Buffer.from(row.b).equals(Buffer.from(bytes))).toBe(true)
      }
      // A hex literal given as text still means those bytes.
      const [literal] = yield* sql<{ b: Uint8Array }>`select ${"\\x00ff10"}::bytea as b`
      expect(Array.from(literal!.b)).toEqual([0, 255, 16])
    }).pipe(Effect.provide(PgliteClient.layer({}))))

  it.scoped("a transaction is isolated from a concurrent statement: it neither joins it nor sees its write, and a rollback keeps the other's write", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`create table t (id int primary key, who text)`
      const inside = yield* Deferred.make<void>()
      const proceed = yield* Deferred.make<void>()
      // A transaction that writes, waits while another fibre issues a statement, reads, then fails.
      const tx = yield* Effect.fork(
        sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`insert into t values (1, 'tx')`
            yield* Deferred.succeed(inside, undefined)
            yield* Deferred.await(proceed)
            const seen = yield* sql<{ id: number }>`select id from t order by id`
            return yield* Effect.fail({ seen: seen.map((r) => r.id) })
          })
        )
      )
      yield* Deferred.await(inside)
      // Issued between the transaction's BEGIN and its end: it must wait, not run inside it.
      const other = yield* Effect.fork(sql`insert into t values (2, 'other')`)
      // Real time (the test's clock is TestClock): long enough for the statement to have run if it could.
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
      expect(other.unsafePoll()).toBeNull()
      yield* Deferred.succeed(proceed, undefined)
      const failure = yield* Effect.flip(Fiber.join(tx))
      // The transaction saw only its own row; the other statement ran after it.
      expect(failure).toEqual({ seen: [1] })
      yield* Fiber.join(other)
      // The rollback undid the transaction's row only: the other's write was not part of it.
      const rows = yield* sql<{ id: number; who: string }>`select id, who from t order by id`
      expect(rows.map((r) => [r.id, r.who])).toEqual([[2, "other"]])
    }).pipe(Effect.provide(PgliteClient.layer({}))))
})
