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
import * as Backup from "./Backup.js"
import * as PgliteSettings from "./PgliteSettings.js"

export interface PgliteClientConfig {
  /** A directory for an on-disk database; undefined keeps it in memory. */
  readonly dataDir?: string | undefined
}

export interface PgliteClient extends Client.SqlClient {
  readonly pglite: PGlite
  /**
   * DATA_DIR's files read while this client's one connection is held, after a CHECKPOINT: a
   * consistent copy of the database at a point between two transactions (Backup). Requests'
   * statements wait meanwhile. Fails for an in-memory database.
   */
  readonly backup: Effect.Effect<Backup.Archive, SqlError>
}

export const PgliteClient = Context.GenericTag<PgliteClient>("@climate-grade/postgres/PgliteClient")

const sqlError = (message: string) => (cause: unknown) => new SqlError({ cause, message })

/**
 * Why the database could not be opened, in one line: what PostgreSQL said last (its PANIC or
 * FATAL, and the log lines naming a file just before it), rather than the engine's "Aborted()".
 */
export const openFailure = (dataDir: string | undefined, said: ReadonlyArray<string>, cause: unknown): SqlError => {
  const lines = said
    .map((line) => /\b(LOG|WARNING|ERROR|FATAL|PANIC):\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ level: m[1]!, text: m[2]!.trim() }))
  let last = -1
  lines.forEach((l, i) => {
    if (l.level === "FATAL" || l.level === "PANIC") last = i
  })
  const where = dataDir === undefined ? "The embedded database" : `The embedded database in ${dataDir}`
  if (last === -1) return new SqlError({ cause, message: `${where} could not be opened` })
  // The fatal line, and the lines before it that name a file (a WAL segment, a relation).
  const context = lines.slice(Math.max(0, last - 3), last).filter((l) => /file|segment|relation|block/.test(l.text))
  const told = [...context, lines[last]!].map((l) => `${l.level}: ${l.text}`).join("; ")
  return new SqlError({ cause: new Error(told), message: `${where} could not be opened; PostgreSQL said` })
}

const BYTEA = 17

/**
 * A bytea parameter goes as the bytes themselves: PGlite sends a parameter that is a byte array
 * in PostgreSQL's binary format, which for bytea is the bytes, so nothing is converted on either
 * side (its own serializer writes hex text, a character at a time: ~20 ms for a 100 KB history;
 * hex made by Buffer then cost ~12 ms a history row and ~9 ms a cold cell's payloads, mostly
 * measuring and copying the text into the message and the server decoding it). Results come
 * back as hex text, which Node's Buffer decodes in native code.
 */
const byteaConverters = {
  serializers: {
    // Typed as text by PGlite; a byte array returned here is what makes it send binary.
    [BYTEA]: (value: unknown) => value as string
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
    // PostgreSQL's own log lines, which PGlite hands over rather than prints: the last few are
    // kept to say why an open failed (its WASM engine aborts on a damaged file, naming nothing).
    const said: Array<string> = []
    const onStderr = (line: string) => {
      said.push(line)
      if (said.length > 20) said.shift()
      return true
    }
    // A new DATA_DIR is created by a child process: see PgliteSettings.
    if (config.dataDir !== undefined) yield* Effect.mapError(PgliteSettings.create(config.dataDir), sqlError("Failed to create the embedded database"))
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const instance = new PGlite({
            ...(config.dataDir === undefined ? {} : { dataDir: config.dataDir }),
            startParams: PgliteSettings.startParams(),
            ...byteaConverters,
            onStderr
          })
          await instance.waitReady
          return instance
        },
        catch: (cause) => openFailure(config.dataDir, said, cause)
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
    const dataDir = config.dataDir
    const backup =
      dataDir === undefined
        ? Effect.fail(new SqlError({ cause: undefined, message: "An in-memory database has no files to back up" }))
        : semaphore.withPermits(1)(
            Effect.tryPromise({
              try: async () => {
                await db.exec("checkpoint")
                return Backup.read(dataDir)
              },
              catch: sqlError("The backup could not be taken")
            })
          )
    return Object.assign(client, { pglite: db, backup })
  })

export const layer = (config: PgliteClientConfig): Layer.Layer<PgliteClient | Client.SqlClient, SqlError> =>
  Layer.scopedContext(
    Effect.map(make(config), (client) => Context.make(PgliteClient, client).pipe(Context.add(Client.SqlClient, client)))
  ).pipe(Layer.provide(Reactivity.layer))
