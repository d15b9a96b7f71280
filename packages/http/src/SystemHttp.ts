import { HttpApiBuilder } from "@effect/platform"
import { AlertSettings, DatabaseHealth, Outbox } from "@climate-grade/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Api } from "./Api.js"
import { ServiceUnavailable } from "./Errors.js"

export const layer = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function* () {
    const db = yield* DatabaseHealth
    // The alert outbox's backlog, shown when messages are being delivered (CONTRACT.md §9).
    const settings = yield* Effect.serviceOption(AlertSettings)
    const outbox = Option.filter(yield* Effect.serviceOption(Outbox), () =>
      Option.exists(settings, (s) => s.deliveryConfigured)
    )
    const backlog = Option.match(outbox, {
      onNone: () => Effect.succeed({}),
      onSome: (outbox) =>
        Effect.gen(function* () {
          const stats = yield* outbox.stats
          const now = yield* Clock.currentTimeMillis
          return {
            outbox: {
              pending: stats.pending,
              failed: stats.failed,
              oldest_pending_seconds: stats.oldestPending === null ? null : Math.max(0, Math.floor((now - stats.oldestPending) / 1000))
            }
          }
        })
    })
    return handlers.handle("health", () =>
      Effect.flatMap(db.ping, (up) =>
        up
          ? Effect.map(backlog, (extra) => ({ status: "ok" as const, ...extra }))
          : Effect.fail(new ServiceUnavailable({ detail: "The database does not answer." }))
      )
    )
  })
)
