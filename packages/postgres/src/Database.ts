import { ErrorCause } from "@climate-grade/core"
import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import Pg from "pg"
import * as DataDir from "./DataDir.js"
import * as DataDirLock from "./DataDirLock.js"
import * as PgliteClient from "./PgliteClient.js"

/** Where the data lives, decided from `DATABASE_URL` (docs/configuration.md). */
export type DatabaseTarget =
  | { readonly _tag: "Embedded"; readonly dataDir: string }
  | { readonly _tag: "Memory" }
  | { readonly _tag: "Server"; readonly url: Redacted.Redacted<string>; readonly poolSize?: number }

export const targetFromUrl = (
  url: string | undefined,
  dataDir: string,
  poolSize: number = POOL_SIZE
): DatabaseTarget | undefined => {
  if (url === undefined || url.trim() === "") return { _tag: "Embedded", dataDir }
  if (url === "memory://") return { _tag: "Memory" }
  if (/^postgres(ql)?:\/\//.test(url)) return { _tag: "Server", url: Redacted.make(url), poolSize }
  return undefined
}

export const describe = (target: DatabaseTarget): string =>
  target._tag === "Embedded" ? `embedded PGlite in ${target.dataDir}` : target._tag === "Memory" ? "in-memory PGlite" : "PostgreSQL"

/**
 * Connections to a PostgreSQL server (or PgBouncer), per process, unless `DATABASE_POOL_SIZE`
 * says otherwise: instances × this must stay within what the server (`max_connections`, less
 * its reserved ones) or PgBouncer (`max_client_conn`) accepts.
 */
export const POOL_SIZE = 10

/** The pool size of the database in use (PGlite: one connection, the default is never reached). */
export class PoolSize extends Context.Reference<PoolSize>()("@climate-grade/postgres/PoolSize", {
  defaultValue: () => POOL_SIZE
}) {}

/**
 * Bounds on every exchange with a PostgreSQL server, so a server that stops answering (a
 * black-holed network, a frozen host) fails requests with 503 within a few seconds instead of
 * holding them for the whole outage, and the pool heals by itself when it comes back:
 *
 * - `acquireMs`: waiting for a pooled connection, or opening a new one (TCP connect, startup,
 *   authentication), gives up after this (pg-pool's `connectionTimeoutMillis` covers both).
 * - `queryMs`: the client stops waiting for a statement's answer after this (`query_timeout`)
 *   and discards the connection, whose protocol state is unknown. The server is told a bound a
 *   little shorter (`statement_timeout`, `SERVER_MARGIN_MS` less) so that a statement that is
 *   merely slow is cancelled by PostgreSQL itself (57014) on a connection that stays usable.
 * - `lockWaitMs`: statements that wait for an advisory lock another instance holds for a
 *   bounded piece of work (a claimed history fetch: archive timeout 30 s; migrations) wait up
 *   to this instead; they only start once the database has answered the transaction's BEGIN.
 * - TCP keepalive: an idle connection across a dead path is found and dropped by the kernel.
 *
 * With these, a request's database work on a silent server ends within acquire + query (the
 * first statement that meets the silence fails the request), under the 6 s the service allows.
 */
export interface Bounds {
  readonly acquireMs: number
  readonly queryMs: number
  readonly lockWaitMs: number
}

export const BOUNDS: Bounds = { acquireMs: 2_000, queryMs: 3_000, lockWaitMs: 45_000 }

/** How much sooner than the client the server gives up on a statement (a fifth of short bounds). */
const SERVER_MARGIN_MS = 500

const serverTimeout = (clientMs: number) => Math.max(1, clientMs - Math.min(SERVER_MARGIN_MS, Math.floor(clientMs / 5)))

const LOCK_WAIT = /\bpg_advisory(_xact)?_lock\s*\(/

/** Statements that open a transaction block; the bound is set inside it, in the same round trip. */
const BEGIN = /^\s*(begin|start\s+transaction)\b[^;]*;?\s*$/i

/**
 * Statements that are not wrapped in a transaction of their own: the transaction commands
 * themselves, and those PostgreSQL refuses inside a transaction block.
 */
const UNWRAPPED =
  /^\s*(begin|start\s+transaction|commit|end|rollback|abort|savepoint|release|prepare\s+transaction|vacuum|create\s+database|drop\s+database|alter\s+system|create\s+tablespace|drop\s+tablespace|(create|drop)\s+index\s+concurrently|reindex\b.*\bconcurrently|discard\s+all|set\s+session|reset)\b/i

type QueryCallback = (err: Error | null | undefined, result?: unknown) => void

/**
 * node-postgres's client with the bounds applied per statement, and nothing kept in the session:
 * the server's bound is `SET LOCAL statement_timeout`, which ends with its transaction, so the
 * client works through PgBouncer in transaction mode (which refuses `statement_timeout` as a
 * startup parameter and hands each transaction whichever server connection is free). Statements
 * are unnamed (node-postgres's default without a `name`), which transaction pooling allows.
 *
 * - A transaction's `BEGIN` (as @effect/sql sends it) carries `SET LOCAL statement_timeout`
 *   in the same simple query.
 * - A statement outside a transaction (@effect/sql-pg runs each one on a connection of its own
 *   from the pool, in autocommit) is wrapped: `BEGIN; SET LOCAL …`, the statement, `COMMIT`
 *   (`ROLLBACK` after an error). Two round trips more, on statements that are not the hot path
 *   (answers already held are served from memory).
 * - An advisory-lock wait raises the transaction's bound to `lockWaitMs` for itself and sets it
 *   back after it (two round trips more, on claims that wait for an upstream anyway).
 *
 * `pg` leaves a connection whose statement timed out on the client in the pool with that
 * statement still in flight; here it is ended at once (pg-pool then removes it on release), so
 * the next request gets a fresh connection — which is what makes recovery need no restart.
 */
const boundedClient = (bounds: Bounds) =>
  class BoundedClient extends Pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this forwards them all
    override query(config: any, values?: any, callback?: any): any {
      const text = typeof config === "string" ? config : typeof config?.text === "string" ? config.text : undefined
      // Custom submittables (pg-cursor) pass through untouched.
      if (text === undefined || typeof config?.submit === "function") return super.query(config, values, callback)
      const params = typeof values === "function" ? undefined : values
      const done: QueryCallback | undefined = typeof values === "function" ? values : typeof callback === "function" ? callback : undefined
      if (done === undefined) {
        // The promise form (pg-pool's own calls use callbacks; this keeps any other caller working).
        return new Promise((resolve, reject) =>
          this.query(config, params, (err: Error | null | undefined, result?: unknown) => (err ? reject(err) : resolve(result)))
        )
      }
      const long = LOCK_WAIT.test(text)
      const clientMs = long ? bounds.lockWaitMs : bounds.queryMs
      const setLocal = (ms: number) => `set local statement_timeout = ${serverTimeout(ms)}`
      const base = typeof config === "string" ? { text: config } : config
      const send = (query: object, args: unknown, cb: QueryCallback) => {
        // biome-ignore lint/suspicious/noExplicitAny: forwarded to pg's overloads as given
        const timed: any = { ...query, query_timeout: clientMs }
        const wrapped: QueryCallback = (err, result) => {
          if (err instanceof Error && err.message === "Query read timeout") this.end().catch(() => undefined)
          cb(err, result)
        }
        // biome-ignore lint/suspicious/noExplicitAny: as above
        return args === undefined ? super.query(timed, wrapped) : super.query(timed, args as any, wrapped)
      }
      const noParams = params === undefined || (Array.isArray(params) && params.length === 0)

      if (BEGIN.test(text) && noParams) {
        // One simple query, two results: the caller gets BEGIN's.
        const begin = { ...base, text: `${text.trim().replace(/;$/, "")}; ${setLocal(bounds.queryMs)}` }
        return send(begin, params, (err, result) => done(err, Array.isArray(result) ? result[0] : result))
      }
      if (this.getTransactionStatus() !== "I" || UNWRAPPED.test(text)) {
        if (!long) return send(base, params, done)
        // Inside a transaction: the wait's own bound, then the usual one again, one after another
        // (pg no longer wants queries queued on a busy client).
        send({ text: setLocal(bounds.lockWaitMs) }, undefined, (setErr) => {
          if (setErr) return done(setErr)
          send(base, params, (err, result) => {
            if (err) return done(err)
            send({ text: setLocal(bounds.queryMs) }, undefined, (resetErr) => (resetErr ? done(resetErr) : done(null, result)))
          })
        })
        return undefined
      }
      // Outside a transaction: a transaction of its own, so the bound can be set for it alone.
      send({ text: `begin; ${setLocal(clientMs)}` }, undefined, (beginErr) => {
        if (beginErr) return done(beginErr)
        send(base, params, (err, result) => {
          if (err) {
            send({ text: "rollback" }, undefined, () => done(err))
          } else {
            send({ text: "commit" }, undefined, (commitErr) => (commitErr ? done(commitErr) : done(null, result)))
          }
        })
      })
      return undefined
    }
  }

const hostOf = (url: string): string => {
  try {
    const u = new URL(url)
    return `${u.hostname}:${u.port || "5432"}`
  } catch {
    return "the configured server"
  }
}

/** A PostgreSQL client over a pool with `bounds`; fails at once if the server does not answer. */
export const serverLayer = (
  url: Redacted.Redacted<string>,
  bounds: Bounds = BOUNDS,
  poolSize: number = POOL_SIZE
): Layer.Layer<SqlClient.SqlClient | PoolSize, SqlError> =>
  PgClient.layerFromPool({
    applicationName: "climate-grade",
    acquire: Effect.acquireRelease(
      Effect.sync(
        () =>
          new Pg.Pool({
            connectionString: Redacted.value(url),
            Client: boundedClient(bounds),
            max: poolSize,
            idleTimeoutMillis: 60_000,
            connectionTimeoutMillis: bounds.acquireMs,
            // No statement_timeout here: pg would send it as a startup parameter, which PgBouncer
            // refuses (08P01); the bound is set per transaction (BoundedClient).
            keepAlive: true,
            keepAliveInitialDelayMillis: 10_000,
            application_name: "climate-grade"
          })
      ).pipe(
        // A pooled connection's error while idle is handled by the pool (it drops it); without
        // a listener Node would treat it as an uncaught error.
        Effect.tap((pool) => pool.on("error", () => undefined)),
        Effect.tap((pool) =>
          Effect.tryPromise({
            try: () => pool.query("select 1"),
            catch: (cause) =>
              new SqlError({ cause, message: `PostgreSQL at ${hostOf(Redacted.value(url))} did not answer: ${describeCause(cause)}` })
          })
        )
      ),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.timeoutOption("1 second"))
    )
  }).pipe(Layer.merge(Layer.succeed(PoolSize, poolSize)))

/** ECONNREFUSED, "timeout exceeded when trying to connect", 3D000 (no such database), … */
export const describeCause = (cause: unknown): string => ErrorCause.withCode(cause)

export const layer = (
  target: DatabaseTarget
): Layer.Layer<SqlClient.SqlClient, SqlError | DataDirLock.DataDirLocked | DataDir.DataDirRefused> => {
  switch (target._tag) {
    case "Embedded":
      // The lock is taken before PGlite opens the directory and released after it closed; under
      // it, the directory is made private and refused unless empty or a database (DataDir).
      return PgliteClient.layer({ dataDir: target.dataDir }).pipe(
        Layer.tap(() => DataDir.afterOpen(target.dataDir)),
        Layer.provide(DataDir.layer(target.dataDir)),
        Layer.provide(DataDirLock.layer(target.dataDir))
      )
    case "Memory":
      return PgliteClient.layer({})
    case "Server":
      return serverLayer(target.url, BOUNDS, target.poolSize ?? POOL_SIZE)
  }
}
