import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { PayloadStore } from "@climate-grade/core"
import { PayloadRepo } from "@climate-grade/postgres"
import { backends } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

const bytes = (s: string) => new TextEncoder().encode(s)
const text = (b: Uint8Array) => new TextDecoder().decode(b)

for (const backend of backends) {
  describe(`payload store on ${backend.name}`, () => {
    layer(Layer.provideMerge(PayloadRepo.layer({ memoryEntries: 2 }), backend.layer), { timeout: 60_000 })((it) => {
      it.effect("stores, replaces and reads back payloads, through memory and from the table", () =>
        Effect.gen(function* () {
          const store = yield* PayloadStore
          const key = { cell: "1.00,2.00", view: "calendar" as const, params: "2025-01-01..2025-12-31" }
          expect(yield* store.get(key)).toEqual(Option.none())
          yield* store.put(key, { token: "t1", json: bytes('{"a":1}') })
          yield* store.put(key, { token: "t2", json: bytes('{"a":2}') })
          const hit = Option.getOrThrow(yield* store.get(key))
          expect([hit.token, text(hit.json)]).toEqual(["t2", '{"a":2}'])

          // Push it out of the two-entry memory; it comes back from the table, bytes intact.
          yield* store.put({ ...key, params: "x" }, { token: "x", json: bytes("x") })
          yield* store.put({ ...key, params: "y" }, { token: "y", json: bytes("y") })
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql`select count(*)::int as n from payloads`
          expect(rows[0]!.n).toBe(3)
          const reread = Option.getOrThrow(yield* store.get(key))
          expect([reread.token, text(reread.json)]).toEqual(["t2", '{"a":2}'])
          // The table holds the JSON only (migration 0010): compression is the HTTP adapter's.
          const columns = yield* sql<{ name: string }>`
            select column_name as name from information_schema.columns where table_name = 'payloads' order by 1`
          expect(columns.map((c) => c.name)).toEqual(["cell_key", "created_at", "json", "params", "token", "view"])

          // A fresh store (a restart) reads the table.
          const restarted = yield* PayloadRepo.make()
          expect(Option.map(yield* restarted.get(key), (p) => p.token)).toEqual(Option.some("t2"))
        }))
    })
  })
}
