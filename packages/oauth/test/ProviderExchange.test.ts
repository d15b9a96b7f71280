import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { ProviderExchange } from "@climate-grade/oauth"
import { Browser, FakeChatProvider } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"

const REDIRECT = "http://127.0.0.1:9/api/v2/chat/link/callback"

/** A fresh authorization code from the fake provider for its current profile. */
const codeFor = (chat: FakeChatProvider.FakeChatProvider) =>
  Effect.promise(async () => {
    const authorize = new URL(chat.authorizeUrl)
    authorize.searchParams.set("client_id", chat.clientId)
    authorize.searchParams.set("redirect_uri", REDIRECT)
    const step = await new Browser().follow(authorize.href, { stop: (u) => u.port === "9" })
    return new URL(step.url).searchParams.get("code")!
  })

const request = (chat: FakeChatProvider.FakeChatProvider, code: string) => ({
  tokenUrl: chat.tokenUrl,
  userinfoUrl: chat.userinfoUrl,
  clientId: chat.clientId,
  clientSecret: Redacted.make(chat.clientSecret),
  code,
  redirectUri: REDIRECT,
  codeVerifier: Option.some("unused-by-this-provider")
})

describe("ProviderExchange over HTTP", () => {
  it.scoped("sends a form-encoded token request with the secret in the body, then a bearer userinfo call", () =>
    Effect.gen(function* () {
      const chat = yield* FakeChatProvider.make()
      chat.profile = { id: "42", email: "Who@Example.org", verified: true }
      const profile = yield* ProviderExchange.exchange(request(chat, yield* codeFor(chat)))
      expect(profile).toEqual(chat.profile)
      const token = chat.requests.find((r) => r.path === "/oauth2/token")!
      expect(token.form).toEqual({
        client_id: chat.clientId,
        client_secret: chat.clientSecret,
        grant_type: "authorization_code",
        code: expect.any(String),
        redirect_uri: REDIRECT,
        code_verifier: "unused-by-this-provider"
      })
      const me = chat.requests.find((r) => r.path === "/users/@me")!
      expect(me.authorization).toBe(`Bearer ${chat.accessTokens[0]}`)
    }).pipe(Effect.provide(NodeHttpClient.layer)))

  const faults: ReadonlyArray<[FakeChatProvider.Fault, "token" | "userinfo", string]> = [
    ["status-500", "token", "status 500"],
    ["status-400", "token", "status 400"],
    ["status-302", "token", "status 302"],
    ["no-access-token", "token", "no access_token in the answer"],
    ["malformed-json", "token", "the body is not JSON"],
    ["reset", "token", "request failed"],
    ["status-500", "userinfo", "status 500"],
    ["status-302", "userinfo", "status 302"],
    ["malformed-json", "userinfo", "the body is not JSON"],
    ["not-an-object", "userinfo", "the profile is not a JSON object"],
    ["reset", "userinfo", "request failed"]
  ]
  for (const [fault, step, reason] of faults) {
    it.scoped(`${fault} at ${step} is an ExchangeError, not a defect`, () =>
      Effect.gen(function* () {
        const chat = yield* FakeChatProvider.make()
        chat.profile = { id: "42" }
        chat.faults[step].push(fault)
        const result = yield* Effect.either(ProviderExchange.exchange(request(chat, yield* codeFor(chat))))
        expect(Either.isLeft(result)).toBe(true)
        const error = Either.getLeft(result).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
        expect(error.step).toBe(step)
        expect(error.reason).toContain(reason)
      }).pipe(Effect.provide(NodeHttpClient.layer)))
  }

  it.scoped("a provider that never answers times out after 10 seconds", () =>
    Effect.gen(function* () {
      const chat = yield* FakeChatProvider.make()
      chat.profile = { id: "42" }
      chat.faults.userinfo.push("hang")
      const fiber = yield* Effect.fork(ProviderExchange.exchange(request(chat, yield* codeFor(chat))))
      // Once the userinfo call is waiting on the provider, move the test clock past its timeout.
      yield* Effect.promise(async () => {
        while (!chat.requests.some((r) => r.path === "/users/@me")) await new Promise((r) => setTimeout(r, 5))
      })
      yield* TestClock.adjust("10 seconds")
      const error = yield* Effect.flip(fiber.await.pipe(Effect.flatten))
      expect(error).toEqual(new ProviderExchange.ExchangeError({ step: "userinfo", reason: "timed out" }))
    }).pipe(Effect.provide(NodeHttpClient.layer)))
})
