import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import * as Schema from "effect/Schema"
import { ServiceUnavailableSchema } from "./Errors.js"

export const HealthStatus = Schema.Struct({
  status: Schema.Literal("ok"),
  outbox: Schema.optional(
    Schema.Struct({
      pending: Schema.Int,
      failed: Schema.Int,
      oldest_pending_seconds: Schema.NullOr(Schema.Int)
    }).annotations({ description: "Alert messages waiting to be sent and given up; present when delivery is configured" })
  )
})

export class SystemGroup extends HttpApiGroup.make("system").add(
  HttpApiEndpoint.get("health", "/health").addSuccess(HealthStatus).addError(ServiceUnavailableSchema)
) {}
