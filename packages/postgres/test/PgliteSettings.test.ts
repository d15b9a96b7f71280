/**
 * The embedded database's footprint settings: PostgreSQL's buffers sized for one connection, and a
 * new DATA_DIR created by a child process (this process never runs initdb), opened as usual after.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { PgliteClient } from "@climate-grade/postgres"
import * as Effect from "effect/Effect"

const setting = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ setting: string }>`select current_setting(${name}) as setting`).pipe(
    Effect.map((rows) => rows[0]!.setting)
  )

describe("PGlite's settings", () => {
  it.scoped("in memory: buffers for one connection, not PostgreSQL's server defaults", () =>
    Effect.gen(function* () {
      expect(yield* setting("shared_buffers")).toBe("16MB")
      expect(yield* setting("work_mem")).toBe("4MB")
      expect(yield* setting("wal_buffers")).toBe("1MB")
    }).pipe(Effect.provide(PgliteClient.layer({}))), 120_000)

  it.scoped("a new DATA_DIR is created (by a child process), then opened with the same settings and kept", () =>
    Effect.gen(function* () {
      const dataDir = join(mkdtempSync(join(tmpdir(), "pglite-settings-")), "data")
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
      expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(false)
      yield* Effect.scoped(
        Effect.gen(function* () {
          expect(yield* setting("shared_buffers")).toBe("16MB")
          const sql = yield* SqlClient.SqlClient
          yield* sql`create table kept (n int)`
          yield* sql`insert into kept values (42)`
        }).pipe(Effect.provide(PgliteClient.layer({ dataDir })))
      )
      expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(true)
      const again = yield* Effect.scoped(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`select n from kept`).pipe(
          Effect.provide(PgliteClient.layer({ dataDir }))
        )
      )
      expect(again).toEqual([{ n: 42 }])
    }), 120_000)
})
