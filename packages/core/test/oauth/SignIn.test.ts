import { describe, expect, it } from "@effect/vitest"
import {
  AuthSecret,
  AuthSecrets,
  Crypto,
  ExchangeFailed,
  type ExchangeInput,
  ProviderExchange,
  Providers,
  SignedState,
  SignIn,
  User,
  type UserId
} from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as InMemory from "./InMemory.js"

const SECRET = Redacted.make("a test secret of at least thirty-two characters")

const config = (enabled: boolean): Providers.ProviderConfig => ({ enabled, clientId: enabled ? "client" : "" })

const user = (id: string) =>
  new User({
    id: id as UserId,
    email: `${id.slice(-1)}@x.org`,
    hashedPassword: "",
    isActive: true,
    isSuperuser: false,
    isVerified: true,
    oauthOnly: false,
    chatId: null,
    chatDm: false
  })
const ALICE = user("00000000-0000-4000-8000-00000000000a")
const BOB = user("00000000-0000-4000-8000-00000000000b")

const world = (enabled: boolean) => {
  const exchanges: Array<ExchangeInput> = []
  const layer = Layer.mergeAll(
    InMemory.layer(InMemory.emptyStore()),
    Layer.succeed(AuthSecret, AuthSecrets.keys(SECRET)),
    Layer.succeed(Providers.ProviderSettings, { chat: config(enabled), idp: config(enabled) }),
    // Records what was sent and fails, so the rules after the exchange end at once.
    Layer.succeed(ProviderExchange, {
      exchange: (input) => Effect.zipRight(Effect.sync(() => exchanges.push(input)), Effect.fail(new ExchangeFailed({ reason: "test" })))
    })
  )
  return { exchanges, layer }
}

const REDIRECT = "https://cg.example/api/v1/oauth/idp/callback"

describe("SignIn.start", () => {
  it.effect("an unconfigured provider is unavailable; signed in is a link for that user, signed out a login; PKCE from the binding", () =>
    Effect.gen(function* () {
      const off = yield* SignIn.start({ provider: "idp", user: Option.none(), redirectUri: REDIRECT }).pipe(
        Effect.provide(world(false).layer)
      )
      expect(off._tag).toBe("Unavailable")
      for (const [who, purpose] of [[Option.some(ALICE), "link"], [Option.none(), "login"]] as const) {
        const decision = yield* SignIn.start({ provider: "idp", user: who, redirectUri: REDIRECT }).pipe(
          Effect.provide(world(true).layer)
        )
        if (decision._tag !== "Authorize") throw new Error("expected Authorize")
        const { params } = decision
        // Every parameter the rules decide, in the order the authorize URL has always carried them.
        expect(Object.keys(params)).toEqual([
          "client_id",
          "redirect_uri",
          "response_type",
          "scope",
          "state",
          ...Object.keys(Providers.registry.idp.extraAuthorizeParams),
          "code_challenge",
          "code_challenge_method"
        ])
        expect(params).toMatchObject(Providers.registry.idp.extraAuthorizeParams)
        expect(params.client_id).toBe("client")
        expect(params.redirect_uri).toBe(REDIRECT)
        expect(params.response_type).toBe("code")
        expect(params.scope).toBe(purpose === "link" ? Providers.registry.idp.scopeLink : Providers.registry.idp.scopeLogin)
        expect(params.code_challenge_method).toBe("S256")
        expect(params.code_challenge).toBe(SignedState.pkceChallenge(SignedState.pkceVerifier(SECRET, decision.binding)))
        const verified = yield* SignedState.verify(params.state!, {
          purpose,
          provider: "idp",
          binding: Option.some(decision.binding)
        }).pipe(Effect.provideService(AuthSecret, AuthSecrets.keys(SECRET)))
        expect(verified).toEqual(Option.some(purpose === "link" ? ALICE.id : ""))
      }
    })
  )
})

describe("Providers.isEnabled", () => {
  it.prop(
    "enabled exactly when the client id and the secret are both non-empty after trimming",
    [FastCheck.constantFrom("", " ", "\n", "id", " id\n"), FastCheck.constantFrom("", "\t", "secret\n", "s")],
    ([clientId, secret]) => {
      expect(Providers.isEnabled({ clientId, clientSecret: Redacted.make(secret) })).toBe(
        clientId.trim() !== "" && secret.trim() !== ""
      )
    }
  )
})

/** A state from before browser binding (no `n`: no cookie needed, no PKCE sent), minted now on the real clock. */
const unbound = (purpose: "link" | "login", userId: string) => {
  const body = Crypto.base64Url(JSON.stringify({ u: userId, t: Math.floor(Date.now() / 1000), p: purpose, pr: "idp" }))
  return `${body}.${Crypto.hmacSha256Hex(Redacted.value(SECRET), body).slice(0, 32)}`
}

describe("SignIn.callback", () => {
  const caseArb = FastCheck.record({
    enabled: FastCheck.constantFrom(true, true, true, false),
    code: FastCheck.constantFrom<string | undefined>("the-code", "the-code", "the-code", "", undefined),
    state: FastCheck.constantFrom("link", "login", "unbound-link", "unbound-login", "garbage", "none"),
    cookie: FastCheck.constantFrom<"right" | "other" | "none">("right", "right", "other", "none"),
    session: FastCheck.constantFrom<"alice" | "bob" | "none">("alice", "alice", "bob", "none")
  })

  it.effect("decides in order, link state before login state, and sends a PKCE verifier only for a bound state", () =>
    Effect.gen(function* () {
      const seen = new Map<string, number>()
      yield* Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(caseArb, async (c) => {
            const { exchanges, layer } = world(c.enabled)
            const program = Effect.gen(function* () {
              const binding = "binding-cookie-value"
              const state =
                c.state === "link"
                  ? yield* SignedState.mint({ purpose: "link", provider: "idp", userId: ALICE.id, binding })
                  : c.state === "login"
                    ? yield* SignedState.mint({ purpose: "login", provider: "idp", userId: "", binding })
                    : c.state === "unbound-link"
                      ? unbound("link", ALICE.id)
                      : c.state === "unbound-login"
                        ? unbound("login", "")
                        : c.state === "garbage"
                          ? "not.a-state"
                          : undefined
              const sessionReads = { count: 0 }
              const outcome = yield* SignIn.callback({
                provider: "idp",
                code: c.code,
                state,
                binding: c.cookie === "right" ? binding : c.cookie === "other" ? "someone-else" : undefined,
                redirectUri: REDIRECT,
                sessionUser: Effect.sync(() => {
                  sessionReads.count++
                  return c.session === "alice" ? Option.some(ALICE) : c.session === "bob" ? Option.some(BOB) : Option.none()
                })
              })
              return { outcome, sessionReads: sessionReads.count, binding }
            })
            const { outcome, sessionReads, binding } = await Effect.runPromise(Effect.provide(program, layer))

            // The model: what should happen, written plainly.
            const bound = c.state === "link" || c.state === "login"
            const verifies = c.state.startsWith("unbound") || (bound && c.cookie === "right")
            const isLink = c.state.endsWith("link")
            const expected = !c.enabled
              ? "Unavailable"
              : (c.code ?? "") === ""
                ? "Cancelled"
                : !verifies
                  ? "bad state"
                  : isLink && c.session !== "alice"
                    ? "no session, or another user's state"
                    : "exchange failed or no subject"
            const reason = outcome._tag === "Error" ? outcome.reason : outcome._tag
            expect(reason).toBe(expected)
            seen.set(expected, (seen.get(expected) ?? 0) + 1)
            // The session is read only for a link state that verified.
            expect(sessionReads).toBe(c.enabled && (c.code ?? "") !== "" && verifies && isLink ? 1 : 0)
            // One exchange exactly when the rules get that far, with the verifier only for a bound state.
            if (expected === "exchange failed or no subject") {
              expect(exchanges).toHaveLength(1)
              expect(exchanges[0]!.code).toBe("the-code")
              expect(exchanges[0]!.redirectUri).toBe(REDIRECT)
              expect(exchanges[0]!.codeVerifier).toEqual(
                bound ? Option.some(SignedState.pkceVerifier(SECRET, binding)) : Option.none()
              )
            } else {
              expect(exchanges).toHaveLength(0)
            }
          }),
          // The rarest reason (a link state without its user) is ~1 case in 18: ~44 expected (sd ~6.5), so
          // "more than 5" is beyond five standard deviations.
          { numRuns: 800 }
        )
      )
      // Every branch was reached.
      for (const reason of ["Unavailable", "Cancelled", "bad state", "no session, or another user's state", "exchange failed or no subject"]) {
        expect(seen.get(reason) ?? 0).toBeGreaterThan(5)
      }
    })
  )
})

describe("Providers.redirectUri", () => {
  const originArb = FastCheck.tuple(
    FastCheck.constantFrom("http", "https"),
    FastCheck.domain(),
    FastCheck.option(FastCheck.integer({ min: 1, max: 65535 }), { nil: undefined })
  ).map(([scheme, host, port]) => `${scheme}://${host}${port === undefined ? "" : `:${port}`}`)
  const basePathArb = FastCheck.oneof(
    FastCheck.constant(""),
    FastCheck.array(FastCheck.stringMatching(/^[a-z0-9-]{1,8}$/), { minLength: 1, maxLength: 3 }).map((parts) => `/${parts.join("/")}`)
  )

  it.prop(
    "the public origin when one is configured (the request is not asked), else the request's; then the base path, then the provider's callback path",
    [FastCheck.constantFrom(...Providers.names), basePathArb, FastCheck.option(originArb), originArb],
    ([provider, basePath, publicOrigin, requestOrigin]) => {
      let asked = 0
      const uri = Providers.redirectUri({
        provider,
        basePath,
        publicOrigin: Option.fromNullable(publicOrigin),
        requestOrigin: () => {
          asked++
          return requestOrigin
        }
      })
      expect(uri).toBe(`${publicOrigin ?? requestOrigin}${basePath}${Providers.registry[provider].callbackPath}`)
      expect(asked).toBe(publicOrigin === null ? 1 : 0)
      expect(new URL(uri).pathname).toBe(`${basePath}${Providers.registry[provider].callbackPath}`)
    }
  )

  it("the registered callback addresses", () => {
    const at = (provider: "chat" | "idp") =>
      Providers.redirectUri({ provider, basePath: "/climate", publicOrigin: Option.none(), requestOrigin: () => "http://h:1" })
    expect(at("chat")).toBe("http://h:1/climate/api/v2/chat/link/callback")
    expect(at("idp")).toBe("http://h:1/climate/api/v2/oauth/idp/callback")
  })
})
