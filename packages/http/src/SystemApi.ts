import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import * as Schema from "effect/Schema"
import { ServiceUnavailableSchema } from "./Errors.js"

export const HealthStatus = Schema.Struct({ status: Schema.Literal("ok") })

export class SystemGroup extends HttpApiGroup.make("system").add(
  HttpApiEndpoint.get("health", "/health").addSuccess(HealthStatus).addError(ServiceUnavailableSchema)
) {}
