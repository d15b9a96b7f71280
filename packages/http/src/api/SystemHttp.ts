import { HttpApiBuilder } from "@effect/platform"
import { AlertSettings, DatabaseHealth, Outbox } from "@climate-grade/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Api } from "./Api.js"
import { Draining } from "../edge/Drain.js"
import { ServiceUnavailable } from "./Errors.js"

export const layer = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function* () {
    const db = yield* DatabaseHealth
    const drain = yield* Draining
    // The alert outbox's backlog, shown when messages are being delivered.
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
    // A damaged table is said once per reason, not on every probe.
    let lastFault: string | undefined
    const shuttingDown = new ServiceUnavailable({ detail: "This instance is shutting down; another one will answer.", code: "shutting-down" })
    return handlers.handle("health", () =>
      // Said before the database is asked: a balancer probing here should stop sending at once.
      drain.isDraining() ? Effect.fail(shuttingDown) : Effect.flatMap(db.check, (status) => {
        if (status._tag === "Ok") {
          lastFault = undefined
          return Effect.map(backlog, (extra) => ({ status: "ok" as const, ...extra }))
        }
        if (status._tag === "Unavailable") return Effect.fail(new ServiceUnavailable({ detail: "The database does not answer.", code: "database-unavailable" }))
        const log = status.reason === lastFault ? Effect.void : Effect.logError(`health: a core table cannot be read: ${status.reason}`)
        lastFault = status.reason
        return Effect.zipRight(
          log,
          Effect.fail(new ServiceUnavailable({
            detail: "The database answers, but a core table cannot be read; see the server's log.",
            code: "database-unavailable"
          }))
        )
      })
    )
  })
)
