import { createHash, randomBytes } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Browser, FakeChatProvider, OidcIdp } from "@climate-grade/testing"
import * as Effect from "effect/Effect"

const redirectUri = "http://127.0.0.1:9/api/v2/oauth/idp/callback"
const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

describe("test providers", () => {
  it.scoped("oidc-provider: login and consent through dev interactions, then code → token → userinfo", () =>
    Effect.gen(function* () {
      // The provider's quick-start warnings are what a test provider is: not printed for every test.
      const warned: Array<string> = []
      const warn = console.warn
      console.warn = (...args: Array<unknown>) => {
        warned.push(args.map(String).join(" "))
      }
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          console.warn = warn
        })
      )
      const idp = yield* OidcIdp.make
      idp.attach(redirectUri)
      idp.accounts.set("alice", { email: "Alice@Example.org", email_verified: true })
      const verifier = randomBytes(32).toString("base64url")
      const authorize = new URL(idp.authorizeUrl)
      for (const [k, v] of Object.entries({
        client_id: idp.clientId,
        redirect_uri: redirectUri,
        response_type: "code",
        scope: "openid email",
        state: "s1",
        prompt: "consent",
        access_type: "online",
        include_granted_scopes: "true",
        code_challenge: createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256"
      })) {
        authorize.searchParams.set(k, v)
      }
      const landed = new URL(yield* promise(() => idp.approve(new Browser(), authorize.href, "alice")))
      expect(landed.origin + landed.pathname).toBe(redirectUri)
      expect(landed.searchParams.get("state")).toBe("s1")
      const code = landed.searchParams.get("code")!
      const token = yield* promise(() =>
        fetch(idp.tokenUrl, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            client_id: idp.clientId,
            client_secret: idp.clientSecret,
            grant_type: "authorization_code",
            code,
            redirect_uri: redirectUri,
            code_verifier: verifier
          })
        }).then((r) => r.json() as Promise<{ access_token?: string }>)
      )
      expect(token.access_token).toBeTypeOf("string")
      const profile = yield* promise(() =>
        fetch(idp.userinfoUrl, { headers: { authorization: `Bearer ${token.access_token}` } }).then((r) => r.json())
      )
      expect(profile).toEqual({ sub: "alice", email: "Alice@Example.org", email_verified: true })
      expect(warned.filter((line) => line.includes("oidc-provider"))).toEqual([])
    }))

  it.scoped("the chat provider: approve, code → token → /users/@me, and a queued fault", () =>
    Effect.gen(function* () {
      const chat = yield* FakeChatProvider.make()
      chat.profile = { id: "80351110224678912", username: "nelly", email: "nelly@example.org", verified: true }
      const authorize = new URL(chat.authorizeUrl)
      authorize.searchParams.set("client_id", chat.clientId)
      authorize.searchParams.set("redirect_uri", "http://127.0.0.1:9/cb")
      authorize.searchParams.set("state", "xyz")
      const step = yield* promise(() => new Browser().follow(authorize.href, { stop: (u) => u.port === "9" }))
      const code = new URL(step.url).searchParams.get("code")!
      const exchange = () =>
        fetch(chat.tokenUrl, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            client_id: chat.clientId,
            client_secret: chat.clientSecret,
            grant_type: "authorization_code",
            code,
            redirect_uri: "http://127.0.0.1:9/cb"
          })
        })
      chat.faults.token.push("status-500")
      expect((yield* promise(exchange)).status).toBe(500)
      const token = (yield* promise(() => exchange().then((r) => r.json()))) as { access_token: string }
      const me = yield* promise(() =>
        fetch(chat.userinfoUrl, { headers: { authorization: `Bearer ${token.access_token}` } }).then((r) => r.json())
      )
      expect(me).toEqual(chat.profile)
      // Codes are single-use.
      expect((yield* promise(exchange)).status).toBe(400)
    }))
})
