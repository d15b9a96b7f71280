import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as PgliteClient from "./PgliteClient.js"

/** Where the data lives, decided from `DATABASE_URL` (CONTRACT.md §1). */
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

export const layer = (target: DatabaseTarget): Layer.Layer<SqlClient.SqlClient, SqlError> => {
  switch (target._tag) {
    case "Embedded":
      return PgliteClient.layer({ dataDir: target.dataDir })
    case "Memory":
      return PgliteClient.layer({})
    case "Server":
      // A request that waits longer than connectTimeout for a pooled connection fails (503)
      // rather than hanging.
      return PgClient.layer({ url: target.url, maxConnections: POOL_SIZE, idleTimeout: "60 seconds", connectTimeout: "10 seconds" })
  }
}
