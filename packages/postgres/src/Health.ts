import { SqlClient } from "@effect/sql"
import { DatabaseHealth } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export const layer = Layer.effect(
  DatabaseHealth,
  Effect.map(SqlClient.SqlClient, (sql) =>
    DatabaseHealth.of({
      ping: sql`select 1`.pipe(
        Effect.timeout("2 seconds"),
        Effect.as(true),
        Effect.catchAll(() => Effect.succeed(false))
      )
    })
  )
)
