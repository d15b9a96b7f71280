import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ProviderName } from "../accounts/Domain.js"

/** The token or profile fetch failed: any status of 300 or more, no access token, a bad body, a network fault. */
export class ExchangeFailed extends Schema.TaggedError<ExchangeFailed>()("ExchangeFailed", { reason: Schema.String }) {}

export interface ExchangeInput {
  readonly provider: ProviderName
  readonly code: string
  /** The same value as in the authorize step. */
  readonly redirectUri: string
  /** PKCE's verifier, when the authorize step sent a challenge. */
  readonly codeVerifier: Option.Option<string>
}

/** The authorization-code exchange: code → access token → the provider's profile (a JSON object). */
export class ProviderExchange extends Context.Tag("@climate-grade/core/ProviderExchange")<
  ProviderExchange,
  { readonly exchange: (input: ExchangeInput) => Effect.Effect<Readonly<Record<string, unknown>>, ExchangeFailed> }
>() {}
