import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import * as Schema from "effect/Schema"
import {
  ConflictSchema,
  DatabaseFaultSchema,
  NotFoundSchema,
  ServiceUnavailableSchema,
  StateChangeRefusalsSchema,
  UnauthorizedSchema
} from "./Errors.js"

const ProviderPath = Schema.Struct({ provider: Schema.String.annotations({ description: "chat or idp" }) })
/** A query value; when a parameter is repeated, its first value counts (a callback is always a redirect, never a 400). */
const FirstValue = Schema.transform(Schema.Union(Schema.String, Schema.Array(Schema.String)), Schema.String, {
  strict: true,
  decode: (value) => (typeof value === "string" ? value : (value[0] ?? "")),
  encode: (value) => value
})
const CallbackQuery = Schema.Struct({ code: Schema.optional(FirstValue), state: Schema.optional(FirstValue) })
const Redirect = HttpApiSchema.Empty(303).annotations({ description: "A redirect (Location header)" })
/**
 * Every route but `config` reads the database (the request's session, the accounts): unreachable
 * there is 503 with Retry-After, a refusal 500 (AppMiddleware).
 */
const DatabaseFailures = Schema.Union(ServiceUnavailableSchema, DatabaseFaultSchema)
/** A signed-in user's change to a link (or its messages): what each such route may refuse. */
const LinkChangeFailures = Schema.Union(UnauthorizedSchema, ConflictSchema, StateChangeRefusalsSchema, DatabaseFailures)

/** A redirect by `{provider}` (404 for an unknown one), reading the database. */
const providerRedirect = <const Name extends string>(name: Name, path: `/oauth/:provider/${string}`) =>
  HttpApiEndpoint.get(name, path).setPath(ProviderPath).addSuccess(Redirect).addError(NotFoundSchema).addError(DatabaseFailures)

export const OAuthConfig = Schema.Struct({
  providers: Schema.Array(
    Schema.Struct({
      name: Schema.String.annotations({ description: "chat or idp: the {provider} of the routes" }),
      label: Schema.String.annotations({ description: "The provider's display name" }),
      enabled: Schema.Boolean.annotations({ description: "Whether the provider is configured (its client id, secret and URLs set)" })
    })
  ).annotations({ description: "Both providers, enabled or not" })
}).annotations({ identifier: "OAuthConfig" })

export const ChatDm = Schema.Struct({
  chat_dm: Schema.Boolean.annotations({ description: "Direct messages on or off, as now set" })
}).annotations({ identifier: "ChatDm" })

export class OAuthGroup extends HttpApiGroup.make("oauth")
  .add(HttpApiEndpoint.get("config", "/oauth/config").addSuccess(OAuthConfig))
  .add(
    providerRedirect("linkStart", "/oauth/:provider/link/start")
      .addError(UnauthorizedSchema)
      .annotate(OpenApi.Description, "Starts linking a provider identity to the signed-in user.")
  )
  .add(
    providerRedirect("loginStart", "/oauth/:provider/login/start").annotate(
      OpenApi.Description,
      "Starts signing in with a provider (a link when already signed in)."
    )
  )
  .add(providerRedirect("callback", "/oauth/:provider/callback").setUrlParams(CallbackQuery))
  .add(
    HttpApiEndpoint.post("unlink", "/oauth/:provider/unlink")
      .setPath(ProviderPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFoundSchema)
      .addError(LinkChangeFailures)
  )
  .add(
    HttpApiEndpoint.get("chatLinkStart", "/chat/link/start")
      .addSuccess(Redirect)
      .addError(UnauthorizedSchema)
      .addError(DatabaseFailures)
  )
  .add(HttpApiEndpoint.get("chatLoginStart", "/chat/login/start").addSuccess(Redirect).addError(DatabaseFailures))
  .add(
    HttpApiEndpoint.get("chatCallback", "/chat/link/callback")
      .setUrlParams(CallbackQuery)
      .addSuccess(Redirect)
      .addError(DatabaseFailures)
      .annotate(OpenApi.Description, "The chat provider's registered callback address (kept permanently).")
  )
  .add(
    HttpApiEndpoint.post("chatUnlink", "/chat/unlink")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(LinkChangeFailures)
  )
  .add(
    HttpApiEndpoint.post("chatDm", "/chat/dm")
      .addSuccess(ChatDm)
      .addError(LinkChangeFailures)
      .annotate(
        OpenApi.Description,
        'Direct messages on or off: body {"enabled": boolean}, or no body to toggle. 409 when chat is not linked.'
      )
  ) {}
