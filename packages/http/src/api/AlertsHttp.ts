import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  AlertLog,
  AlertSettings,
  Cell,
  CivilDate,
  Kinds,
  RECENT_ALERTS,
  type SentAlert,
  type Watch,
  WatchRequest,
  Watches,
  Watching
} from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { Api } from "./Api.js"
import { CurrentUser } from "./Authentication.js"
import { BadRequest, Conflict, NotFound } from "./Errors.js"
import { HttpSettings } from "./HttpSettings.js"
import { clientAddress } from "../protocol/RequestInfo.js"
import * as UpstreamErrors from "./UpstreamErrors.js"

const watchJson = (watch: Watch) => ({
  id: watch.id,
  lat: watch.lat,
  lon: watch.lon,
  cell: watch.cell.key,
  label: Watching.placeName(watch.label, watch.cell),
  kinds: [...watch.kinds],
  created_at: watch.createdAt.toISOString()
})

const sentJson = (alert: SentAlert) => ({
  id: alert.id,
  watch_id: alert.watchId,
  lat: alert.lat,
  lon: alert.lon,
  label: Watching.placeName(alert.label, Cell.fromCoordinates(alert.lat, alert.lon)),
  date: CivilDate.format(alert.date),
  kind: alert.kind,
  variable: alert.variable,
  grade: alert.grade,
  ...(alert.spell === undefined
    ? {}
    : {
        spell: {
          start: CivilDate.format(alert.spell.start),
          end: CivilDate.format(alert.spell.end),
          severity: alert.spell.severity
        }
      }),
  content: alert.content,
  status: alert.status,
  created_at: alert.createdAt.toISOString(),
  sent_at: alert.sentAt?.toISOString() ?? null
})

export const layer = HttpApiBuilder.group(Api, "alerts", (handlers) =>
  Effect.gen(function* () {
    const watches = yield* Watches
    const log = yield* AlertLog
    const settings = yield* AlertSettings
    const { trustedProxyHops } = yield* HttpSettings
    return handlers
      .handle("config", () =>
        Effect.succeed({
          delivery_configured: settings.deliveryConfigured,
          days_ahead: settings.daysAhead,
          watch_limit: settings.watchLimit,
          kinds: [...Kinds.kinds]
        })
      )
      .handle("list", () =>
        Effect.gen(function* () {
          const user = yield* CurrentUser
          return { watches: (yield* watches.list(user.id)).map(watchJson) }
        })
      )
      .handle("watch", ({ payload }) =>
        Effect.gen(function* () {
          const user = yield* CurrentUser
          const request = yield* Either.match(WatchRequest.parse(payload), {
            onLeft: (detail) => Effect.fail(new BadRequest({ detail, code: "invalid-body" })),
            onRight: Effect.succeed
          })
          const address = clientAddress(yield* HttpServerRequest.HttpServerRequest, trustedProxyHops)
          // A new cell is loaded first, as on the data routes: their refusals and failures, the same statuses.
          const { created, watch } = yield* Watching.watch(user.id, request, address).pipe(
            Effect.catchTags({
              WatchLimitReached: ({ limit }) => Effect.fail(new Conflict({ detail: Watching.limitDetail(limit), code: "watch-limit-reached" })),
              TooManyColdCells: UpstreamErrors.tooManyColdCells,
              NoHistory: UpstreamErrors.noHistory,
              RateLimited: UpstreamErrors.fail,
              BudgetSpent: UpstreamErrors.fail,
              ShareSpent: UpstreamErrors.fail,
              UpstreamTimeout: UpstreamErrors.fail,
              UpstreamFailure: UpstreamErrors.fail
            })
          )
          return HttpServerResponse.unsafeJson(watchJson(watch), { status: created ? 201 : 200 })
        })
      )
      .handle("unwatch", ({ path }) =>
        Effect.gen(function* () {
          const user = yield* CurrentUser
          const outcome = yield* watches.remove(user.id, path.id)
          if (outcome === "foreign") return yield* new NotFound({ detail: "No such watch.", code: "not-found" })
          return HttpServerResponse.empty({ status: 204 })
        })
      )
      .handle("sent", () =>
        Effect.gen(function* () {
          const user = yield* CurrentUser
          return { alerts: (yield* log.recent(user.id, RECENT_ALERTS)).map(sentJson) }
        })
      )
  })
)
