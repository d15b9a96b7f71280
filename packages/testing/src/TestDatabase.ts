/**
 * The databases a test suite runs against: always in-memory PGlite, and a real PostgreSQL
 * server when one is at hand — `DATABASE_URL` (CI sets it), else a testcontainers server when
 * a Docker engine answers. Each built layer gets a fresh, migrated database of its own, dropped
 * afterwards, so test files can run in parallel on one server.
 */
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as Reactivity from "@effect/experimental/Reactivity"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Database, Migrations } from "@climate-grade/postgres"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"

/** Which database a test runs on; `url` is set for a server, so a test can start a second process on it. */
export class TestDatabase extends Context.Tag("@climate-grade/testing/TestDatabase")<
  TestDatabase,
  { readonly name: "pglite" | "postgres"; readonly url: Option.Option<string> }
>() {}

export interface Backend {
  readonly name: "pglite" | "postgres"
  /** A fresh, migrated database for one test file or suite. */
  readonly layer: Layer.Layer<SqlClient.SqlClient | TestDatabase>
}

const migrated = <E>(client: Layer.Layer<SqlClient.SqlClient, E>) =>
  Layer.provideMerge(Layer.effectDiscard(Effect.orDie(Migrations.run)), Layer.orDie(client))

/** A scratch database on the server at `adminUrl`, created now and dropped with the scope. */
const scratchDatabase = (adminUrl: string) =>
  Effect.gen(function* () {
    const name = `cg_test_${randomBytes(6).toString("hex")}`
    const run = (statement: string) =>
      Effect.scoped(
        Effect.flatMap(PgClient.make({ url: Redacted.make(adminUrl), maxConnections: 1 }), (sql) => sql.unsafe(statement))
      ).pipe(Effect.provide(Reactivity.layer), Effect.orDie)
    yield* Effect.acquireRelease(run(`create database ${name}`), () =>
      run(`drop database if exists ${name} with (force)`).pipe(Effect.ignore)
    )
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    return url.href
  })

const serverBackend = (adminUrl: Effect.Effect<string, never, Scope.Scope>): Backend => ({
  name: "postgres",
  layer: Layer.unwrapScoped(
    Effect.gen(function* () {
      const url = yield* scratchDatabase(yield* adminUrl)
      return Layer.merge(
        migrated(PgClient.layer({ url: Redacted.make(url), maxConnections: 8 })),
        Layer.succeed(TestDatabase, { name: "postgres", url: Option.some(url) })
      )
    })
  )
})

const pgliteBackend: Backend = {
  name: "pglite",
  layer: Layer.merge(
    migrated(Database.layer({ _tag: "Memory" })),
    Layer.succeed(TestDatabase, { name: "pglite", url: Option.none() })
  )
}

const dockerAnswers = (): boolean => {
  try {
    execFileSync("docker", ["info"], { stdio: "ignore", timeout: 5_000 })
    return true
  } catch {
    return false
  }
}

/** One container for the whole test process would be kinder; one per suite keeps the code simple and isolated. */
const containerUrl = Effect.acquireRelease(
  Effect.promise(async () => {
    const { PostgreSqlContainer } = await import("@testcontainers/postgresql")
    return new PostgreSqlContainer("postgres:16-alpine").start()
  }),
  (container) => Effect.promise(() => container.stop())
).pipe(Effect.map((container) => container.getConnectionUri()))

const detect = (): ReadonlyArray<Backend> => {
  const url = process.env.DATABASE_URL
  if (url !== undefined && /^postgres(ql)?:\/\//.test(url)) return [pgliteBackend, serverBackend(Effect.succeed(url))]
  if (process.env.CI === undefined && dockerAnswers()) return [pgliteBackend, serverBackend(containerUrl)]
  return [pgliteBackend]
}

export const backends: ReadonlyArray<Backend> = detect()
