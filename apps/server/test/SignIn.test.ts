/**
 * Sign-in, linking and unlinking end to end over real HTTP on loopback: the service, a
 * Discord-like `chat` provider and panva's oidc-provider as `idp`, on PGlite and PostgreSQL.
 */
import { createHash, createHmac } from "node:crypto"
import { type IncomingHttpHeaders, request } from "node:http"
import { connect } from "node:net"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { PasswordHasher, Sessions, type User, Users } from "@climate-grade/core"
import { backends, Browser, FakeChatProvider, FakeEnv, OidcIdp } from "@climate-grade/testing"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

class Providers extends Context.Tag("test/Providers")<
  Providers,
  { readonly chat: FakeChatProvider.FakeChatProvider; readonly idp: OidcIdp.OidcIdp }
>() {}

const AUTH_SECRET = "an auth secret that is long enough for hmac"

const world = (backend: (typeof backends)[number], extraEnv: Record<string, string> = {}, logs?: Array<string>) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const chat = yield* FakeChatProvider.make()
      const idp = yield* OidcIdp.make
      const env = {
        AUTH_SECRET,
        ...FakeEnv.provider("CHAT", chat),
        CHAT_LABEL: "ChatApp",
        ...FakeEnv.provider("IDP", idp),
        IDP_LABEL: "Example ID",
        ...extraEnv
      }
      return Layer.merge(
        testServerLayer(env, backend.layer, logs === undefined ? {} : { logs }),
        Layer.succeed(Providers, { chat, idp })
      )
    })
  )

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

/** A GET through node:http, which sends the Host header given (fetch replaces it). */
const rawGet = (url: string, headers: Record<string, string>) =>
  promise(
    () =>
      new Promise<{ status: number; headers: IncomingHttpHeaders }>((done, fail) => {
        const req = request(url, { headers }, (res) => {
          res.resume()
          done({ status: res.statusCode ?? 0, headers: res.headers })
        })
        req.on("error", fail)
        req.end()
      })
  )

const alerts = (url: string) => {
  const u = new URL(url, "http://x")
  return { path: u.pathname, query: Object.fromEntries(u.searchParams) }
}

/** Everything a test needs: the service, the providers, and helpers that drive a browser through the flows. */
const fixture = Effect.gen(function* () {
  const server = yield* TestServer
  const { chat, idp } = yield* Providers
  const users = yield* Users
  const sessions = yield* Sessions
  const hasher = yield* PasswordHasher
  const sql = yield* SqlClient.SqlClient
  idp.attach(server.url("/api/v2/oauth/idp/callback"))

  let counter = 0
  const unique = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`

  const localUser = (email: string, overrides: Partial<{ isActive: boolean; isVerified: boolean; oauthOnly: boolean }> = {}) =>
    Effect.gen(function* () {
      return yield* users.create({
        email,
        hashedPassword: yield* hasher.hash("a password"),
        isActive: overrides.isActive ?? true,
        isSuperuser: false,
        isVerified: overrides.isVerified ?? true,
        oauthOnly: overrides.oauthOnly ?? false
      })
    })

  /** A session token of `user`'s, issued directly. */
  const tokenFor = (user: User) => Effect.map(sessions.issue(user.id), ({ token }) => token)

  /** A browser signed in as `user` (the session cookie set directly). */
  const browserFor = (user: User) =>
    Effect.map(tokenFor(user), (token) => {
      const browser = new Browser()
      browser.setCookie(server.origin, "session", token)
      return browser
    })

  /** From a start route through the chat provider and back: the final account redirect. */
  const viaChat = (browser: Browser, startPath: string, profile: FakeChatProvider.ChatProfile | undefined) =>
    promise(async () => {
      chat.profile = profile
      const start = await browser.fetch(server.url(startPath))
      const location = start.headers.get("location")
      if (start.status !== 303 || location === null) return { start, final: undefined }
      const done = await browser.follow(location, { stop: (u) => u.pathname.endsWith("/alerts") })
      return { start, final: done.url }
    })

  const viaIdp = (browser: Browser, startPath: string, subject: string) =>
    promise(async () => {
      const start = await browser.fetch(server.url(startPath))
      const callback = await idp.approve(browser, start.headers.get("location")!, subject)
      const done = await browser.follow(callback, { stop: (u) => u.pathname.endsWith("/alerts") })
      return { start, final: done.url }
    })

  const me = (browser: Browser) =>
    promise(async () => {
      const response = await browser.fetch(server.url("/api/v2/users/me"))
      return { status: response.status, body: (await response.json()) as Record<string, unknown> }
    })

  const auditRecords = (userId: string) =>
    sql<{ activity: string; data: unknown }>`select activity, data from audit_log where data->>'user_id' = ${userId}`

  return { server, chat, idp, users, sql, unique, localUser, tokenFor, browserFor, viaChat, viaIdp, me, auditRecords }
})

const expectStatus = (final: string | undefined, provider: "chat" | "idp", status: string, basePath = "") => {
  expect(final).toBeDefined()
  const { path, query } = alerts(final!)
  expect(path).toBe(`${basePath}/alerts`)
  expect(query).toEqual(provider === "chat" ? { oauth: status, provider, chat: status } : { oauth: status, provider })
}

for (const backend of backends) {
  describe(`sign-in on ${backend.name}`, () => {
    layer(world(backend), { timeout: 120_000 })((it) => {
      it.effect("config lists both providers with their labels", () =>
        Effect.gen(function* () {
          const { server } = yield* fixture
          const response = yield* promise(() => fetch(server.url("/api/v2/oauth/config")))
          expect(yield* promise(() => response.json())).toEqual({
            providers: [
              { name: "chat", label: "ChatApp", enabled: true },
              { name: "idp", label: "Example ID", enabled: true }
            ]
          })
        }))

      it.effect("an unknown provider is 404 'Unknown provider.' on every route, before any session check", () =>
        Effect.gen(function* () {
          const { server } = yield* fixture
          for (const [method, path] of [
            ["GET", "/api/v2/oauth/nope/link/start"],
            ["GET", "/api/v2/oauth/nope/login/start"],
            ["GET", "/api/v2/oauth/nope/callback?code=x&state=y"],
            ["POST", "/api/v2/oauth/nope/unlink"],
            ["GET", "/api/v2/oauth/CHAT/login/start"]
          ] as const) {
            const response = yield* promise(() => fetch(server.url(path), { method, redirect: "manual" }))
            expect(response.status).toBe(404)
            expect(yield* promise(() => response.json())).toEqual({ detail: "Unknown provider.", code: "not-found" })
          }
        }))

      it.effect("link/start and unlink need a session: 401", () =>
        Effect.gen(function* () {
          const { server } = yield* fixture
          for (const [method, path] of [
            ["GET", "/api/v2/oauth/chat/link/start"],
            ["GET", "/api/v2/oauth/idp/link/start"],
            ["GET", "/api/v2/chat/link/start"],
            ["POST", "/api/v2/oauth/idp/unlink"],
            ["POST", "/api/v2/chat/unlink"],
            ["POST", "/api/v2/chat/dm"]
          ] as const) {
            const response = yield* promise(() => fetch(server.url(path), { method, redirect: "manual" }))
            expect(response.status).toBe(401)
            expect(yield* promise(() => response.json())).toEqual({ detail: "Unauthorized", code: "unauthorized" })
          }
        }))

      it.effect("the authorize redirect carries every parameter, PKCE, and a browser-binding cookie", () =>
        Effect.gen(function* () {
          const { chat, server } = yield* fixture
          // Behind a trusted proxy (TRUSTED_PROXY_HOPS=1) and over https: see "proxy trust" below.
          const response = yield* rawGet(server.url("/api/v2/oauth/chat/login/start"), { host: "grades.example.org" })
          expect(response.status).toBe(303)
          const location = new URL(response.headers.location!)
          expect(location.origin + location.pathname).toBe(chat.authorizeUrl)
          const query = Object.fromEntries(location.searchParams)
          expect(query).toEqual({
            client_id: chat.clientId,
            redirect_uri: "http://grades.example.org/api/v2/chat/link/callback",
            response_type: "code",
            scope: "identify email",
            state: expect.stringMatching(/^[A-Za-z0-9_-]+\.[0-9a-f]{32}$/),
            prompt: "consent",
            code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
            code_challenge_method: "S256"
          })
          const cookie = response.headers["set-cookie"]![0]!
          expect(cookie).toMatch(/^oauth_tx_chat=[A-Za-z0-9_-]{43}; Max-Age=600; Path=\/api\/v2; HttpOnly; SameSite=Lax$/)

          const idp = yield* promise(() => fetch(server.url("/api/v2/oauth/idp/login/start"), { redirect: "manual" }))
          const idpQuery = Object.fromEntries(new URL(idp.headers.get("location")!).searchParams)
          expect(idpQuery).toMatchObject({
            redirect_uri: `${server.origin}/api/v2/oauth/idp/callback`,
            scope: "openid email",
            prompt: "consent",
            access_type: "online",
            include_granted_scopes: "true"
          })
        }))

      it.effect("chat: a first login creates a provider-only account (created), the next signs in (signedin)", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const subject = f.unique("chat")
          const browser = new Browser()
          const first = yield* f.viaChat(browser, "/api/v2/oauth/chat/login/start", {
            id: subject,
            email: `  New.Person+${subject}@Example.ORG `,
            verified: true
          })
          expectStatus(first.final, "chat", "created")
          const { body } = yield* f.me(browser)
          expect(body).toMatchObject({
            email: `new.person+${subject}@example.org`,
            is_active: true,
            is_superuser: false,
            is_verified: true,
            oauth_only: true,
            chat_id: subject,
            chat_dm: true,
            links: [{ provider: "chat", email: `new.person+${subject}@example.org` }]
          })
          const records = yield* f.auditRecords(String(body.id))
          expect(records.map((r) => r.activity)).toEqual(["auth.register"])
          expect(records[0]!.data).toEqual({ user_id: body.id, via: "chat" })
          // The binding cookie is cleared by the callback.
          expect(browser.cookie(f.server.origin, "oauth_tx_chat")).toBeUndefined()

          const again = new Browser()
          const second = yield* f.viaChat(again, "/api/v2/chat/login/start", { id: subject, verified: false })
          expectStatus(second.final, "chat", "signedin")
          expect((yield* f.me(again)).body.id).toBe(body.id)
        }))

      it.effect("idp: login through oidc-provider creates then signs in; 'TRUE' as a string counts as verified", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const subject = f.unique("idp")
          f.idp.accounts.set(subject, { email: `${subject}@Example.org`, email_verified: "TRUE" })
          const first = yield* f.viaIdp(new Browser(), "/api/v2/oauth/idp/login/start", subject)
          expectStatus(first.final, "idp", "created")
          const browser = new Browser()
          const second = yield* f.viaIdp(browser, "/api/v2/oauth/idp/login/start", subject)
          expectStatus(second.final, "idp", "signedin")
          const { body } = yield* f.me(browser)
          expect(body).toMatchObject({ email: `${subject}@example.org`, oauth_only: true, chat_id: null, chat_dm: false })
        }))

      it.effect("login refusals: noemail, unverified (provider and local), inactive, mismatch", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const noEmail = yield* f.viaChat(new Browser(), "/api/v2/oauth/chat/login/start", { id: f.unique("c"), verified: true })
          expectStatus(noEmail.final, "chat", "noemail")

          // chat's verified flag is true only for boolean true.
          const stringTrue = yield* f.viaChat(new Browser(), "/api/v2/oauth/chat/login/start", {
            id: f.unique("c"),
            email: `${f.unique("u")}@example.org`,
            verified: "true"
          })
          expectStatus(stringTrue.final, "chat", "unverified")

          const unverifiedIdp = f.unique("idp")
          f.idp.accounts.set(unverifiedIdp, { email: `${unverifiedIdp}@example.org`, email_verified: false })
          expectStatus((yield* f.viaIdp(new Browser(), "/api/v2/oauth/idp/login/start", unverifiedIdp)).final, "idp", "unverified")

          const localUnverified = yield* f.localUser(`${f.unique("lu")}@example.org`, { isVerified: false })
          const hardening = yield* f.viaChat(new Browser(), "/api/v2/oauth/chat/login/start", {
            id: f.unique("c"),
            email: localUnverified.email,
            verified: true
          })
          expectStatus(hardening.final, "chat", "unverified")
          expect((yield* f.users.findById(localUnverified.id)).pipe((u) => u._tag)).toBe("Some")

          const inactive = yield* f.localUser(`${f.unique("in")}@example.org`, { isActive: false })
          const inactiveResult = yield* f.viaChat(new Browser(), "/api/v2/oauth/chat/login/start", {
            id: f.unique("c"),
            email: inactive.email.toUpperCase(),
            verified: true
          })
          expectStatus(inactiveResult.final, "chat", "inactive")

          // The address belongs to an account tied to another chat identity.
          const owner = f.unique("owner")
          const taken = yield* f.viaChat(new Browser(), "/api/v2/oauth/chat/login/start", {
            id: owner,
            email: `${owner}@example.org`,
            verified: true
          })
          expectStatus(taken.final, "chat", "created")
          const other = yield* f.viaChat(new Browser(), "/api/v2/oauth/chat/login/start", {
            id: f.unique("other"),
            email: `${owner}@example.org`,
            verified: true
          })
          expectStatus(other.final, "chat", "mismatch")
        }))

      it.effect("login onto an existing verified account links it (signedin) and sets the chat address", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const local = yield* f.localUser(`${f.unique("existing")}@example.org`)
          const subject = f.unique("c")
          const browser = new Browser()
          const result = yield* f.viaChat(browser, "/api/v2/oauth/chat/login/start", {
            id: subject,
            email: local.email,
            verified: true
          })
          expectStatus(result.final, "chat", "signedin")
          expect((yield* f.me(browser)).body).toMatchObject({ id: local.id, oauth_only: false, chat_id: subject, chat_dm: true })
          expect(yield* f.auditRecords(local.id)).toEqual([])
        }))

      it.effect("a linked login whose account is deactivated is inactive", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const subject = f.unique("c")
          const browser = new Browser()
          yield* f.viaChat(browser, "/api/v2/oauth/chat/login/start", { id: subject, email: `${subject}@example.org`, verified: true })
          const { body } = yield* f.me(browser)
          yield* f.sql`update users set is_active = false where id = ${String(body.id)}`
          expectStatus((yield* f.viaChat(new Browser(), "/api/v2/oauth/chat/login/start", { id: subject })).final, "chat", "inactive")
        }))

      it.effect("callback rules: cancelled before the state; bad, foreign or unbound states are errors", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const browser = new Browser()
          // The provider sends the user back without a code.
          const denied = yield* f.viaChat(browser, "/api/v2/oauth/chat/login/start", undefined)
          expectStatus(denied.final, "chat", "cancelled")
          const callback = (path: string, b = new Browser()) =>
            promise(() => b.fetch(f.server.url(path)).then((r) => r.headers.get("location") ?? ""))
          expectStatus(yield* callback("/api/v2/oauth/chat/callback?state=garbage"), "chat", "cancelled")
          expectStatus(yield* callback("/api/v2/oauth/idp/callback?code=&state=garbage"), "idp", "cancelled")
          expectStatus(yield* callback("/api/v2/oauth/chat/callback?code=abc"), "chat", "error")
          expectStatus(yield* callback("/api/v2/oauth/chat/callback?code=abc&state=no-dot"), "chat", "error")

          // A real login state, replayed without the binding cookie, or at the other provider.
          const start = yield* promise(() => new Browser().fetch(f.server.url("/api/v2/oauth/chat/login/start")))
          const state = new URL(start.headers.get("location")!).searchParams.get("state")!
          expectStatus(yield* callback(`/api/v2/oauth/chat/callback?code=abc&state=${state}`), "chat", "error")
          const bound = new Browser()
          bound.setCookie(f.server.origin, "oauth_tx_idp", "whatever", "/api/v2")
          expectStatus(yield* callback(`/api/v2/oauth/idp/callback?code=abc&state=${state}`, bound), "idp", "error")
          // The chat callback's legacy address behaves the same.
          expectStatus(yield* callback(`/api/v2/chat/link/callback?code=abc&state=${state}`), "chat", "error")
        }))

      it.effect("exchange failures and an empty subject are errors, never a 5xx", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const faults: ReadonlyArray<["token" | "userinfo", FakeChatProvider.Fault]> = [
            ["token", "status-500"],
            ["token", "no-access-token"],
            ["token", "malformed-json"],
            ["userinfo", "status-302"],
            ["userinfo", "not-an-object"],
            ["userinfo", "reset"]
          ]
          for (const [step, fault] of faults) {
            f.chat.faults[step].push(fault)
            const result = yield* f.viaChat(new Browser(), "/api/v2/oauth/chat/login/start", {
              id: f.unique("c"),
              email: "x@example.org",
              verified: true
            })
            expectStatus(result.final, "chat", "error")
          }
          const noSubject = yield* f.viaChat(new Browser(), "/api/v2/oauth/chat/login/start", {
            email: `${f.unique("ns")}@example.org`,
            verified: true
          })
          expectStatus(noSubject.final, "chat", "error")
        }))

      it.effect("link: linked (also when already this user's), taken, already; another user's session is an error", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const alice = yield* f.localUser(`${f.unique("alice")}@example.org`)
          const bob = yield* f.localUser(`${f.unique("bob")}@example.org`)
          const aliceBrowser = yield* f.browserFor(alice)
          const subject = f.unique("c")
          const linked = yield* f.viaChat(aliceBrowser, "/api/v2/oauth/chat/link/start", { id: subject, email: "a@chat.example" })
          expectStatus(linked.final, "chat", "linked")
          expect(new URL(linked.start.headers.get("location")!).searchParams.get("scope")).toBe("identify")
          expect((yield* f.me(aliceBrowser)).body).toMatchObject({
            chat_id: subject,
            chat_dm: true,
            links: [{ provider: "chat", email: "a@chat.example" }]
          })
          expectStatus((yield* f.viaChat(aliceBrowser, "/api/v2/chat/link/start", { id: subject })).final, "chat", "linked")
          const bobBrowser = yield* f.browserFor(bob)
          expectStatus((yield* f.viaChat(bobBrowser, "/api/v2/oauth/chat/link/start", { id: subject })).final, "chat", "taken")
          expectStatus(
            (yield* f.viaChat(aliceBrowser, "/api/v2/oauth/chat/link/start", { id: f.unique("c2") })).final,
            "chat",
            "already"
          )
          // login/start while signed in is a link.
          const idpSubject = f.unique("idp")
          const viaLogin = yield* f.viaIdp(aliceBrowser, "/api/v2/oauth/idp/login/start", idpSubject)
          expectStatus(viaLogin.final, "idp", "linked")

          // A link state minted for Alice, finished in Bob's browser: error.
          const start = yield* promise(() => aliceBrowser.fetch(f.server.url("/api/v2/oauth/chat/link/start")))
          const state = new URL(start.headers.get("location")!).searchParams.get("state")!
          bobBrowser.setCookie(f.server.origin, "oauth_tx_chat", aliceBrowser.cookie(f.server.origin, "oauth_tx_chat")!, "/api/v2")
          const foreign = yield* promise(() =>
            bobBrowser.fetch(f.server.url(`/api/v2/oauth/chat/callback?code=abc&state=${state}`))
          )
          expectStatus(foreign.headers.get("location")!, "chat", "error")
        }))

      it.effect("unlink: 204 (idempotent), chat clears the address; the last link of a provider-only account is 409", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const subject = f.unique("c")
          const browser = new Browser()
          yield* f.viaChat(browser, "/api/v2/oauth/chat/login/start", { id: subject, email: `${subject}@example.org`, verified: true })
          const post = (path: string, body?: string) =>
            promise(async () => {
              const response = await browser.fetch(f.server.url(path), {
                method: "POST",
                ...(body === undefined ? {} : { body, headers: { "content-type": "application/json" } })
              })
              const text = await response.text()
              return { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as unknown) }
            })
          const refused = yield* post("/api/v2/oauth/chat/unlink")
          expect(refused.status).toBe(409)
          expect((refused.body as { detail: string }).detail).toMatch(/ChatApp/)
          expect((refused.body as { detail: string }).detail).toMatch(/no way to sign in/)
          expect((yield* post("/api/v2/oauth/idp/unlink")).status).toBe(204)

          // With a second link the chat one can go.
          const idpSubject = f.unique("idp")
          expectStatus((yield* f.viaIdp(browser, "/api/v2/oauth/idp/link/start", idpSubject)).final, "idp", "linked")
          expect(yield* post("/api/v2/chat/dm")).toEqual({ status: 200, body: { chat_dm: false } })
          expect(yield* post("/api/v2/chat/dm", JSON.stringify({ enabled: true }))).toEqual({ status: 200, body: { chat_dm: true } })
          expect(yield* post("/api/v2/chat/dm", JSON.stringify({ enabled: true }))).toEqual({ status: 200, body: { chat_dm: true } })
          expect((yield* post("/api/v2/chat/dm", "{bad")).status).toBe(400)
          expect((yield* post("/api/v2/chat/dm", JSON.stringify({ enabled: "yes" }))).status).toBe(400)
          expect((yield* post("/api/v2/chat/unlink")).status).toBe(204)
          expect((yield* f.me(browser)).body).toMatchObject({ chat_id: null, chat_dm: false, links: [{ provider: "idp" }] })
          expect((yield* post("/api/v2/chat/unlink")).status).toBe(204)
          const dm = yield* post("/api/v2/chat/dm")
          expect(dm.status).toBe(409)
          expect((dm.body as { detail: string }).detail).toMatch(/ChatApp/)
          // The idp link is now the last: 409 naming its label.
          const last = yield* post("/api/v2/oauth/idp/unlink")
          expect(last.status).toBe(409)
          expect((last.body as { detail: string }).detail).toMatch(/Example ID/)
        }))

      it.effect("a linked user that no longer exists is an error", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const local = yield* f.localUser(`${f.unique("gone")}@example.org`)
          const subject = f.unique("c")
          yield* f.viaChat(yield* f.browserFor(local), "/api/v2/oauth/chat/link/start", { id: subject })
          // The foreign key would remove the link with the user; without it the link is left orphaned,
          // as a database restored from an inconsistent backup could leave it.
          yield* f.sql`alter table oauth_accounts drop constraint oauth_accounts_user_id_fkey`
          yield* f.sql`delete from users where id = ${local.id}`
          const result = yield* f.viaChat(new Browser(), "/api/v2/oauth/chat/login/start", { id: subject })
          expectStatus(result.final, "chat", "error")
          yield* f.sql`delete from oauth_accounts where user_id = ${local.id}`
          yield* f.sql`alter table oauth_accounts add constraint oauth_accounts_user_id_fkey foreign key (user_id) references users (id) on delete cascade`
        }))

      it.effect("races: two users linking one identity get one linked and one taken", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const subject = f.unique("race")
          const a = yield* f.browserFor(yield* f.localUser(`${f.unique("ra")}@example.org`))
          const b = yield* f.browserFor(yield* f.localUser(`${f.unique("rb")}@example.org`))
          // Both authorize first, then both callbacks land at once.
          f.chat.profile = { id: subject }
          const callbackOf = (browser: Browser) =>
            promise(async () => {
              const start = await browser.fetch(f.server.url("/api/v2/oauth/chat/link/start"))
              const done = await browser.follow(start.headers.get("location")!, {
                stop: (u) => u.pathname.endsWith("/callback")
              })
              return done.url
            })
          const [ca, cb] = [yield* callbackOf(a), yield* callbackOf(b)]
          const outcomes = yield* promise(() =>
            Promise.all([a.fetch(ca), b.fetch(cb)].map((p) => p.then((r) => alerts(r.headers.get("location")!).query.oauth)))
          )
          expect(outcomes.sort()).toEqual(["linked", "taken"])
        }))

      it.effect("races: ten parallel first logins of one identity make one account and one auth.register", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const subject = f.unique("ten")
          const email = `${subject}@example.org`
          f.chat.profile = { id: subject, email, verified: true }
          const browsers = Array.from({ length: 10 }, () => new Browser())
          const callbacks = yield* promise(() =>
            Promise.all(
              browsers.map(async (browser) => {
                const start = await browser.fetch(f.server.url("/api/v2/oauth/chat/login/start"))
                return (await browser.follow(start.headers.get("location")!, { stop: (u) => u.pathname.endsWith("/callback") })).url
              })
            )
          )
          const responses = yield* promise(() => Promise.all(browsers.map((browser, i) => browser.fetch(callbacks[i]!))))
          const outcomes = responses.map((r) => alerts(r.headers.get("location")!).query.oauth).sort()
          expect(outcomes).toEqual(["created", ...Array.from({ length: 9 }, () => "signedin")])
          const rows = yield* f.sql<{ id: string }>`select id from users where email = ${email}`
          expect(rows).toHaveLength(1)
          expect(yield* f.auditRecords(rows[0]!.id)).toHaveLength(1)
          const ids = yield* Effect.forEach(browsers, (browser) => Effect.map(f.me(browser), (m) => m.body.id))
          expect(new Set(ids)).toEqual(new Set([rows[0]!.id]))
        }))

      it.effect("races: two unlinks at once of a provider-only account's two links: one 204, one 409", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const subject = f.unique("two")
          const browser = new Browser()
          const created = yield* f.viaChat(browser, "/api/v2/oauth/chat/login/start", { id: subject, email: `${subject}@example.org`, verified: true })
          expectStatus(created.final, "chat", "created")
          expectStatus((yield* f.viaIdp(browser, "/api/v2/oauth/idp/link/start", f.unique("idp"))).final, "idp", "linked")
          const statuses = yield* promise(() =>
            Promise.all(
              ["/api/v2/oauth/chat/unlink", "/api/v2/oauth/idp/unlink"].map((path) =>
                browser.fetch(f.server.url(path), { method: "POST" }).then((r) => r.status)
              )
            )
          )
          expect(statuses.sort()).toEqual([204, 409])
          expect(((yield* f.me(browser)).body.links as Array<unknown>).length).toBe(1)
        }))

      it.effect("races: ten DM toggles at once flip ten times", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const subject = f.unique("dm")
          const browser = new Browser()
          yield* f.viaChat(browser, "/api/v2/oauth/chat/login/start", { id: subject, email: `${subject}@example.org`, verified: true })
          const answers = yield* promise(() =>
            Promise.all(
              Array.from({ length: 10 }, () =>
                browser.fetch(f.server.url("/api/v2/chat/dm"), { method: "POST" }).then((r) => r.json() as Promise<{ chat_dm: boolean }>)
              )
            )
          )
          expect(answers.filter((a) => a.chat_dm).length).toBe(5)
          expect((yield* f.me(browser)).body.chat_dm).toBe(true)
        }))

      it.effect("a stale session cookie does not hide a valid bearer token; logout ends both", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const user = yield* f.localUser(`${f.unique("bearer")}@example.org`)
          const token = yield* f.tokenFor(user)
          const headers = { cookie: "session=stale", authorization: `Bearer ${token}` }
          const send = (path: string, method = "GET") =>
            promise(() => fetch(f.server.url(path), { method, headers, redirect: "manual" }))
          const start = yield* send("/api/v2/oauth/chat/link/start")
          expect(start.status).toBe(303)
          expect(new URL(start.headers.get("location")!).searchParams.get("scope")).toBe("identify")
          expect((yield* send("/api/v2/oauth/idp/unlink", "POST")).status).toBe(204)
          expect((yield* send("/api/v2/auth/logout", "POST")).status).toBe(204)
          expect((yield* send("/api/v2/users/me")).status).toBe(401)
        }))

      it.effect("a NUL character from a client or a provider is a refusal, never a server error", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const login = yield* promise(() =>
            fetch(f.server.url("/api/v2/auth/login"), {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ email: "nul\u0000@example.org", password: "x" })
            })
          )
          // Refused before the rule runs: no text can hold it (StorableInput), a 400 with its own detail.
          expect(login.status).toBe(400)
          expect(yield* promise(() => login.json())).toEqual({
            detail: 'The body\'s "email" contains a NUL character (U+0000), which cannot be stored; send text without it.',
            code: "invalid-text"
          })
          const subject = yield* f.viaChat(new Browser(), "/api/v2/oauth/chat/login/start", { id: "a\u0000b", email: "nul@example.org", verified: true })
          expectStatus(subject.final, "chat", "error")
          const email = yield* f.viaChat(new Browser(), "/api/v2/oauth/chat/login/start", { id: f.unique("n"), email: "a\u0000b@example.org", verified: true })
          expectStatus(email.final, "chat", "noemail")
        }))

      it.effect("a state minted before browser binding and `pr` still verifies, and sends no PKCE verifier", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const payload = Buffer.from(JSON.stringify({ u: "", t: Math.floor(Date.now() / 1000), p: "login" })).toString("base64url")
          const legacy = `${payload}.${createHmac("sha256", AUTH_SECRET).update(payload).digest("hex").slice(0, 32)}`
          const subject = f.unique("legacy")
          f.chat.profile = { id: subject, email: `${subject}@example.org`, verified: true }
          // The provider's authorize step as an older frontend's start sent it: no PKCE challenge.
          const authorize = new URL(f.chat.authorizeUrl)
          authorize.search = new URLSearchParams({
            client_id: f.chat.clientId,
            redirect_uri: `${f.server.origin}/api/v2/chat/link/callback`,
            response_type: "code",
            scope: "identify email",
            state: legacy
          }).toString()
          const done = yield* promise(() => new Browser().follow(authorize.href, { stop: (u) => u.pathname.endsWith("/alerts") }))
          expectStatus(done.url, "chat", "created")
          const token = f.chat.requests.filter((r) => r.path === "/oauth2/token").at(-1)!
          expect(token.form.code_verifier).toBeUndefined()
        }))

      it.effect("a repeated code or state counts by its first value: still a redirect", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const location = (path: string) =>
            promise(() => fetch(f.server.url(path), { redirect: "manual" }).then((r) => [r.status, r.headers.get("location") ?? ""] as const))
          const [cancelledStatus, cancelled] = yield* location("/api/v2/oauth/chat/callback?code=&code=abc&state=x")
          expect(cancelledStatus).toBe(303)
          expectStatus(cancelled, "chat", "cancelled")
          const [errorStatus, error] = yield* location("/api/v2/oauth/idp/callback?code=a&code=b&state=x&state=y")
          expect(errorStatus).toBe(303)
          expectStatus(error, "idp", "error")
        }))

      it.effect("without a Host header the redirect_uri names the address the server was reached on", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          // An HTTP/1.0 request, which may omit Host (Node refuses HTTP/1.1 without one).
          const port = new URL(f.server.origin).port
          const answer = yield* promise(
            () =>
              new Promise<string>((done, fail) => {
                let text = ""
                const socket = connect(Number(port), "127.0.0.1", () => socket.end("GET /api/v2/oauth/chat/login/start HTTP/1.0\r\n\r\n"))
                socket.on("data", (d) => (text += d))
                socket.on("end", () => done(text))
                socket.on("error", fail)
              })
          )
          expect(answer).toMatch(/^HTTP\/1\.[01] 303 /)
          const location = /^location: (.*)$/im.exec(answer)![1]!.trim()
          expect(new URL(location).searchParams.get("redirect_uri")).toBe(
            `${f.server.origin}/api/v2/chat/link/callback`
          )
        }))

      it.effect("states through real HTTP: expired (601 s), a broken MAC, a link callback without a session are errors; 590 s is accepted", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const now = Math.floor(Date.now() / 1000)
          /** A state as the service mints it, for the binding cookie `cookie`, `age` seconds old. */
          const mint = (claims: Record<string, unknown>, cookie: string, age: number) => {
            const n = createHash("sha256").update(cookie).digest("hex").slice(0, 32)
            const payload = Buffer.from(JSON.stringify({ ...claims, t: now - age, n })).toString("base64url")
            return `${payload}.${createHmac("sha256", AUTH_SECRET).update(payload).digest("hex").slice(0, 32)}`
          }
          /** Through the chat provider with a state of the test's own, back to the account redirect. */
          const finish = (browser: Browser, state: string, profile: FakeChatProvider.ChatProfile) =>
            promise(async () => {
              f.chat.profile = profile
              const authorize = new URL(f.chat.authorizeUrl)
              authorize.search = new URLSearchParams({
                client_id: f.chat.clientId,
                redirect_uri: `${f.server.origin}/api/v2/chat/link/callback`,
                response_type: "code",
                state
              }).toString()
              return (await browser.follow(authorize.href, { stop: (u) => u.pathname.endsWith("/alerts") })).url
            })
          const bound = () => {
            const browser = new Browser()
            browser.setCookie(f.server.origin, "oauth_tx_chat", "a-binding-cookie", "/api/v2")
            return browser
          }
          const subject = f.unique("age")
          const profile = { id: subject, email: `${subject}@example.org`, verified: true }
          const login = { u: "", p: "login", pr: "chat" }
          expectStatus(yield* finish(bound(), mint(login, "a-binding-cookie", 601), profile), "chat", "error")
          // The exact 600/601 boundary is checked under TestClock (SignedState.test); here the
          // wall clock runs on while the request travels, so the accepted state keeps a margin.
          const good = mint(login, "a-binding-cookie", 590)
          const broken = `${good.slice(0, -1)}${good.endsWith("0") ? "1" : "0"}`
          expectStatus(yield* finish(bound(), broken, profile), "chat", "error")
          expectStatus(yield* finish(bound(), good, profile), "chat", "created")

          // A link state for a real user, finished in a browser with the binding but no session.
          const user = yield* f.localUser(`${f.unique("nosession")}@example.org`)
          const link = mint({ u: user.id, p: "link", pr: "chat" }, "a-binding-cookie", 5)
          expectStatus(yield* finish(bound(), link, { id: f.unique("c") }), "chat", "error")
        }))

      it.effect("an inactive user's session is no session: 401 where one is needed, a login elsewhere", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const user = yield* f.localUser(`${f.unique("off")}@example.org`)
          const browser = yield* f.browserFor(user)
          yield* f.sql`update users set is_active = false where id = ${user.id}`
          for (const [method, path] of [
            ["GET", "/api/v2/oauth/chat/link/start"],
            ["GET", "/api/v2/chat/link/start"],
            ["POST", "/api/v2/oauth/idp/unlink"],
            ["POST", "/api/v2/chat/dm"],
            ["GET", "/api/v2/users/me"]
          ] as const) {
            const response = yield* promise(() => browser.fetch(f.server.url(path), { method }))
            expect([path, response.status]).toEqual([path, 401])
            expect(yield* promise(() => response.json())).toEqual({ detail: "Unauthorized", code: "unauthorized" })
          }
          const start = yield* promise(() => browser.fetch(f.server.url("/api/v2/oauth/chat/login/start")))
          expect(new URL(start.headers.get("location")!).searchParams.get("scope")).toBe("identify email")
        }))

      it.effect("no secret appears in any response: client secrets, AUTH_SECRET, provider access tokens", () =>
        Effect.gen(function* () {
          const f = yield* fixture
          const seen: Array<string> = []
          const record = async (response: Response) => {
            seen.push([...response.headers].map(([k, v]) => `${k}: ${v}`).join("\n"), await response.clone().text())
          }
          const browser = new Browser()
          const subject = f.unique("s")
          f.chat.profile = { id: subject, email: `${subject}@example.org`, verified: true }
          yield* promise(async () => {
            const start = await browser.fetch(f.server.url("/api/v2/oauth/chat/login/start"))
            await record(start)
            const done = await browser.follow(start.headers.get("location")!, { stop: (u) => u.pathname.endsWith("/alerts") })
            for (const path of ["/api/v2/users/me", "/api/v2/oauth/config", "/api/v2/openapi.json", "/api/v2/docs"]) {
              await record(await browser.fetch(f.server.url(path)))
            }
            return done
          })
          const secrets = [f.chat.clientSecret, f.idp.clientSecret, AUTH_SECRET, ...f.chat.accessTokens]
          expect(f.chat.accessTokens.length).toBeGreaterThan(0)
          for (const secret of secrets) for (const text of seen) expect(text).not.toContain(secret)
        }))
    })
  })
}

for (const backend of backends) describe(`a deployment under BASE_PATH with PUBLIC_ORIGIN and idp not configured, on ${backend.name}`, () => {
  layer(world(backend, { BASE_PATH: "/grades", PUBLIC_ORIGIN: "https://grades.example.org", IDP_CLIENT_SECRET: " " }), {
    timeout: 120_000
  })((it) => {
    it.effect("redirects carry the base path; redirect_uri comes from PUBLIC_ORIGIN; idp is unavailable everywhere", () =>
      Effect.gen(function* () {
        const f = yield* fixture
        const server = f.server
        const get = (path: string, headers: Record<string, string> = {}) =>
          promise(() => fetch(server.url(path), { redirect: "manual", headers }))
        const start = yield* rawGet(server.url("/grades/api/v2/oauth/chat/login/start"), { host: "evil.example" })
        expect(new URL(start.headers.location!).searchParams.get("redirect_uri")).toBe(
          "https://grades.example.org/grades/api/v2/chat/link/callback"
        )
        expect(start.headers["set-cookie"]![0]).toMatch(/Path=\/grades\/api\/v2;/)
        const config = yield* promise(() => fetch(server.url("/grades/api/v2/oauth/config")).then((r) => r.json()))
        expect(config).toEqual({
          providers: [
            { name: "chat", label: "ChatApp", enabled: true },
            { name: "idp", label: "Example ID", enabled: false }
          ]
        })
        const token = yield* f.tokenFor(yield* f.localUser("based@example.org"))
        for (const path of ["/grades/api/v2/oauth/idp/login/start", "/grades/api/v2/oauth/idp/callback?code=x&state=y"]) {
          expectStatus((yield* get(path)).headers.get("location")!, "idp", "unavailable", "/grades")
        }
        const linkStart = yield* get("/grades/api/v2/oauth/idp/link/start", { cookie: `session=${token}` })
        expectStatus(linkStart.headers.get("location")!, "idp", "unavailable", "/grades")
        // Unlink does not need the provider configured.
        const unlink = yield* promise(() =>
          fetch(server.url("/grades/api/v2/oauth/idp/unlink"), { method: "POST", headers: { cookie: `session=${token}` } })
        )
        expect(unlink.status).toBe(204)
        expectStatus(
          (yield* get("/grades/api/v2/oauth/chat/callback?state=x")).headers.get("location")!,
          "chat",
          "cancelled",
          "/grades"
        )
      }))
  })
})

describe("proxy trust: X-Forwarded-Proto counts only from a trusted proxy; Host is always the client's", () => {
  const pglite = backends.find((b) => b.name === "pglite")!
  const forged = { host: "evil.example", "x-forwarded-proto": "https" }
  const redirectUriOf = (location: string | undefined) => new URL(location!).searchParams.get("redirect_uri")

  describe("directly at the service (TRUSTED_PROXY_HOPS=0), in production without PUBLIC_ORIGIN", () => {
    const logs: Array<string> = []
    layer(world(pglite, { NODE_ENV: "production" }, logs), { timeout: 120_000 })((it) => {
      it.effect("a client's X-Forwarded-Proto is ignored; its Host is followed, which start-up warned about", () =>
        Effect.gen(function* () {
          const { server } = yield* fixture
          const start = yield* rawGet(server.url("/api/v2/oauth/chat/login/start"), forged)
          expect(start.status).toBe(303)
          expect(redirectUriOf(start.headers.location)).toBe("http://evil.example/api/v2/chat/link/callback")
          expect(start.headers["set-cookie"]![0]).not.toMatch(/Secure/)
          expect(start.headers["strict-transport-security"]).toBeUndefined()
          expect(logs.filter((line) => /PUBLIC_ORIGIN is not set \(NODE_ENV=production\)/.test(line))).toHaveLength(1)
        }))
    })
  })

  describe("behind one trusted proxy (TRUSTED_PROXY_HOPS=1)", () => {
    const logs: Array<string> = []
    layer(world(pglite, { TRUSTED_PROXY_HOPS: "1" }, logs), { timeout: 120_000 })((it) => {
      it.effect("the proxy's X-Forwarded-Proto is honoured: https redirect URI, Secure cookies, HSTS; a client's entry left of it is not", () =>
        Effect.gen(function* () {
          const { server } = yield* fixture
          const start = yield* rawGet(server.url("/api/v2/oauth/chat/login/start"), { host: "grades.example.org", "x-forwarded-proto": "https" })
          expect(redirectUriOf(start.headers.location)).toBe("https://grades.example.org/api/v2/chat/link/callback")
          expect(start.headers["set-cookie"]![0]).toMatch(/; Secure;/)
          expect(start.headers["strict-transport-security"]).toMatch(/^max-age=\d{7,}/)
          // A proxy that appends: the client wrote "https", the proxy saw plain http.
          const appended = yield* rawGet(server.url("/api/v2/oauth/chat/login/start"), {
            host: "grades.example.org",
            "x-forwarded-proto": "https, http"
          })
          expect(redirectUriOf(appended.headers.location)).toBe("http://grades.example.org/api/v2/chat/link/callback")
          expect(appended.headers["strict-transport-security"]).toBeUndefined()
          // No warning outside production.
          expect(logs.some((line) => line.includes("PUBLIC_ORIGIN is not set"))).toBe(false)
        }))
    })
  })
})

describe("log lines", () => {
  const pglite = backends.find((b) => b.name === "pglite")!
  const logs: Array<string> = []
  layer(world(pglite, {}, logs), { timeout: 120_000 })((it) => {
    it.effect("carry no secret, at any level, through sign-in, linking and a failed exchange", () =>
      Effect.gen(function* () {
        const f = yield* fixture
        const subject = f.unique("log")
        const browser = new Browser()
        expectStatus(
          (yield* f.viaChat(browser, "/api/v2/oauth/chat/login/start", { id: subject, email: `${subject}@example.org`, verified: true })).final,
          "chat",
          "created"
        )
        expectStatus((yield* f.viaIdp(browser, "/api/v2/oauth/idp/link/start", f.unique("idp"))).final, "idp", "linked")
        f.chat.faults.userinfo.push("status-500")
        expectStatus((yield* f.viaChat(new Browser(), "/api/v2/oauth/chat/login/start", { id: "x" })).final, "chat", "error")
        const session = browser.cookie(f.server.origin, "session")!
        const secrets = [f.chat.clientSecret, f.idp.clientSecret, AUTH_SECRET, session, ...f.chat.accessTokens]
        expect(logs.some((line) => line.includes("exchange failed"))).toBe(true)
        for (const secret of secrets) for (const line of logs) expect(line).not.toContain(secret)
      }))
  })
})

for (const backend of backends) describe(`chat not configured: every chat start and callback route, legacy aliases too, is unavailable, on ${backend.name}`, () => {
  layer(world(backend, { CHAT_CLIENT_ID: "" }), { timeout: 120_000 })((it) => {
    it.effect("unavailable on start and callback; unlink and the DM switch still answer", () =>
      Effect.gen(function* () {
        const f = yield* fixture
        const server = f.server
        const token = yield* f.tokenFor(yield* f.localUser("nochat@example.org"))
        const send = (path: string, method = "GET") =>
          promise(() => fetch(server.url(path), { method, redirect: "manual", headers: { cookie: `session=${token}` } }))
        for (const path of [
          "/api/v2/oauth/chat/login/start",
          "/api/v2/oauth/chat/link/start",
          "/api/v2/oauth/chat/callback?code=x&state=y",
          "/api/v2/chat/login/start",
          "/api/v2/chat/link/start",
          "/api/v2/chat/link/callback?code=x&state=y",
          "/api/v2/chat/link/callback"
        ]) {
          const response = yield* send(path)
          expect([path, response.status]).toEqual([path, 303])
          expectStatus(response.headers.get("location")!, "chat", "unavailable")
        }
        // The provider needs no configuration to be unlinked; without a link, DMs cannot be switched.
        expect((yield* send("/api/v2/chat/unlink", "POST")).status).toBe(204)
        const dm = yield* send("/api/v2/chat/dm", "POST")
        expect(dm.status).toBe(409)
        expect(((yield* promise(() => dm.json())) as { detail: string }).detail).toMatch(/ChatApp/)
      }))
  })
})
