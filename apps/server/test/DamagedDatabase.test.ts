/**
 * A damaged table is no outage, and never looks healthy: `/health` answers 503 naming a core
 * table, a sign-in that reads the table answers 500 with a generic detail and logs one error
 * (not 503 "unavailable", which invites retries that cannot help), and routes that do not read
 * it go on answering.
 *
 * On PGlite the damage is real: the first page of `users` is overwritten on disk while the
 * database is closed, and PGlite reports `invalid page in block 0` (XX001) on reading it. On
 * PostgreSQL the test cannot reach the server's files (nor evict the page from its shared
 * buffers), so the server is made to answer every read of `users` with that same SQLSTATE and
 * message, from a function behind a view of that name.
 */
import { mkdtempSync, openSync, rmSync, writeSync, closeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { PasswordHasher, Users } from "@climate-grade/core"
import { AccountsRepo, Database, Migrations } from "@climate-grade/postgres"
import { Argon2 } from "@climate-grade/node"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { backends } from "@climate-grade/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

class Logs extends Context.Tag("test/Logs")<Logs, Array<string>>() {}

const OWNER = { email: "owner@example.org", password: "correct horse battery" }

const createOwner = Effect.gen(function* () {
  const hasher = yield* PasswordHasher
  yield* Effect.orDie(
    (yield* Users).create({
      email: OWNER.email,
      hashedPassword: yield* hasher.hash(OWNER.password),
      isActive: true,
      isSuperuser: false,
      isVerified: true,
      oauthOnly: false
    })
  )
})

/** An embedded DATA_DIR with the owner's account, whose `users` table then has its first page overwritten. */
const damagedDataDir = Effect.gen(function* () {
  const dataDir = mkdtempSync(join(tmpdir(), "cg-damaged-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dataDir, { recursive: true, force: true })))
  const embedded = Layer.provideMerge(Migrations.layer, Database.layer({ _tag: "Embedded", dataDir }).pipe(Layer.orDie))
  const file = yield* Effect.gen(function* () {
    yield* createOwner
    const sql = yield* SqlClient.SqlClient
    const rows = yield* Effect.orDie(sql<{ path: string }>`select pg_relation_filepath('users') as path`)
    return rows[0]!.path
  }).pipe(Effect.provide(Layer.mergeAll(AccountsRepo.layer, Argon2.layer).pipe(Layer.provideMerge(embedded))))
  // The page header (its LSN, checksum, free-space pointers) no longer makes sense.
  const fd = openSync(join(dataDir, file), "r+")
  writeSync(fd, Buffer.alloc(24, 0xde), 0, 24, 0)
  closeSync(fd)
  return Layer.provideMerge(Migrations.layer, Database.layer({ _tag: "Embedded", dataDir }).pipe(Layer.orDie))
})

/** A scratch PostgreSQL database whose `users` reads fail as a damaged page makes them fail. */
const damagedServer = (backend: (typeof backends)[number]) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(backend.layer)
    const sql = Context.get(context, SqlClient.SqlClient)
    yield* createOwner.pipe(Effect.provide(Layer.mergeAll(AccountsRepo.layer, Argon2.layer).pipe(Layer.provideMerge(Layer.succeedContext(context)))))
    yield* Effect.orDie(
      sql.unsafe(`
        alter table users rename to users_damaged;
        create function users_page_check() returns boolean language plpgsql as $$
        begin
          raise exception 'invalid page in block 0 of relation "base/5/16385"' using errcode = 'XX001';
        end $$;
        create view users as select * from users_damaged where users_page_check();
      `).unprepared
    )
    return Layer.succeedContext(context)
  })

const world = (backend: (typeof backends)[number]) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const database = backend.name === "pglite" ? yield* damagedDataDir : yield* damagedServer(backend)
      const logs: Array<string> = []
      return Layer.merge(testServerLayer({}, database, { logs }), Layer.succeed(Logs, logs))
    })
  )

const request = (url: string, init: RequestInit = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    const body = (await response.json()) as { detail?: string; status?: string }
    return { status: response.status, retryAfter: response.headers.get("retry-after"), body }
  })

for (const backend of backends) {
  describe(`a damaged table on ${backend.name}`, () => {
    layer(world(backend), { timeout: 180_000 })((it) => {
      it.effect("/health is 503; a sign-in reading it is 500 with one logged error, not 503 'unavailable'", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const logs = yield* Logs
          const health = yield* request(server.url("/api/v2/health"))
          expect(health.status).toBe(503)
          expect(health.body.detail).toBe("The database answers, but a core table cannot be read; see the server's log.")
          expect(logs.filter((l) => /level=ERROR/.test(l) && /invalid page in block 0/.test(l))).toHaveLength(1)

          const before = logs.length
          const login = yield* request(server.url("/api/v2/auth/login"), {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(OWNER)
          })
          expect(login).toEqual({
            status: 500,
            retryAfter: null,
            body: { detail: "The request failed on a database fault, which has been logged.", code: "database-fault" }
          })
          const errors = logs.slice(before).filter((l) => /level=ERROR/.test(l))
          expect(errors).toHaveLength(1)
          expect(errors[0]).toMatch(/database fault/)
          expect(errors[0]).toMatch(/invalid page in block 0/)

          // What does not read the damaged table still answers: an unknown bearer is looked up in sessions.
          const me = yield* request(server.url("/api/v2/users/me"), { headers: { authorization: `Bearer ${"x".repeat(43)}` } })
          expect(me.status).toBe(401)
          // A second probe logs nothing new for the same damage.
          expect((yield* request(server.url("/api/v2/health"))).status).toBe(503)
          expect(logs.filter((l) => /health: a core table cannot be read/.test(l))).toHaveLength(1)
        }))
    })
  })
}
