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

      it.effect("writes several payloads in one statement and reads several back in order, from memory and the table", () =>
        Effect.gen(function* () {
          const store = yield* PayloadStore
          const cell = "3.00,4.00"
          const key = (view: "grade" | "forecast" | "calendar" | "day", params: string = view) => ({ cell, view, params })
          yield* store.putAll([
            [key("grade"), { token: "g1", json: bytes('{"g":1}') }],
            [key("forecast"), { token: "f1", json: bytes('{"f":"é"}') }],
            [key("day", "2025-06-01"), { token: "d1", json: bytes("[]") }]
          ])
          // Replacing one, beside a new one: the conflict rule applies row by row.
          yield* store.putAll([
            [key("grade"), { token: "g2", json: bytes('{"g":2}') }],
            [key("calendar"), { token: "c1", json: bytes('{"c":1}') }]
          ])
          const read = (s: typeof store) =>
            Effect.map(
              s.getAll([key("grade"), key("calendar"), key("day", "2025-06-02"), key("forecast"), { cell: "5.00,6.00", view: "grade", params: "grade" }, key("day", "2025-06-01")]),
              (found) => found.map(Option.match({ onNone: () => null, onSome: (p) => `${p.token}:${text(p.json)}` }))
            )
          const expected = ["g2:{\"g\":2}", "c1:{\"c\":1}", null, "f1:{\"f\":\"é\"}", null, "d1:[]"]
          // Two of them in the two-entry memory, the rest from the table.
          expect(yield* read(store)).toEqual(expected)
          // A fresh store (a restart): all from the table, in one read for the cell.
          expect(yield* read(yield* PayloadRepo.make())).toEqual(expected)
          expect(yield* store.getAll([])).toEqual([])
        }))
    })
  })
}
