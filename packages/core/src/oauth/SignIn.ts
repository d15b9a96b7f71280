/**
 * The sign-in and linking decisions (docs/api.md "Accounts and sign-in"), before
 * and after the provider's round trip. The HTTP adapter only translates: it reads the request
 * (cookies, the session, the query), and turns a decision into a redirect and cookies.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ProviderName, User, Voice } from "../accounts/Domain.js"
import { SecureRandom, Users } from "../accounts/Ports.js"
import * as AuthSecrets from "../AuthSecret.js"
import { AuthSecret } from "../AuthSecret.js"
import { base64Url } from "../Crypto.js"
import * as AccountResolution from "./AccountResolution.js"
import { Outcome } from "./Outcome.js"
import { ProviderSettings, registry } from "./Providers.js"
import * as SignedState from "./SignedState.js"

/** How long the browser-binding cookie lives: as long as a state is accepted. */
export const BINDING_MAX_AGE_SECONDS = SignedState.MAX_AGE_SECONDS

export type StartDecision =
  /** The provider is not configured: straight back to the account page. */
  | { readonly _tag: "Unavailable"; readonly outcome: Outcome }
  /**
   * To the provider's authorize endpoint with these query parameters, in this order, binding this
   * browser with a cookie holding `binding`. The endpoint's address is the adapter's configuration.
   */
  | {
      readonly _tag: "Authorize"
      readonly params: Readonly<Record<string, string>>
      readonly binding: string
    }

/**
 * A start: signed in, it is a link (the state names the user); signed out, a login. The state is
 * bound to a fresh random cookie, from which the PKCE verifier is
 * derived: the state is then good only in the browser that started it.
 */
export const start = (input: {
  readonly provider: ProviderName
  readonly user: Option.Option<User>
  /** The callback URL this deployment is reached at. */
  readonly redirectUri: string
  /** The language and units of the page the sign-in starts from: kept on the user it signs in. */
  readonly voice?: Partial<Voice> | undefined
}) =>
  Effect.gen(function* () {
    const config = (yield* ProviderSettings)[input.provider]
    if (!config.enabled) return { _tag: "Unavailable", outcome: Outcome.Unavailable() } satisfies StartDecision
    const random = yield* SecureRandom
    const keys = yield* AuthSecret
    const descriptor = registry[input.provider]
    const binding = base64Url(yield* random.bytes(32))
    const purpose = Option.isSome(input.user) ? "link" : "login"
    const state = yield* SignedState.mint({
      purpose,
      provider: input.provider,
      userId: Option.match(input.user, { onNone: () => "", onSome: (u) => u.id }),
      binding,
      voice: input.voice
    })
    const params: Record<string, string> = {
      client_id: config.clientId,
      redirect_uri: input.redirectUri,
      response_type: "code",
      scope: purpose === "link" ? descriptor.scopeLink : descriptor.scopeLogin,
      state,
      ...descriptor.extraAuthorizeParams,
      code_challenge: SignedState.pkceChallenge(SignedState.pkceVerifier(AuthSecrets.signing(keys), binding)),
      code_challenge_method: "S256"
    }
    return { _tag: "Authorize", params, binding } satisfies StartDecision
  })

export interface CallbackInput<R> {
  readonly provider: ProviderName
  readonly code: string | undefined
  readonly state: string | undefined
  /** The browser-binding cookie the callback carried, if any. */
  readonly binding: string | undefined
  readonly redirectUri: string
  /** The request's signed-in user; read only for a link state. */
  readonly sessionUser: Effect.Effect<Option.Option<User>, never, R>
}

/**
 * A callback, in this order: an unconfigured provider, then a missing code (the user
 * cancelled), then the state, tried as a link first and then as a login; neither is a bad state.
 */
export const callback = <R>(input: CallbackInput<R>) =>
  Effect.gen(function* () {
    if (!(yield* ProviderSettings)[input.provider].enabled) return Outcome.Unavailable()
    const code = input.code ?? ""
    if (code === "") return Outcome.Cancelled()
    const binding = Option.fromNullable(input.binding).pipe(Option.filter((b) => b !== ""))
    const state = input.state ?? ""
    // Only a bound state's start sent a PKCE challenge (a state from before browser binding had
    // none), and its binding cookie was checked against the state, so the verifier is its.
    const exchange = (verified: SignedState.Verified) => ({
      provider: input.provider,
      code,
      redirectUri: input.redirectUri,
      codeVerifier:
        verified.bound && Option.isSome(binding) ? Option.some(SignedState.pkceVerifier(verified.secret, binding.value)) : Option.none()
    })
    const link = yield* SignedState.verifyClaims(state, { purpose: "link", provider: input.provider, binding })
    if (Option.isSome(link)) {
      const sessionUser = yield* input.sessionUser
      const outcome = yield* AccountResolution.linkFinish({ ...exchange(link.value), stateUserId: link.value.userId, sessionUser })
      if (outcome._tag === "Linked") yield* keepVoice(link.value.userId, link.value.voice)
      return outcome
    }
    const login = yield* SignedState.verifyClaims(state, { purpose: "login", provider: input.provider, binding })
    if (Option.isSome(login)) {
      const outcome = yield* AccountResolution.loginFinish(exchange(login.value))
      if (signsIn(outcome)) yield* keepVoice(outcome.user.id, login.value.voice)
      return outcome
    }
    return Outcome.Error({ reason: "bad state" })
  })

/** The language and units of the page a sign-in started from, kept on its user for the direct messages. */
const keepVoice = (userId: string, voice: Voice) =>
  voice.language === null && voice.units === null
    ? Effect.void
    : Effect.flatMap(Users, (users) => users.setVoice(userId as User["id"], voice))

/** Whether an outcome signs the browser in (it then gets a session cookie). */
export const signsIn = (outcome: Outcome): outcome is Extract<Outcome, { readonly session: unknown }> =>
  outcome._tag === "Created" || outcome._tag === "SignedIn"
