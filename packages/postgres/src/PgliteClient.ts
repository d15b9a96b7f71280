/**
 * A `SqlClient` over PGlite (PostgreSQL compiled to WASM, in process), so the one set of
 * repositories and migrations serves both the embedded database and a PostgreSQL server.
 *
 * A PGlite instance is a single connection: like `@effect/sql-sqlite-node`, fibres are
 * serialised with a one-permit semaphore, and a transaction holds the permit from BEGIN
 * to COMMIT so no other fibre's statement can interleave with it. Nested transactions
 * become savepoints through `SqlClient.make`. The statement compiler is the PostgreSQL
 * one from `@effect/sql-pg`, so `sql.onDialect` and placeholders behave identically.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as Client from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import { PGlite } from "@electric-sql/pglite"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

export interface PgliteClientConfig {
  /** A directory for an on-disk database; undefined keeps it in memory. */
  readonly dataDir?: string | undefined
}

export interface PgliteClient extends Client.SqlClient {
  readonly pglite: PGlite
}

export const PgliteClient = Context.GenericTag<PgliteClient>("@climate-grade/postgres/PgliteClient")

const sqlError = (message: string) => (cause: unknown) => new SqlError({ cause, message })

const BYTEA = 17

/**
 * bytea travels as PostgreSQL's hex text; PGlite's own converters walk it a character at a time
 * (~20 ms each way for a 100 KB history). Node's Buffer does the same in native code.
 */
const byteaConverters = {
  serializers: {
    [BYTEA]: (value: unknown) =>
      typeof value === "string" ? value : `\\x${Buffer.from(value as Uint8Array).toString("hex")}`
  },
  parsers: {
    [BYTEA]: (text: string) => {
      const bytes = Buffer.from(text.slice(2), "hex")
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    }
  }
}

export const make = (config: PgliteClientConfig): Effect.Effect<PgliteClient, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const instance = new PGlite({ ...(config.dataDir === undefined ? {} : { dataDir: config.dataDir }), ...byteaConverters })
          await instance.waitReady
          return instance
        },
        catch: sqlError("Failed to open the embedded database")
      }),
      (instance) =>
        instance.closed ? Effect.void : Effect.tryPromise(() => instance.close()).pipe(Effect.ignoreLogged)
    )

    const query = (sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") =>
      Effect.tryPromise({
        try: () => db.query<Record<string, unknown>>(sql, params as Array<unknown>, { rowMode }),
        catch: sqlError("Failed to execute statement")
      })

    const connection: Connection = {
      execute: (sql, params, transformRows) =>
        Effect.map(query(sql, params, "object"), (r) => (transformRows ? transformRows(r.rows) : r.rows)),
      executeRaw: (sql, params) => query(sql, params, "object"),
      executeValues: (sql, params) =>
        Effect.map(query(sql, params, "array"), (r) => r.rows as unknown as ReadonlyArray<ReadonlyArray<unknown>>),
      executeUnprepared: (sql, params, transformRows) =>
        params.length > 0
          ? Effect.map(query(sql, params, "object"), (r) => (transformRows ? transformRows(r.rows) : r.rows))
          : // `exec` runs several statements in one call (migrations), which `query` refuses.
            Effect.map(
              Effect.tryPromise({ try: () => db.exec(sql), catch: sqlError("Failed to execute statement") }),
              (results) => {
                const rows = (results.at(-1)?.rows ?? []) as ReadonlyArray<Record<string, unknown>>
                return transformRows ? transformRows(rows) : rows
              }
            ),
      executeStream: (sql, params, transformRows) =>
        Stream.fromIterableEffect(
          Effect.map(query(sql, params, "object"), (r) => (transformRows ? transformRows(r.rows) : r.rows))
        )
    }

    // The permit is held until the statement's scope closes (SqlClient scopes each
    // statement), not merely while the connection is handed out: PGlite is async, and a
    // statement issued between another fibre's BEGIN and COMMIT would join its transaction.
    const semaphore = yield* Effect.makeSemaphore(1)
    const acquirer = Effect.uninterruptibleMask((restore) =>
      Effect.as(
        Effect.zipRight(
          restore(semaphore.take(1)),
          Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, semaphore.release(1)))
        ),
        connection
      )
    )

    const client = yield* Client.make({
      acquirer,
      transactionAcquirer: acquirer,
      compiler: makeCompiler(),
      spanAttributes: [["db.system.name", "postgresql"], ["db.client", "pglite"]]
    })
    return Object.assign(client, { pglite: db })
  })

export const layer = (config: PgliteClientConfig): Layer.Layer<PgliteClient | Client.SqlClient, SqlError> =>
  Layer.scopedContext(
    Effect.map(make(config), (client) => Context.make(PgliteClient, client).pipe(Context.add(Client.SqlClient, client)))
  ).pipe(Layer.provide(Reactivity.layer))
