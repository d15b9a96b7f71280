import { HttpApiBuilder } from "@effect/platform"
import { DatabaseHealth } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import { Api } from "./Api.js"
import { ServiceUnavailable } from "./Errors.js"

export const layer = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.map(DatabaseHealth, (db) =>
    handlers.handle("health", () =>
      Effect.flatMap(db.ping, (up) =>
        up
          ? Effect.succeed({ status: "ok" as const })
          : Effect.fail(new ServiceUnavailable({ detail: "The database does not answer." }))
      )
    )
  )
)
