import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import * as Schema from "effect/Schema"
import { ServiceUnavailableSchema } from "./Errors.js"

export const HealthStatus = Schema.Struct({
  status: Schema.Literal("ok").annotations({ description: "The database answered" }),
  outbox: Schema.optional(
    Schema.Struct({
      pending: Schema.Int.annotations({ description: "Messages waiting to be sent (retries included)" }),
      failed: Schema.Int.annotations({ description: "Messages given up after 24 hours of retries" }),
      oldest_pending_seconds: Schema.NullOr(Schema.Int).annotations({
        description: "How long the oldest waiting message has waited; null when none waits"
      })
    }).annotations({ description: "Alert messages waiting to be sent and given up; present when delivery is configured" })
  )
})

export class SystemGroup extends HttpApiGroup.make("system").add(
  HttpApiEndpoint.get("health", "/health").addSuccess(HealthStatus).addError(ServiceUnavailableSchema)
) {}
