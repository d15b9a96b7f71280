/**
 * A rotation of AUTH_SECRET end to end, on PGlite and PostgreSQL: a sign-in started on a server
 * with secret A finishes on the same address restarted with AUTH_SECRET=B and
 * AUTH_SECRET_PREVIOUS=A; sessions and known-device cookies survive; once A is dropped, what it
 * alone signed is refused and what B signed still holds.
 */
import type { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { PasswordHasher, Users } from "@climate-grade/core"
import { backends, Browser, FakeChatProvider, FakeEnv } from "@climate-grade/testing"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"

const A = "the first secret, at least thirty-two characters"
const B = "the second secret, at least thirty-two characters"

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

/** The device id of the known-device cookie's first entry (`<device>.<issued>.<mac>`). */
const deviceOf = (cookie: string | undefined) => cookie?.split("~")[0]?.split(".")[0]

for (const backend of backends) {
  describe(`secret rotation on ${backend.name}`, () => {
    layer(backend.layer, { timeout: 180_000 })((it) => {
      it.scoped("a sign-in started before a rotation finishes after it; sessions and known devices survive; a dropped secret's states do not", () =>
        Effect.gen(function* () {
          const database = yield* Effect.context<SqlClient.SqlClient>()
          const chat = yield* FakeChatProvider.make()
          /** The service on `port` (0: any), with `secrets`, until `close`. */
          const serve = (port: number, secrets: Record<string, string>) =>
            Effect.gen(function* () {
              const scope = yield* Scope.make()
              const env = { PORT: String(port), ...FakeEnv.provider("CHAT", chat), ...secrets }
              const context = yield* Layer.buildWithScope(testServerLayer(env, Layer.succeedContext(database)), scope)
              const server = Context.get(context, TestServer)
              return { server, context, port: Number(new URL(server.origin).port), close: Scope.close(scope, Exit.void) }
            })

          const a = yield* serve(0, { AUTH_SECRET: A })
          const origin = a.server.origin
          const url = (path: string) => `${origin}${path}`
          const me = (browser: Browser) => promise(() => browser.fetch(url("/api/v2/users/me")).then((r) => r.status))
          /** Up to the service's callback, which is not requested: the service restarts first. */
          const startChat = (browser: Browser, subject: string) =>
            promise(async () => {
              chat.profile = { id: subject, email: `${subject}@example.org`, verified: true }
              const start = await browser.fetch(url("/api/v2/oauth/chat/login/start"))
              expect(start.status).toBe(303)
              const toCallback = await browser.follow(start.headers.get("location")!, { stop: (u) => u.origin === origin })
              expect(new URL(toCallback.url).pathname).toBe("/api/v2/chat/link/callback")
              return toCallback.url
            })
          /** The callback, then the account page's query: its `oauth` status. */
          const finish = (browser: Browser, callback: string) =>
            promise(async () => {
              const done = await browser.follow(callback, { stop: (u) => u.pathname.endsWith("/alerts") })
              return new URL(done.url).searchParams.get("oauth")
            })
          const passwordLogin = (browser: Browser) =>
            promise(async () => {
              const response = await browser.fetch(url("/api/v2/auth/login"), {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ email: "rotation@example.org", password: "a password" })
              })
              expect(response.status).toBe(204)
              return deviceOf(browser.cookie(origin, "known_device"))
            })

          // On A: a password account signs in (a session and a known device), two chat sign-ins start.
          yield* Effect.gen(function* () {
            const users = yield* Users
            const hasher = yield* PasswordHasher
            yield* users.create({
              email: "rotation@example.org",
              hashedPassword: yield* hasher.hash("a password"),
              isActive: true,
              isSuperuser: false,
              isVerified: true,
              oauthOnly: false
            })
          }).pipe(Effect.provide(a.context))
          const owner = new Browser()
          const device = yield* passwordLogin(owner)
          expect(device).toMatch(/^[A-Za-z0-9_-]{16,64}$/)
          const inFlight = new Browser()
          const inFlightCallback = yield* startChat(inFlight, "rotation-in-flight")
          const stranded = new Browser()
          const strandedCallback = yield* startChat(stranded, "rotation-stranded")
          yield* a.close

          // The same address restarted with B, A kept as the previous secret.
          const b = yield* serve(a.port, { AUTH_SECRET: B, AUTH_SECRET_PREVIOUS: A })
          expect(b.server.origin).toBe(origin)
          expect(yield* finish(inFlight, inFlightCallback)).toBe("created")
          expect(yield* me(inFlight)).toBe(200)
          expect(yield* me(owner)).toBe(200)
          // The device signed with A is recognised (its id kept), and its entry is now signed with B.
          expect(yield* passwordLogin(owner)).toBe(device)
          // A sign-in started now is signed with B.
          const fresh = new Browser()
          const freshCallback = yield* startChat(fresh, "rotation-fresh")
          yield* b.close

          // The rotation finished: A dropped.
          const c = yield* serve(a.port, { AUTH_SECRET: B })
          expect(yield* finish(fresh, freshCallback)).toBe("created")
          expect(yield* finish(stranded, strandedCallback)).toBe("error")
          expect(yield* me(stranded)).toBe(401)
          expect(yield* me(inFlight)).toBe(200)
          expect(yield* me(owner)).toBe(200)
          expect(yield* passwordLogin(owner)).toBe(device)
          yield* c.close
        })
      )
    })
  })
}
