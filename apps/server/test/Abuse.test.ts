/**
 * Abuse resistance over real HTTP, on PGlite and PostgreSQL: password guessing is throttled per
 * account and per client address (counted in the database, shared by instances), and browsers
 * cannot post state changes from another site.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, layer } from "@effect/vitest"
import { PasswordHasher, Users } from "@climate-grade/core"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { backends } from "@climate-grade/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const http = (input: string, init?: RequestInit) => Effect.promise(() => fetch(input, { redirect: "manual", ...init }))
const json = (response: Response) => Effect.promise(() => response.json() as Promise<{ detail?: string }>)

const createUser = (email: string, password: string) =>
  Effect.gen(function* () {
    const hasher = yield* PasswordHasher
    return yield* (yield* Users).create({
      email,
      hashedPassword: yield* hasher.hash(password),
      isActive: true,
      isSuperuser: false,
      isVerified: true,
      oauthOnly: false
    })
  })

const login = (origin: string, email: string, password: string, headers: Record<string, string> = {}) =>
  http(`${origin}/api/v2/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ email, password })
  })

const sessionToken = (response: Response) => /(?:^|;\s*)session=([^;]+)/.exec(response.headers.get("set-cookie") ?? "")?.[1]

/**
 * The window is long enough that a test's attempts all fall in one window on a loaded machine;
 * each test speaks from client addresses of its own (through one trusted proxy hop), so tests
 * do not share an address's count.
 */
const THROTTLE = {
  LOGIN_ACCOUNT_FAILURES: "3",
  LOGIN_ADDRESS_FAILURES: "8",
  LOGIN_WINDOW_SECONDS: "10"
}
const from = (address: string) => ({ "x-forwarded-for": address })

/** The server under test and, over the same database, its SqlClient (for a second instance). */
const world = (backend: (typeof backends)[number], env: Record<string, string>) =>
  Layer.mergeAll(testServerLayer({ ...THROTTLE, ...env }, backend.layer), backend.layer)

for (const backend of backends) {
  describe(`password guessing on ${backend.name}`, () => {
    layer(world(backend, { TRUSTED_PROXY_HOPS: "1" }), { timeout: 120_000 })((it) => {
      it.effect("past the account's limit: 429 with Retry-After, the same for a known and an unknown address", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* createUser("owner@example.org", "correct horse")
          const answers: Array<[number, string | null, string | undefined]> = []
          for (const [email, address] of [
            ["owner@example.org", "10.0.1.1"],
            ["ghost@example.org", "10.0.1.2"]
          ] as const) {
            for (let i = 0; i < 5; i++) {
              const response = yield* login(server.origin, email, "wrong horse", from(address))
              answers.push([response.status, response.headers.get("retry-after"), (yield* json(response)).detail])
            }
          }
          const [known, unknown] = [answers.slice(0, 5), answers.slice(5)]
          expect(known.map(([status]) => status)).toEqual([400, 400, 400, 429, 429])
          expect(unknown.map(([status]) => status)).toEqual(known.map(([status]) => status))
          for (const [status, retryAfter, detail] of [...known, ...unknown]) {
            if (status !== 429) continue
            expect(Number(retryAfter)).toBeGreaterThanOrEqual(1)
            expect(Number(retryAfter)).toBeLessThanOrEqual(10)
            expect(detail).toBe(`Too many failed sign-in attempts; try again in ${retryAfter} seconds.`)
          }

          // The right password is refused too while the account is locked, from anywhere...
          const locked = yield* login(server.origin, "Owner@Example.org ", "correct horse", from("10.0.1.3"))
          expect(locked.status).toBe(429)
          // ...and accepted once the window has passed; a success starts the count over.
          yield* Effect.sleep(`${Number(locked.headers.get("retry-after"))} seconds`)
          const allowed = yield* login(server.origin, "owner@example.org", "correct horse", from("10.0.1.3"))
          expect(allowed.status).toBe(204)
          for (let i = 0; i < 3; i++) {
            expect((yield* login(server.origin, "owner@example.org", "wrong", from("10.0.1.3"))).status).toBe(400)
          }
        }))

      it.effect("any e-mail a client sends (long, odd unicode) is counted, never a server error; one no text can hold is refused first", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          for (const email of ["x".repeat(20_000), "\u{1F600}@example.org", ""]) {
            const response = yield* login(server.origin, email, "guess", from("10.0.2.1"))
            expect(response.status).toBe(400)
            expect(yield* json(response)).toEqual({ detail: "LOGIN_BAD_CREDENTIALS" })
          }
          for (const email of ["nul\u0000@example.org", "\ud800@example.org"]) {
            const response = yield* login(server.origin, email, "guess", from("10.0.2.1"))
            expect(response.status).toBe(400)
            expect((yield* json(response)).detail).toMatch(/^The body's "email" contains /)
          }
        }))

      it.effect("instances on one database share the count", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const database = yield* Effect.context<SqlClient.SqlClient>()
          const second = yield* Layer.build(
            testServerLayer({ ...THROTTLE, TRUSTED_PROXY_HOPS: "1" }, Layer.succeedContext(database))
          )
          const other = Context.get(second, TestServer)
          const statuses: Array<number> = []
          for (const origin of [server.origin, other.origin, server.origin, other.origin]) {
            statuses.push((yield* login(origin, "shared@example.org", "guess", from("10.0.3.1"))).status)
          }
          expect(statuses).toEqual([400, 400, 400, 429])
        }).pipe(Effect.scoped))

      it.effect("behind a trusted proxy, the client is the address the proxy appended", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const spray = (address: string, n: number) =>
            Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) =>
              login(server.origin, `p${address}-${i}@example.org`, "guess", {
                "x-forwarded-for": `203.0.113.77, ${address}`
              }).pipe(Effect.map((r) => r.status))
            )
          expect(yield* spray("192.0.2.10", 9)).toEqual([400, 400, 400, 400, 400, 400, 400, 400, 429])
          // Another client behind the same proxy is not held back by the first one's failures.
          expect(yield* spray("192.0.2.11", 1)).toEqual([400])
        }))
    })

    layer(world(backend, {}), { timeout: 120_000 })((it) => {
      it.effect("one client address spraying many accounts is stopped at its limit; x-forwarded-for is not trusted", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const statuses: Array<number> = []
          for (let i = 0; i < 10; i++) {
            const response = yield* login(server.origin, `spray${i}@example.org`, "guess", from(`198.51.100.${i}`))
            statuses.push(response.status)
          }
          expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 400, 400, 429, 429])
        }))
    })
  })

  describe(`cross-site requests on ${backend.name}`, () => {
    layer(world(backend, {}), { timeout: 120_000 })((it) => {
      const signedIn = (email: string) =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* createUser(email, "correct horse")
          return sessionToken(yield* login(server.origin, email, "correct horse"))!
        })

      it.effect("a login posted by another site is refused with 403; same-site, header-less and safe requests pass", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* createUser("victim@example.org", "correct horse")
          for (const headers of [
            { origin: "https://evil.example" },
            { origin: "null" },
            { origin: server.origin.replace("127.0.0.1", "localhost") },
            { "sec-fetch-site": "cross-site" },
            { "sec-fetch-site": "cross-site", origin: server.origin }
          ]) {
            const response = yield* login(server.origin, "victim@example.org", "correct horse", headers)
            expect(response.status).toBe(403)
            expect(response.headers.get("set-cookie")).toBeNull()
            expect((yield* json(response)).detail).toMatch(/^Cross-site request refused: /)
          }
          for (const headers of [{}, { origin: server.origin }, { "sec-fetch-site": "same-origin", origin: server.origin }]) {
            expect((yield* login(server.origin, "victim@example.org", "correct horse", headers)).status).toBe(204)
          }
          const health = yield* http(server.url("/api/v2/health"), { headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" } })
          expect(health.status).toBe(200)
        }))

      it.effect("logout, unlink and the DM switch with a session cookie are refused from another site; a bearer token is not a cookie", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const token = yield* signedIn("member@example.org")
          const evil = { origin: "https://evil.example", "sec-fetch-site": "cross-site", cookie: `session=${token}` }
          for (const path of ["/api/v2/auth/logout", "/api/v2/oauth/chat/unlink", "/api/v2/chat/unlink", "/api/v2/chat/dm"]) {
            const response = yield* http(server.url(path), { method: "POST", headers: evil })
            expect(response.status, path).toBe(403)
            expect((yield* json(response)).detail).toMatch(/^Cross-site request refused: /)
          }
          // Nothing happened: the session still works.
          const me = yield* http(server.url("/api/v2/users/me"), { headers: { cookie: `session=${token}` } })
          expect(me.status).toBe(200)
          // Without browser headers, or with a bearer token, the same requests go through.
          expect((yield* http(server.url("/api/v2/chat/dm"), { method: "POST", headers: { cookie: `session=${token}` } })).status).toBe(409)
          const bearer = yield* http(server.url("/api/v2/chat/unlink"), {
            method: "POST",
            headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site", authorization: `Bearer ${token}` }
          })
          expect(bearer.status).toBe(204)
        }))
    })

    layer(world(backend, { PUBLIC_ORIGIN: "https://grades.example.org" }), { timeout: 120_000 })((it) => {
      it.effect("with PUBLIC_ORIGIN, that origin is the site, whatever the Host header says", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* createUser("public@example.org", "correct horse")
          const same = yield* login(server.origin, "public@example.org", "correct horse", { origin: "https://grades.example.org" })
          expect(same.status).toBe(204)
          const byHost = yield* login(server.origin, "public@example.org", "correct horse", { origin: server.origin })
          expect(byHost.status).toBe(403)
        }))
    })
  })
}
