import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Languages } from "@climate-grade/core"
import * as Schema from "effect/Schema"
import { Leaving } from "@climate-grade/core"
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
  lang: Schema.NullOr(Schema.Literal(...Languages.LANGUAGES)).annotations(
    d("The language direct messages are written in: the page's the user last signed in from (null: none known, English)")
  ),
  units: Schema.NullOr(Schema.Literal("metric", "imperial")).annotations(
    d("The units direct messages are written in: the site's units switch sets them (null: none chosen, metric)")
  ),
  links: Schema.Array(
    Schema.Struct({
      provider: Schema.String.annotations(d("chat or idp")),
      email: Schema.NullOr(Schema.String).annotations(d("The provider's address at link time; null if it gave none"))
    })
  ).annotations(d("The provider identities linked to this user, one per provider at most"))
}).annotations({ identifier: "Me" })

/**
 * The body of `PATCH /users/me`, checked by hand so each 400 says what is wrong in words; this schema
 * documents it (`Schema.Unknown` lets any JSON through to that check).
 */
export const MeUpdate = Schema.Unknown.annotations({
  identifier: "MeUpdate",
  description: "At least one of the two; a member left out keeps what is stored",
  jsonSchema: {
    type: "object",
    minProperties: 1,
    additionalProperties: false,
    properties: {
      lang: { type: "string", enum: [...Languages.LANGUAGES], description: "The language of direct messages" },
      units: { type: "string", enum: ["metric", "imperial"], description: "The units of direct messages" }
    }
  }
})

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
  .add(
    HttpApiEndpoint.patch("updateMe", "/users/me")
      .setPayload(MeUpdate)
      .addSuccess(Me)
      .addError(StateChangeRefusalsSchema)
      .annotate(
        OpenApi.Description,
        "Sets how the signed-in user's direct messages speak: `units` (the site's units switch sends it) and `lang` " +
          "(a sign-in sets it to the page's language too). Answers the user as GET /users/me does."
      )
  )
  .add(
    HttpApiEndpoint.get("exportMe", "/users/me/export")
      .addSuccess(Leaving.AccountExport)
      .annotate(
        OpenApi.Description,
        "Everything held about the signed-in user, as a JSON file to keep (`Content-Disposition: attachment`, " +
          "`Cache-Control: no-store`): the account, links, sessions, watches, alerts and their messages, the weather " +
          "units spent under it, and the audit records about it. No password hash, token hash or secret."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteMe", "/users/me")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(StateChangeRefusalsSchema)
      .annotate(
        OpenApi.Description,
        "Deletes the signed-in user's account and everything of it: provider links, every session (this one too: " +
          "the cookie is cleared), watches, alerts and unsent messages, and the sign-in counter kept under its address. " +
          "Only the audit log keeps a record that the account (by its id, never its e-mail) was created and deleted. " +
          "A browser's request must come from this site (Origin / Sec-Fetch-Site), as for every state-changing route."
      )
  )
  // The session is looked up in the database: unreachable there is 503 with Retry-After, a refusal 500 (AppMiddleware).
  .addError(ServiceUnavailableSchema)
  .addError(DatabaseFaultSchema)
  .middleware(Authentication) {}
