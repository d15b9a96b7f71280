import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { DatabaseHealth, failureKind, type HealthStatus } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { sqlState } from "./SqlErrors.js"

/**
 * `/health`'s probe reads a row of each core table (accounts, links, sessions, settings), not just
 * `select 1`: a table with a damaged page then fails here as it fails every sign-in, instead of
 * the probe calling the service healthy while logins fail.
 */
const PROBE = `select (select 1 from users limit 1) as users, (select 1 from oauth_accounts limit 1) as links,
  (select 1 from sessions limit 1) as sessions, (select 1 from settings limit 1) as settings`

export const layer = Layer.effect(
  DatabaseHealth,
  Effect.map(SqlClient.SqlClient, (sql) =>
    DatabaseHealth.of({
      // The 2 s budget is the probe's own: `disconnect` lets the timeout answer without waiting
      // for the statement's interruption (a cancel sent to a silent server waits too).
      check: sql.unsafe(PROBE).pipe(
        Effect.disconnect,
        Effect.timeout("2 seconds"),
        Effect.as<HealthStatus>({ _tag: "Ok" }),
        Effect.catchAll((error) =>
          Effect.succeed<HealthStatus>(
            error._tag === "SqlError" && failureKind(sqlState(error)) === "fault"
              ? { _tag: "Fault", reason: describeFault(error) }
              : { _tag: "Unavailable" }
          )
        )
      )
    })
  )
)

/** What the server said, with its SQLSTATE: `invalid page in block 0 of relation "base/5/16385" (XX001)`. */
const describeFault = (error: SqlError): string => {
  const cause = error.cause as { readonly message?: unknown } | null | undefined
  return typeof cause?.message === "string" ? `${cause.message} (${sqlState(error)})` : error.message
}
