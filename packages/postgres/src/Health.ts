import { SqlClient } from "@effect/sql"
import { DatabaseHealth } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const layer = Layer.effect(
  DatabaseHealth,
  Effect.map(SqlClient.SqlClient, (sql) =>
    DatabaseHealth.of({
      // The 2 s budget is the probe's own: `disconnect` lets the timeout answer without waiting
      // for the statement's interruption (a cancel sent to a silent server waits too).
      ping: sql`select 1`.pipe(
        Effect.disconnect,
        Effect.timeout("2 seconds"),
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false))
      )
    })
  )
)
