import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import * as Schema from "effect/Schema"
import { Authentication } from "./Authentication.js"
import { DatabaseFaultSchema, ServiceUnavailableSchema, StateChangeRefusalsSchema, TooManyRequestsSchema } from "./Errors.js"

export const LoginRequest = Schema.Struct({
  email: Schema.String.annotations({ description: "The account's e-mail address, compared case-insensitively" }),
  password: Schema.String
})

const d = (description: string) => ({ description })

export const Me = Schema.Struct({
  id: Schema.String.annotations(d("The user's identifier")),
  email: Schema.String.annotations(d("The account's e-mail address (trimmed and lower-cased when made by a provider)")),
  is_active: Schema.Boolean.annotations(d("Always true here: an inactive user's session is no session (401)")),
  is_superuser: Schema.Boolean.annotations(d("False for accounts created through a provider")),
  is_verified: Schema.Boolean.annotations(d("True for accounts created through a provider")),
  oauth_only: Schema.Boolean.annotations(
    d("Created through a provider, so without a password its owner has ever seen: its last link cannot be removed")
  ),
  chat_id: Schema.NullOr(Schema.String).annotations(
    d("Where direct messages go: the chat subject while chat is linked, else null")
  ),
  chat_dm: Schema.Boolean.annotations(d("Direct messages on or off: true after linking chat, false after unlinking; POST /chat/dm sets it")),
  links: Schema.Array(
    Schema.Struct({
      provider: Schema.String.annotations(d("chat or idp")),
      email: Schema.NullOr(Schema.String).annotations(d("The provider's address at link time; null if it gave none"))
    })
  ).annotations(d("The provider identities linked to this user, one per provider at most"))
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
        "Signs in a password account; the session comes back as the `session` cookie, and the browser is remembered " +
          "for this account (`known_device`). Failed attempts are counted per account and client address, and per " +
          "client address: past a limit, 429 with Retry-After. The account as a whole is only slowed, and a remembered " +
          "browser is counted on its own."
      )
  )
  .add(HttpApiEndpoint.post("logout", "/auth/logout").addSuccess(HttpApiSchema.NoContent).addError(StateChangeRefusalsSchema))
  // Accounts and sessions live in the database: unreachable there is 503 with Retry-After, a refusal 500 (AppMiddleware).
  .addError(ServiceUnavailableSchema)
  .addError(DatabaseFaultSchema) {}

export class UsersGroup extends HttpApiGroup.make("users")
  .add(HttpApiEndpoint.get("me", "/users/me").addSuccess(Me))
  // The session is looked up in the database: unreachable there is 503 with Retry-After, a refusal 500 (AppMiddleware).
  .addError(ServiceUnavailableSchema)
  .addError(DatabaseFaultSchema)
  .middleware(Authentication) {}
