/**
 * Rotation of AUTH_SECRET, over every HMAC the secret makes: sign-in states (and the PKCE verifier
 * derived beside them) and known-device cookies. Whatever the old secret signed is accepted while
 * it is the previous one, everything new is signed with the current one, and nothing signed with
 * a secret that is neither is accepted.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  AuthSecret,
  AuthSecrets,
  ExchangeFailed,
  type ExchangeInput,
  ProviderExchange,
  Providers,
  SignedState,
  SignIn
} from "@climate-grade/core"
import * as KnownDevice from "@climate-grade/core/accounts/KnownDevice"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import * as InMemory from "./oauth/InMemory.js"

/** Three different secrets: the old one, the new one, and one nobody configured. */
const secretsArb = FastCheck.uniqueArray(FastCheck.string({ minLength: 32, maxLength: 64 }), { minLength: 3, maxLength: 3 }).map(
  ([old, current, stranger]) => ({ old: old!, current: current!, stranger: stranger! })
)
const purposeArb = FastCheck.constantFrom<SignedState.Purpose>("link", "login")
const providerArb = FastCheck.constantFrom<"chat" | "idp">("chat", "idp")
const bindingArb = FastCheck.stringMatching(/^[A-Za-z0-9_-]{43}$/)
const deviceArb = FastCheck.stringMatching(/^[A-Za-z0-9_-]{22}$/)
const NOW = 1_795_000_000_000

const withKeys = (keys: AuthSecrets.Keys) => Effect.provideService(AuthSecret, keys)

describe("AuthSecrets", () => {
  it("accepts the current secret first, then the previous one, once when they are equal", () => {
    FastCheck.assert(
      FastCheck.property(secretsArb, ({ current, old }) => {
        expect(AuthSecrets.accepted(AuthSecrets.keys(current)).map(Redacted.value)).toEqual([current])
        expect(AuthSecrets.accepted(AuthSecrets.keys(current, old)).map(Redacted.value)).toEqual([current, old])
        expect(AuthSecrets.accepted(AuthSecrets.keys(current, current)).map(Redacted.value)).toEqual([current])
        expect(Redacted.value(AuthSecrets.signing(AuthSecrets.keys(current, old)))).toBe(current)
      })
    )
  })
})

describe("SignedState across a rotation", () => {
  it("a state minted with the old secret verifies, to the same claims, while the old secret is the previous one, and only then", () =>
    Effect.runPromise(
      Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(
            secretsArb,
            purposeArb,
            providerArb,
            bindingArb,
            FastCheck.uuid(),
            FastCheck.integer({ min: 0, max: SignedState.MAX_AGE_SECONDS }),
            async ({ current, old, stranger }, purpose, provider, binding, id, age) => {
              const userId = purpose === "link" ? id : ""
              const program = Effect.gen(function* () {
                yield* TestClock.setTime(NOW)
                const state = yield* SignedState.mint({ purpose, provider, userId, binding }).pipe(withKeys(AuthSecrets.keys(old)))
                yield* TestClock.adjust(`${age} seconds`)
                const expected = { purpose, provider, binding: Option.some(binding) }
                const verifyUnder = (keys: AuthSecrets.Keys) =>
                  SignedState.verifyClaims(state, expected).pipe(
                    withKeys(keys),
                    Effect.map(Option.map((v) => ({ userId: v.userId, bound: v.bound, secret: Redacted.value(v.secret) })))
                  )
                return {
                  rotated: yield* verifyUnder(AuthSecrets.keys(current, old)),
                  before: yield* verifyUnder(AuthSecrets.keys(old)),
                  // The rotation finished (previous dropped), or another secret altogether.
                  dropped: yield* verifyUnder(AuthSecrets.keys(current)),
                  other: yield* verifyUnder(AuthSecrets.keys(current, stranger))
                }
              })
              const result = await Effect.runPromise(Effect.provide(program, TestContext.TestContext))
              const claims = Option.some({ userId, bound: true, secret: old })
              expect(result.rotated).toEqual(claims)
              expect(result.before).toEqual(claims)
              expect(result.dropped).toEqual(Option.none())
              expect(result.other).toEqual(Option.none())
            }
          ),
          { numRuns: 200 }
        )
      )
    ))

  it("a state minted during a rotation is signed with the current secret: it still verifies once the previous one is dropped", () =>
    Effect.runPromise(
      Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(secretsArb, purposeArb, providerArb, bindingArb, async ({ current, old }, purpose, provider, binding) => {
            const program = Effect.gen(function* () {
              yield* TestClock.setTime(NOW)
              const state = yield* SignedState.mint({ purpose, provider, userId: "", binding }).pipe(
                withKeys(AuthSecrets.keys(current, old))
              )
              const expected = { purpose, provider, binding: Option.some(binding) }
              return {
                current: yield* SignedState.verify(state, expected).pipe(withKeys(AuthSecrets.keys(current))),
                old: yield* SignedState.verify(state, expected).pipe(withKeys(AuthSecrets.keys(old)))
              }
            }).pipe(Effect.provide(TestContext.TestContext))
            const result = await Effect.runPromise(program)
            expect(result.current).toEqual(Option.some(""))
            expect(result.old).toEqual(Option.none())
          }),
          { numRuns: 200 }
        )
      )
    ))
})

describe("SignIn across a rotation", () => {
  it("a sign-in started with the old secret finishes with the new one, sending the PKCE verifier its start's challenge was made from", () =>
    Effect.runPromise(
      Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(secretsArb, async ({ current, old }) => {
            const exchanges: Array<ExchangeInput> = []
            const world = (keys: AuthSecrets.Keys) =>
              Layer.mergeAll(
                InMemory.layer(InMemory.emptyStore()),
                Layer.succeed(AuthSecret, keys),
                Layer.succeed(Providers.ProviderSettings, {
                  chat: { enabled: true, clientId: "client" },
                  idp: { enabled: true, clientId: "client" }
                }),
                Layer.succeed(ProviderExchange, {
                  exchange: (input) =>
                    Effect.zipRight(Effect.sync(() => exchanges.push(input)), Effect.fail(new ExchangeFailed({ reason: "test" })))
                })
              )
            const redirectUri = "https://cg.example/api/v2/oauth/idp/callback"
            const started = await Effect.runPromise(
              SignIn.start({ provider: "idp", user: Option.none(), redirectUri }).pipe(Effect.provide(world(AuthSecrets.keys(old))))
            )
            if (started._tag !== "Authorize") throw new Error("expected Authorize")
            const outcome = await Effect.runPromise(
              SignIn.callback({
                provider: "idp",
                code: "the-code",
                state: started.params.state,
                binding: started.binding,
                redirectUri,
                sessionUser: Effect.succeed(Option.none())
              }).pipe(Effect.provide(world(AuthSecrets.keys(current, old))))
            )
            // Past the state: the exchange was reached (the fake refuses it).
            expect(outcome._tag).toBe("Error")
            expect(exchanges).toHaveLength(1)
            const verifier = Option.getOrThrow(exchanges[0]!.codeVerifier)
            expect(SignedState.pkceChallenge(verifier)).toBe(started.params.code_challenge)
          }),
          { numRuns: 50 }
        )
      )
    ))
})

describe("KnownDevice across a rotation", () => {
  const emailArb = FastCheck.emailAddress()

  it("a device known under the old secret stays known while it is the previous one; its next sign-in renews it under the current one", () => {
    FastCheck.assert(
      FastCheck.property(secretsArb, emailArb, deviceArb, deviceArb, ({ current, old, stranger }, email, device, fresh) => {
        const cookie = KnownDevice.afterSignIn(AuthSecrets.keys(old), undefined, email, device, NOW)
        const rotated = AuthSecrets.keys(current, old)
        expect(KnownDevice.recognise(rotated, cookie, email, NOW + 1000)).toEqual(Option.some(device))
        expect(KnownDevice.recognise(AuthSecrets.keys(current), cookie, email, NOW + 1000)).toEqual(Option.none())
        expect(KnownDevice.recognise(AuthSecrets.keys(current, stranger), cookie, email, NOW + 1000)).toEqual(Option.none())
        // A sign-in during the rotation keeps the device and signs its entry with the current secret.
        const renewed = KnownDevice.afterSignIn(rotated, cookie, email, fresh, NOW + 2000)
        expect(renewed.split("~")).toHaveLength(1)
        expect(KnownDevice.recognise(AuthSecrets.keys(current), renewed, email, NOW + 3000)).toEqual(Option.some(device))
      })
    )
  })
})
