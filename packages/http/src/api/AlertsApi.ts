/** The alerts routes (docs/api.md "Alerts"), for a signed-in, active user. */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Cell, Kinds, Payloads, RECENT_ALERTS, WATCH_LIMIT } from "@climate-grade/core"
import * as Schema from "effect/Schema"
import { Authentication } from "./Authentication.js"
import {
  BadGatewaySchema,
  ConflictSchema,
  DatabaseFaultSchema,
  GatewayTimeoutSchema,
  NotFoundSchema,
  ServiceUnavailableSchema,
  StateChangeRefusalsSchema,
  TooManyRequestsSchema
} from "./Errors.js"

export const Kind = Schema.Literal(...Kinds.kinds).annotations({
  description:
    "heat: tmax much-above or record-high; cold: tmin much-below or record-low; wet: precip much-above or record-high " +
    "(one alert per day and kind); heatwave, coldspell: a severe or extreme heat wave or cold spell of the spells view's " +
    "`now` starting within the watched days (one alert per spell, however the forecast moves it)"
})

export const Watch = Schema.Struct({
  id: Schema.String.annotations({ description: "The watch's identifier, kept when its kinds are replaced" }),
  lat: Schema.Number.annotations({ description: "The latitude as sent" }),
  lon: Schema.Number.annotations({ description: "The longitude as sent" }),
  cell: Schema.String.annotations({ description: 'The 0.25° cell key, "{lat},{lon}"' }),
  label: Schema.String.annotations({ description: "The cell's place label, or its coordinates while none is known" }),
  kinds: Schema.Array(Kind).annotations({ description: "What is watched for; at least one" }),
  created_at: Schema.String.annotations({ description: "When the watch was made, ISO 8601" })
}).annotations({ identifier: "Watch" })

export const WatchList = Schema.Struct({
  watches: Schema.Array(Watch).annotations({ description: `The user's watches, at most ${WATCH_LIMIT}` })
}).annotations({ identifier: "WatchList" })

/**
 * The body is checked by hand so each 400 says what is wrong in words; this schema documents it.
 * (`Schema.Unknown` lets any JSON through to that check; the annotation is what OpenAPI shows.)
 */
export const WatchRequest = Schema.Unknown.annotations({
  identifier: "WatchRequest",
  jsonSchema: {
    type: "object",
    required: ["lat", "lon", "kinds"],
    properties: {
      lat: { type: "number", minimum: -Cell.LIMIT.lat, maximum: Cell.LIMIT.lat },
      lon: { type: "number", minimum: -Cell.LIMIT.lon, maximum: Cell.LIMIT.lon },
      kinds: { type: "array", minItems: 1, items: { type: "string", enum: [...Kinds.kinds] } }
    }
  }
})

export const SentAlert = Schema.Struct({
  id: Schema.String.annotations({ description: "The alert's identifier" }),
  watch_id: Schema.String.annotations({ description: "The watch that made it" }),
  lat: Schema.Number.annotations({ description: "The watch's latitude" }),
  lon: Schema.Number.annotations({ description: "The watch's longitude" }),
  label: Schema.String.annotations({ description: "The place's label when the alert was made" }),
  date: Schema.String.annotations({
    description: "The forecast day that qualified, YYYY-MM-DD (the cell's local date); a spell's first day"
  }),
  kind: Kind,
  variable: Schema.NullOr(Schema.Literal("tmax", "tmin", "precip")).annotations({
    description: "The variable the kind is about; null for a spell's alert"
  }),
  grade: Schema.propertySignature(Schema.NullOr(Payloads.Grade)).annotations({
    description: "The day's grade for that variable when the alert was made; null for a spell's alert"
  }),
  spell: Schema.optional(
    Schema.Struct({
      start: Schema.String.annotations({ description: "Its first day as last forecast, YYYY-MM-DD" }),
      end: Schema.String.annotations({ description: "Its last day as last forecast, YYYY-MM-DD" }),
      severity: Schema.Literal("low", "severe", "extreme").annotations({ description: "Its severity when the alert was made" })
    })
  ).annotations({ description: "A spell's alert only (heatwave, coldspell)" }),
  content: Schema.String.annotations({ description: "The direct message's text" }),
  status: Schema.Literal("pending", "sent", "failed", "dropped", "muted", "off").annotations({
    description:
      "pending/sent/failed: the message's state; dropped: muted or unlinked before it was sent; muted: not queued (chat unlinked or direct messages off); off: delivery was not configured"
  }),
  created_at: Schema.String.annotations({ description: "When the alert was made, ISO 8601" }),
  sent_at: Schema.NullOr(Schema.String).annotations({ description: "When the message was accepted by the provider, ISO 8601; null until then" })
}).annotations({ identifier: "SentAlert" })

export const AlertsConfig = Schema.Struct({
  delivery_configured: Schema.Boolean.annotations({ description: "CHAT_BOT_TOKEN and CHAT_API_URL are both set" }),
  days_ahead: Schema.Int.annotations({ description: "ALERT_DAYS_AHEAD: the watched days run from today to today + days_ahead" }),
  watch_limit: Schema.Int.annotations({ description: "Watches one user may have" }),
  kinds: Schema.Array(Kind).annotations({ description: "Every kind a watch may name" })
}).annotations({ identifier: "AlertsConfig" })

export class AlertsGroup extends HttpApiGroup.make("alerts")
  .add(
    HttpApiEndpoint.get("config", "/alerts/config")
      .addSuccess(AlertsConfig)
      .annotate(OpenApi.Description, "Whether direct messages are delivered, and the watch rules.")
  )
  .add(HttpApiEndpoint.get("list", "/alerts/watches").addSuccess(WatchList).annotate(OpenApi.Description, "The user's watches."))
  .add(
    HttpApiEndpoint.post("watch", "/alerts/watches")
      .setPayload(WatchRequest)
      .addSuccess(Watch.annotations({ description: "A new watch" }), { status: 201 })
      .addSuccess(Watch.annotations({ description: "The cell was watched already: its kinds replaced, its id kept" }), {
        status: 200
      })
      .addError(StateChangeRefusalsSchema)
      .addError(ConflictSchema)
      // A cell not held yet is loaded first, as on the data routes: a cell without history (404); the
      // client's new-cell slots or its (or the user's) share of the day's budget taken (429, Retry-After);
      // the weather source rate-limited or the day's budget spent (503, Retry-After), failing (502), silent (504).
      .addError(NotFoundSchema)
      .addError(TooManyRequestsSchema)
      .addError(BadGatewaySchema)
      .addError(GatewayTimeoutSchema)
      .annotate(
        OpenApi.Description,
        `Watches the cell of (lat, lon) for the kinds given; at most ${WATCH_LIMIT} watches per user (409). A cell whose ` +
          "history is not held yet is loaded first, as a new place on the data routes, with their refusals."
      )
  )
  .add(
    HttpApiEndpoint.del("unwatch", "/alerts/watches/:id")
      .setPath(Schema.Struct({ id: Schema.String }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundSchema)
      .addError(StateChangeRefusalsSchema)
      .annotate(OpenApi.Description, "Removes a watch; idempotent; 404 for another user's watch.")
  )
  .add(
    HttpApiEndpoint.get("sent", "/alerts/sent")
      .addSuccess(
        Schema.Struct({
          alerts: Schema.Array(SentAlert).annotations({ description: `The ${RECENT_ALERTS} latest, newest first` })
        }).annotations({ identifier: "SentAlerts" })
      )
      .annotate(OpenApi.Description, `The user's ${RECENT_ALERTS} latest alerts, newest first, with what became of each message.`)
  )
  // The session and the watches live in the database: unreachable there is 503 with Retry-After, a refusal 500 (AppMiddleware).
  .addError(ServiceUnavailableSchema)
  .addError(DatabaseFaultSchema)
  .middleware(Authentication) {}
