/**
 * Abuse resistance over real HTTP, on PGlite and PostgreSQL: password guessing is throttled per
 * (account, client address) pair and per client address, the account as a whole only slowed and a
 * browser that signed in before counted on its own, so no stranger can lock the owner out (counted
 * in the database, shared by instances); browsers cannot post state changes from another site.
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

/** The known-device cookie a sign-in answer sets. */
const knownDevice = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((c) => /^known_device=([^;]+)/.exec(c)?.[1])
    .find((v) => v !== undefined)

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
      it.effect("a stranger cannot lock the owner out: not from another address, not from the stranger's own with the owner's browser, not in advance", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* createUser("owner@example.org", "correct horse")
          // The owner signed in once at home: the browser keeps its known-device cookie.
          const home = yield* login(server.origin, "owner@example.org", "correct horse", from("10.0.1.9"))
          expect(home.status).toBe(204)
          const device = knownDevice(home)

          // A stranger guesses from one address until refused (the pair's limit is 3).
          const guesses: Array<number> = []
          for (let i = 0; i < 4; i++) guesses.push((yield* login(server.origin, "owner@example.org", "wrong horse", from("10.0.1.1"))).status)
          expect(guesses).toEqual([400, 400, 400, 429])
          // A browser the owner never used, from another address: slowed (the account is under
          // attack), never refused.
          const elsewhere = yield* login(server.origin, "owner@example.org", "correct horse", from("10.0.1.3"))
          expect(elsewhere.status).toBe(204)
          // The owner's browser gets in even from the stranger's own address (one NAT, say).
          expect(device).toMatch(/^[A-Za-z0-9_-]{22}\.\d+\.[0-9a-f]{32}$/)
          expect(home.headers.getSetCookie().find((c) => c.startsWith("known_device="))).toMatch(
            /; Max-Age=15552000; Path=\/api\/v2\/auth\/login; HttpOnly; SameSite=Strict$/
          )
          const known = yield* login(server.origin, "Owner@Example.org", "correct horse", { ...from("10.0.1.1"), cookie: `known_device=${device}` })
          expect(known.status).toBe(204)

          // An address nobody has yet, guessed at until refused; the account made afterwards opens.
          for (let i = 0; i < 4; i++) yield* login(server.origin, "future@example.org", "guess", from("10.0.1.2"))
          yield* createUser("future@example.org", "correct horse")
          expect((yield* login(server.origin, "future@example.org", "correct horse", from("10.0.1.4"))).status).toBe(204)
        }))

      it.effect("past the pair's limit: 429 with Retry-After, the same for a known and an unknown address, until the window ends", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* createUser("pair@example.org", "correct horse")
          const answers: Array<[number, string | null, string | undefined]> = []
          for (const [email, address] of [
            ["pair@example.org", "10.0.4.1"],
            ["ghost@example.org", "10.0.4.2"]
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
          // The right password from that pair is refused too while it is over, then let in.
          const held = yield* login(server.origin, "pair@example.org", "correct horse", from("10.0.4.1"))
          expect(held.status).toBe(429)
          yield* Effect.sleep(`${Number(held.headers.get("retry-after"))} seconds`)
          expect((yield* login(server.origin, "pair@example.org", "correct horse", from("10.0.4.1"))).status).toBe(204)
          for (let i = 0; i < 3; i++) {
            expect((yield* login(server.origin, "pair@example.org", "wrong", from("10.0.4.1"))).status).toBe(400)
          }
        }))

      it.effect("a known browser is counted on its own: a stolen copy of its cookie locks out neither it nor the owner's other browsers", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* createUser("device@example.org", "correct horse")
          const device = knownDevice(yield* login(server.origin, "device@example.org", "correct horse", from("10.0.5.1")))
          const cookie = `known_device=${device}`
          // A thief with a copy of the cookie: three failures on the cookie's own count, then three
          // on its network's pair, as any browser's, then refused.
          const statuses: Array<number> = []
          for (let i = 0; i < 7; i++) statuses.push((yield* login(server.origin, "device@example.org", "wrong", { ...from("10.0.5.9"), cookie })).status)
          expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 429])
          // The owner's browser, with that same cookie, at home: in.
          expect((yield* login(server.origin, "device@example.org", "correct horse", { ...from("10.0.5.1"), cookie })).status).toBe(204)
          // Another browser at the same address: in.
          expect((yield* login(server.origin, "device@example.org", "correct horse", from("10.0.5.1"))).status).toBe(204)
          // A cookie made for another account, or altered, is no known device: the pair counts it.
          const forged = { ...from("10.0.5.2"), cookie: `known_device=${device!.replace(/.$/, (c) => (c === "0" ? "1" : "0"))}` }
          const counted: Array<number> = []
          for (let i = 0; i < 4; i++) counted.push((yield* login(server.origin, "device@example.org", "wrong", forged)).status)
          expect(counted).toEqual([400, 400, 400, 429])
        }))

      it.effect("a port beside a forwarded address makes no new client: IP:port and [IPv6]:port count as the address", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          // An account each: the account's own slowing would outlast the window over both.
          for (const [address, ports] of [
            ["10.0.6.1", (p: number) => `10.0.6.1:${4711 + p}`],
            ["2001:db8:6::1", (p: number) => `[2001:db8:6::1]:${443 + p}`]
          ] as const) {
            const email = `ports-${address.length}@example.org`
            yield* createUser(email, "correct horse")
            const statuses: Array<number> = []
            for (let p = 0; p < 4; p++) statuses.push((yield* login(server.origin, email, "wrong", from(ports(p)))).status)
            expect([address, statuses]).toEqual([address, [400, 400, 400, 429]])
            // The bare address is the same client, refused as well.
            expect((yield* login(server.origin, email, "correct horse", from(address))).status).toBe(429)
          }
        }))

      it.effect("any e-mail a client sends (long, odd unicode) is counted, never a server error; one no text can hold is refused first", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          for (const email of ["x".repeat(20_000), "\u{1F600}@example.org", ""]) {
            const response = yield* login(server.origin, email, "guess", from("10.0.2.1"))
            expect(response.status).toBe(400)
            expect(yield* json(response)).toEqual({ detail: "LOGIN_BAD_CREDENTIALS", code: "bad-credentials" })
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
