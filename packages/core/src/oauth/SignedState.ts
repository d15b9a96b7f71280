/**
 * The signed state of the authorize round trip: `<payload>.<mac>`, the
 * payload URL-safe base64 of `{u, t, p, pr}` (plus `n`, the browser binding, and `l`/`un`, the
 * language and units of the page the sign-in started from, kept on the user), the mac
 * the first 32 hex characters of HMAC-SHA256(payload, auth secret). Verification returns the user
 * id (`""` for a login) or None: callers compare with None, never test for falsiness.
 *
 * States are minted with the current secret and verified under any accepted one (AuthSecret), so
 * a sign-in started before a rotation finishes after it; its PKCE verifier is then derived from
 * the secret that verified its state, the one its start used.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Encoding from "effect/Encoding"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { ProviderName, Voice } from "../accounts/Domain.js"
import * as AuthSecrets from "../AuthSecret.js"
import { AuthSecret } from "../AuthSecret.js"
import { base64Url, constantTimeEqual, contentToken, hmacSha256, hmacSha256Hex, sha256 } from "../Crypto.js"
import { isLanguage } from "../i18n/Languages.js"

export type Purpose = "link" | "login"

/** A state older than this is rejected. */
export const MAX_AGE_SECONDS = 600

const MAC_LENGTH = 32

/** The binding of a state to the browser that started the flow: the first 32 hex of SHA-256 of the cookie. */
export const bindingHash = (cookie: string): string => contentToken(cookie)

const mac = (secret: string, payload: string) => hmacSha256Hex(secret, payload).slice(0, MAC_LENGTH)

export interface MintInput {
  readonly purpose: Purpose
  readonly provider: ProviderName
  /** The user's id for a link; empty for a login. */
  readonly userId: string
  /** The browser-binding cookie's value. */
  readonly binding: string
  /** The language and units of the page the sign-in started from, when known. */
  readonly voice?: Partial<Voice> | undefined
}

export const mint = (input: MintInput) =>
  Effect.gen(function* () {
    const keys = yield* AuthSecret
    const now = yield* Clock.currentTimeMillis
    const payload = base64Url(
      JSON.stringify({
        u: input.userId,
        t: Math.floor(now / 1000),
        p: input.purpose,
        pr: input.provider,
        n: bindingHash(input.binding),
        ...(input.voice?.language == null ? {} : { l: input.voice.language }),
        ...(input.voice?.units == null ? {} : { un: input.voice.units })
      })
    )
    return `${payload}.${mac(Redacted.value(AuthSecrets.signing(keys)), payload)}`
  })

export interface Expectation {
  readonly purpose: Purpose
  readonly provider: ProviderName
  /** The binding cookie the callback request carried, if any. */
  readonly binding: Option.Option<string>
}

const decodePayload = (payload: string): Option.Option<Record<string, unknown>> =>
  Either.match(Encoding.decodeBase64UrlString(payload), {
    onLeft: () => Option.none(),
    onRight: (text) => {
      try {
        const value: unknown = JSON.parse(text)
        return typeof value === "object" && value !== null && !Array.isArray(value)
          ? Option.some(value as Record<string, unknown>)
          : Option.none()
      } catch {
        return Option.none()
      }
    }
  })

/**
 * A verified state: its user id ("" for a login), whether it was bound to the browser (`n`), and
 * the secret that signed it (its start derived the PKCE challenge from that one).
 */
export interface Verified {
  readonly userId: string
  readonly bound: boolean
  readonly secret: Redacted.Redacted<string>
  /** The language and units the start carried (each null when it carried none, or none known). */
  readonly voice: Voice
}

/** The state's verification, returning the user id: None is rejection, `""` a login. */
export const verify = (state: string, expected: Expectation) => Effect.map(verifyClaims(state, expected), Option.map((v) => v.userId))

/** As `verify`, also telling whether the state carried the browser binding (only such a flow sent a PKCE challenge). */
export const verifyClaims = (state: string, expected: Expectation) =>
  Effect.gen(function* () {
    const keys = yield* AuthSecret
    const now = yield* Clock.currentTimeMillis
    // 1. A dot, and exactly two parts.
    const parts = state.split(".")
    if (parts.length !== 2) return Option.none<Verified>()
    const [payload, presented] = parts as [string, string]
    // 2. The mac, compared in constant time, under the current secret or the previous one.
    const signer = AuthSecrets.firstAccepted(keys, (secret) =>
      constantTimeEqual(presented, mac(secret, payload)) ? Option.some(secret) : Option.none()
    )
    if (Option.isNone(signer)) return Option.none<Verified>()
    // 3. The payload is a JSON object.
    const claims = decodePayload(payload)
    if (Option.isNone(claims)) return Option.none<Verified>()
    const { l, n, p, pr, t, u, un } = claims.value
    // 4. At most 600 seconds old.
    if (typeof t !== "number" || !Number.isFinite(t)) return Option.none<Verified>()
    if (Math.floor(now / 1000) - t > MAX_AGE_SECONDS) return Option.none<Verified>()
    // 5. The expected purpose.
    if (p !== expected.purpose) return Option.none<Verified>()
    // 6. The expected provider; a state minted before `pr` existed is a chat state.
    if ((pr === undefined ? "chat" : pr) !== expected.provider) return Option.none<Verified>()
    // Browser binding: a state that carries `n` needs its cookie.
    if (n !== undefined) {
      if (Option.isNone(expected.binding) || !constantTimeEqual(String(n), bindingHash(expected.binding.value))) {
        return Option.none<Verified>()
      }
    }
    // 7. The user id; "" for a login.
    return typeof u === "string"
      ? Option.some<Verified>({
          userId: u,
          bound: n !== undefined,
          secret: signer.value.secret,
          voice: { language: isLanguage(l) ? l : null, units: un === "metric" || un === "imperial" ? un : null }
        })
      : Option.none<Verified>()
  })

/** PKCE: verifier = base64url(HMAC-SHA256(AUTH_SECRET, "pkce:" + cookie)). */
export const pkceVerifier = (secret: Redacted.Redacted<string>, binding: string): string =>
  base64Url(hmacSha256(Redacted.value(secret), `pkce:${binding}`))

/** The S256 challenge: base64url(SHA-256(verifier)). */
export const pkceChallenge = (verifier: string): string => base64Url(sha256(verifier))
