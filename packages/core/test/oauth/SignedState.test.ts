import { describe, expect, it } from "@effect/vitest"
import { AuthSecret, AuthSecrets, Crypto, SignedState } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Encoding from "effect/Encoding"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"

const SECRET = Redacted.make("a test secret of at least thirty-two characters")
const withSecret = Effect.provideService(AuthSecret, AuthSecrets.keys(SECRET))
const T0 = 1_795_000_000_000

const expectation = (over: Partial<SignedState.Expectation> = {}): SignedState.Expectation => ({
  purpose: "link",
  provider: "chat",
  binding: Option.some("cookie-value"),
  ...over
})

const minted = (over: Partial<SignedState.MintInput> = {}) =>
  SignedState.mint({ purpose: "link", provider: "chat", userId: "user-1", binding: "cookie-value", ...over })

/** A state with any payload, signed with the real secret: what an attacker cannot make, to isolate one rule. */
const signed = (payload: Record<string, unknown>) => {
  const body = Crypto.base64Url(JSON.stringify(payload))
  return `${body}.${Crypto.hmacSha256Hex(Redacted.value(SECRET), body).slice(0, 32)}`
}

describe("SignedState", () => {
  it.effect("has SPEC's format: base64url payload {u, t, p, pr, n} and a 32-hex mac", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const state = yield* minted()
      const [payload, mac] = state.split(".")
      expect(mac).toMatch(/^[0-9a-f]{32}$/)
      expect(payload).toMatch(/^[A-Za-z0-9_-]+$/)
      expect(JSON.parse(Either.getOrThrow(Encoding.decodeBase64UrlString(payload!)))).toEqual({
        u: "user-1",
        t: T0 / 1000,
        p: "link",
        pr: "chat",
        n: Crypto.sha256Hex("cookie-value").slice(0, 32)
      })
    }).pipe(withSecret))

  it.effect("verifies to the user id; a login state to the empty string, which is not a rejection", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      expect(yield* SignedState.verify(yield* minted(), expectation())).toEqual(Option.some("user-1"))
      const login = yield* minted({ purpose: "login", userId: "" })
      expect(yield* SignedState.verify(login, expectation({ purpose: "login" }))).toEqual(Option.some(""))
    }).pipe(withSecret))

  it.effect("is accepted at 600 seconds of age and rejected at 601", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const state = yield* minted()
      yield* TestClock.adjust("600 seconds")
      expect(yield* SignedState.verify(state, expectation())).toEqual(Option.some("user-1"))
      yield* TestClock.adjust("1 second")
      expect(yield* SignedState.verify(state, expectation())).toEqual(Option.none())
    }).pipe(withSecret))

  it.effect("rejects every tampering", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const state = yield* minted()
      const [payload, mac] = state.split(".") as [string, string]
      const claims = JSON.parse(Either.getOrThrow(Encoding.decodeBase64UrlString(payload))) as Record<string, unknown>
      const forged = (patch: Record<string, unknown>) => `${Crypto.base64Url(JSON.stringify({ ...claims, ...patch }))}.${mac}`
      const rejected: ReadonlyArray<[string, string, SignedState.Expectation]> = [
        ["other purpose", state, expectation({ purpose: "login" })],
        ["other provider", state, expectation({ provider: "idp" })],
        ["other user (u changed, mac kept)", forged({ u: "user-2" }), expectation()],
        ["purpose changed, mac kept", forged({ p: "login" }), expectation({ purpose: "login" })],
        ["broken mac", `${payload}.${mac.replace(/^./, (c) => (c === "0" ? "1" : "0"))}`, expectation()],
        ["short mac", `${payload}.${mac.slice(0, 31)}`, expectation()],
        ["no dot", `${payload}${mac}`, expectation()],
        ["extra dot", `${payload}.${mac}.x`, expectation()],
        ["empty", "", expectation()],
        ["bad JSON, properly signed", `${Crypto.base64Url("{not json")}.${Crypto.hmacSha256Hex(Redacted.value(SECRET), Crypto.base64Url("{not json")).slice(0, 32)}`, expectation()],
        ["JSON that is not an object", signed([1, 2] as never), expectation()],
        ["missing binding cookie", state, expectation({ binding: Option.none() })],
        ["wrong binding cookie", state, expectation({ binding: Option.some("another-cookie") })],
        ["missing t", signed({ u: "user-1", p: "link", pr: "chat" }), expectation({ binding: Option.none() })],
        ["another secret", `${payload}.${Crypto.hmacSha256Hex("another secret", payload).slice(0, 32)}`, expectation()]
      ]
      for (const [why, candidate, expected] of rejected) {
        expect([why, yield* SignedState.verify(candidate, expected)]).toEqual([why, Option.none()])
      }
    }).pipe(withSecret))

  it.effect("a legacy state without pr is a chat state, and without n needs no cookie", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const legacy = signed({ u: "user-1", t: T0 / 1000, p: "link" })
      expect(yield* SignedState.verify(legacy, expectation({ binding: Option.none() }))).toEqual(Option.some("user-1"))
      expect(yield* SignedState.verify(legacy, expectation({ provider: "idp", binding: Option.none() }))).toEqual(Option.none())
    }).pipe(withSecret))

  it("PKCE: the verifier is base64url(HMAC(secret, 'pkce:' + cookie)) and the challenge its S256", () => {
    const verifier = SignedState.pkceVerifier(SECRET, "cookie-value")
    expect(verifier).toBe(Crypto.base64Url(Crypto.hmacSha256(Redacted.value(SECRET), "pkce:cookie-value")))
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(SignedState.pkceChallenge(verifier)).toBe(Crypto.base64Url(Crypto.sha256(verifier)))
    // RFC 7636 appendix B's example pair.
    expect(SignedState.pkceChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    )
  })
})
