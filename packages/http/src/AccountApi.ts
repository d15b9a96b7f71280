import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import * as Schema from "effect/Schema"
import { Authentication } from "./Authentication.js"
import { ServiceUnavailableSchema, StateChangeRefusalsSchema, TooManyRequestsSchema } from "./Errors.js"

export const LoginRequest = Schema.Struct({
  email: Schema.String,
  password: Schema.String
})

export const Me = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  is_active: Schema.Boolean,
  is_superuser: Schema.Boolean,
  is_verified: Schema.Boolean,
  oauth_only: Schema.Boolean,
  chat_id: Schema.NullOr(Schema.String),
  chat_dm: Schema.Boolean,
  links: Schema.Array(Schema.Struct({ provider: Schema.String, email: Schema.NullOr(Schema.String) }))
}).annotations({ identifier: "Me" })

export class AuthGroup extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("login", "/auth/login")
      .setPayload(LoginRequest)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(StateChangeRefusalsSchema)
      .addError(TooManyRequestsSchema)
      .annotate(
        OpenApi.Description,
        "Signs in a password account; the session comes back as the `session` cookie. Failed attempts are " +
          "counted per account and per client address: past the limit, 429 with Retry-After."
      )
  )
  .add(HttpApiEndpoint.post("logout", "/auth/logout").addSuccess(HttpApiSchema.NoContent).addError(StateChangeRefusalsSchema))
  // Accounts and sessions live in the database: a fault there is 503 with Retry-After (AppMiddleware).
  .addError(ServiceUnavailableSchema) {}

export class UsersGroup extends HttpApiGroup.make("users")
  .add(HttpApiEndpoint.get("me", "/users/me").addSuccess(Me))
  // The session is looked up in the database: a fault there is 503 with Retry-After (AppMiddleware).
  .addError(ServiceUnavailableSchema)
  .middleware(Authentication) {}
