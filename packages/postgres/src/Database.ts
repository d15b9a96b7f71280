import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import Pg from "pg"
import * as DataDir from "./DataDir.js"
import * as DataDirLock from "./DataDirLock.js"
import * as PgliteClient from "./PgliteClient.js"

/** Where the data lives, decided from `DATABASE_URL` (README "Configuration"). */
export type DatabaseTarget =
  | { readonly _tag: "Embedded"; readonly dataDir: string }
  | { readonly _tag: "Memory" }
  | { readonly _tag: "Server"; readonly url: Redacted.Redacted<string> }

export const targetFromUrl = (url: string | undefined, dataDir: string): DatabaseTarget | undefined => {
  if (url === undefined || url.trim() === "") return { _tag: "Embedded", dataDir }
  if (url === "memory://") return { _tag: "Memory" }
  if (/^postgres(ql)?:\/\//.test(url)) return { _tag: "Server", url: Redacted.make(url) }
  return undefined
}

export const describe = (target: DatabaseTarget): string =>
  target._tag === "Embedded" ? `embedded PGlite in ${target.dataDir}` : target._tag === "Memory" ? "in-memory PGlite" : "PostgreSQL"

/** Connections to a PostgreSQL server, per process. */
export const POOL_SIZE = 10

/**
 * Bounds on every exchange with a PostgreSQL server, so a server that stops answering (a
 * black-holed network, a frozen host) fails requests with 503 within a few seconds instead of
 * holding them for the whole outage, and the pool heals by itself when it comes back:
 *
 * - `acquireMs`: waiting for a pooled connection, or opening a new one (TCP connect, startup,
 *   authentication), gives up after this (pg-pool's `connectionTimeoutMillis` covers both).
 * - `queryMs`: the client stops waiting for a statement's answer after this (`query_timeout`)
 *   and discards the connection, whose protocol state is unknown; the server is told the same
 *   bound (`statement_timeout`) so it drops work nobody waits for.
 * - `lockWaitMs`: statements that wait for an advisory lock another instance holds for a
 *   bounded piece of work (a claimed history fetch: archive timeout 30 s; migrations) wait up
 *   to this instead; they only start once the database has answered the transaction's BEGIN.
 * - TCP keepalive: an idle connection across a dead path is found and dropped by the kernel.
 *
 * With these, a request's database work on a silent server ends within acquire + query (the
 * first statement that meets the silence fails the request), under the 6 s the issue allows.
 */
export interface Bounds {
  readonly acquireMs: number
  readonly queryMs: number
  readonly lockWaitMs: number
}

export const BOUNDS: Bounds = { acquireMs: 2_000, queryMs: 3_000, lockWaitMs: 45_000 }

const LOCK_WAIT = /\bpg_advisory(_xact)?_lock\s*\(/

type QueryCallback = (err: Error | null | undefined, result?: unknown) => void

/**
 * node-postgres's client with the bounds applied per statement. `pg` leaves a connection whose
 * statement timed out in the pool with that statement still in flight; here it is ended at once
 * (pg-pool then removes it on release), so the next request gets a fresh connection — which is
 * what makes recovery need no restart.
 */
const boundedClient = (bounds: Bounds) =>
  class BoundedClient extends Pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; this forwards them all
    override query(config: any, values?: any, callback?: any): any {
      const wrap = (cb: QueryCallback): QueryCallback => (err, result) => {
        if (err instanceof Error && err.message === "Query read timeout") this.end().catch(() => undefined)
        cb(err, result)
      }
      const text = typeof config === "string" ? config : typeof config?.text === "string" ? config.text : undefined
      // Custom submittables (pg-cursor) pass through untouched.
      if (text === undefined || typeof config?.submit === "function") return super.query(config, values, callback)
      const long = LOCK_WAIT.test(text)
      if (long) {
        // Raise the server's bound for this transaction before the wait (SET LOCAL ends with it).
        super.query(`set local statement_timeout = ${bounds.lockWaitMs}`, () => undefined)
      }
      const query = {
        ...(typeof config === "string" ? { text: config } : config),
        query_timeout: long ? bounds.lockWaitMs : bounds.queryMs
      }
      if (typeof values === "function") return super.query(query, wrap(values))
      if (typeof callback === "function") return super.query(query, values, wrap(callback))
      return super.query(query, values)
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
  bounds: Bounds = BOUNDS
): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  PgClient.layerFromPool({
    applicationName: "climate-grade",
    acquire: Effect.acquireRelease(
      Effect.sync(
        () =>
          new Pg.Pool({
            connectionString: Redacted.value(url),
            Client: boundedClient(bounds),
            max: POOL_SIZE,
            idleTimeoutMillis: 60_000,
            connectionTimeoutMillis: bounds.acquireMs,
            statement_timeout: bounds.queryMs,
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
  })

/** ECONNREFUSED, "timeout exceeded when trying to connect", 3D000 (no such database), … */
export const describeCause = (cause: unknown): string => {
  const e = cause as { code?: unknown; message?: unknown } | null
  const code = typeof e?.code === "string" ? e.code : undefined
  const message = typeof e?.message === "string" ? e.message : String(cause)
  return code === undefined || message.includes(code) ? message : `${message} (${code})`
}

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
      return serverLayer(target.url)
  }
}
