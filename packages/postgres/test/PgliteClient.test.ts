/** The PGlite SqlClient's own conversions, checked against what PostgreSQL itself computes. */
import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { PgliteClient } from "@climate-grade/postgres"
import * as Effect from "effect/Effect"

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
})
