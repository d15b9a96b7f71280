import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { PasswordHasher, Users } from "@climate-grade/core"
import { PgliteClient } from "@climate-grade/postgres"
import { backends } from "@climate-grade/testing"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { Validator } from "@seriousme/openapi-schema-validator"
import * as Effect from "effect/Effect"

const json = (response: Response) => Effect.promise(() => response.json() as Promise<unknown>)
const http = (input: string, init?: RequestInit) => Effect.promise(() => fetch(input, { redirect: "manual", ...init }))

const createUser = (email: string, password: string, overrides: Partial<{ isActive: boolean; oauthOnly: boolean }> = {}) =>
  Effect.gen(function* () {
    const users = yield* Users
    const hasher = yield* PasswordHasher
    return yield* users.create({
      email,
      hashedPassword: yield* hasher.hash(password),
      isActive: overrides.isActive ?? true,
      isSuperuser: false,
      isVerified: true,
      oauthOnly: overrides.oauthOnly ?? false
    })
  })

const login = (server: TestServer["Type"], email: string, password: string, headers: Record<string, string> = {}) =>
  http(server.url("/api/v2/auth/login"), {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ email, password })
  })

const sessionToken = (response: Response) => /(?:^|;\s*)session=([^;]+)/.exec(response.headers.get("set-cookie") ?? "")?.[1]

for (const backend of backends) {
  describe(`HTTP on ${backend.name}`, () => {
    layer(testServerLayer({}, backend.layer), { timeout: 60_000 })((it) => {
      it.effect("health answers 200 with the status", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const response = yield* http(server.url("/api/v2/health"))
          expect(response.status).toBe(200)
          expect(yield* json(response)).toEqual({ status: "ok" })
        }))

      it.effect("unknown routes answer 404 with a detail", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          for (const path of ["/api/v2/nope", "/api", "/api/v3/health"]) {
            const response = yield* http(server.url(path))
            expect(response.status).toBe(404)
            expect(yield* json(response)).toEqual({ detail: "Not Found", code: "not-found" })
          }
        }))

      it.effect("password login sets the session cookie; /users/me reads it and the bearer form", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const user = yield* createUser("Person@Example.org", "correct horse")
          const response = yield* login(server, "person@example.org", "correct horse")
          expect(response.status).toBe(204)
          expect(yield* Effect.promise(() => response.text())).toBe("")
          // The session cookie comes first; a browser's known_device cookie (the login throttle's) follows it.
          const cookies = response.headers.getSetCookie()
          expect(cookies[0]).toMatch(/^session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/)
          expect(cookies.slice(1).every((c) => c.startsWith("known_device="))).toBe(true)
          const token = sessionToken(response)!

          const viaCookie = yield* http(server.url("/api/v2/users/me"), { headers: { cookie: `session=${token}` } })
          expect(viaCookie.status).toBe(200)
          expect(yield* json(viaCookie)).toEqual({
            id: user.id,
            email: "Person@Example.org",
            is_active: true,
            is_superuser: false,
            is_verified: true,
            oauth_only: false,
            chat_id: null,
            chat_dm: false,
            lang: null,
            units: null,
            links: []
          })
          const viaBearer = yield* http(server.url("/api/v2/users/me"), { headers: { authorization: `Bearer ${token}` } })
          expect(viaBearer.status).toBe(200)
        }))

      it.effect("the session cookie is Secure only when the request came over https, which a client's header does not prove", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* createUser("secure@example.org", "correct horse")
          // No trusted proxy (TRUSTED_PROXY_HOPS=0): the header is the client's own.
          const response = yield* login(server, "secure@example.org", "correct horse", { "x-forwarded-proto": "https" })
          expect(response.headers.get("set-cookie")).not.toMatch(/Secure/)
        }))

      it.effect("bad credentials, inactive and provider-only accounts all get LOGIN_BAD_CREDENTIALS", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* createUser("inactive@example.org", "correct horse", { isActive: false })
          yield* createUser("provider-only@example.org", "correct horse", { oauthOnly: true })
          yield* createUser("right@example.org", "correct horse")
          for (const [email, password] of [
            ["right@example.org", "wrong horse"],
            ["nobody@example.org", "correct horse"],
            ["inactive@example.org", "correct horse"],
            ["provider-only@example.org", "correct horse"]
          ] as const) {
            const response = yield* login(server, email, password)
            expect(response.status).toBe(400)
            expect(yield* json(response)).toEqual({ detail: "LOGIN_BAD_CREDENTIALS", code: "bad-credentials" })
            expect(response.headers.get("set-cookie")).toBeNull()
          }
        }))

      it.effect("undecodable login bodies answer 400 with a detail", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const cases: ReadonlyArray<[string, string]> = [
            ["{bad json", ""],
            [JSON.stringify({ email: "a@b.c" }), "password"],
            [JSON.stringify({ email: 1, password: "x" }), "email"]
          ]
          for (const [body, names] of cases) {
            const response = yield* http(server.url("/api/v2/auth/login"), {
              method: "POST",
              headers: { "content-type": "application/json" },
              body
            })
            expect(response.status).toBe(400)
            const payload = (yield* json(response)) as { detail: string }
            expect(Object.keys(payload)).toEqual(["detail", "code"])
            expect(payload).toMatchObject({ code: "invalid-body" })
            expect(payload.detail).toContain(names)
          }
        }))

      it.effect("protected routes answer 401 without a valid session, and for a deactivated user", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const user = yield* createUser("soon-inactive@example.org", "correct horse")
          const token = sessionToken(yield* login(server, "soon-inactive@example.org", "correct horse"))!
          for (const headers of [{}, { cookie: "session=forged" }, { authorization: "Bearer forged" }]) {
            const response = yield* http(server.url("/api/v2/users/me"), { headers })
            expect(response.status).toBe(401)
            expect(yield* json(response)).toEqual({ detail: "Unauthorized", code: "unauthorized" })
          }
          const sql = yield* SqlClient.SqlClient
          yield* sql`update users set is_active = false where id = ${user.id}`
          const after = yield* http(server.url("/api/v2/users/me"), { headers: { cookie: `session=${token}` } })
          expect(after.status).toBe(401)
        }))

      it.effect("logout ends the session, clears the cookie and asks the browser to drop the origin's cache and storage", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* createUser("leaving@example.org", "correct horse")
          const token = sessionToken(yield* login(server, "leaving@example.org", "correct horse"))!
          const response = yield* http(server.url("/api/v2/auth/logout"), {
            method: "POST",
            headers: { cookie: `session=${token}` }
          })
          expect(response.status).toBe(204)
          expect(response.headers.get("set-cookie")).toMatch(/^session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax$/)
          expect(response.headers.get("clear-site-data")).toBe('"cache", "storage"')
          const me = yield* http(server.url("/api/v2/users/me"), { headers: { cookie: `session=${token}` } })
          expect(me.status).toBe(401)
        }))

      it.effect("openapi.json is a valid OpenAPI 3 document listing every route", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const response = yield* http(server.url("/api/v2/openapi.json"))
          expect(response.status).toBe(200)
          const document = (yield* json(response)) as { openapi: string; paths: Record<string, Record<string, unknown>> }
          const result = yield* Effect.promise(() => new Validator().validate(document as never))
          expect(result.errors ?? []).toEqual([])
          expect(result.valid).toBe(true)
          expect(document.openapi).toMatch(/^3\./)
          const routes = Object.entries(document.paths).flatMap(([path, item]) =>
            Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`)
          )
          expect(routes.sort()).toEqual(
            [
              "GET /api/v2/health",
              "POST /api/v2/auth/login",
              "POST /api/v2/auth/logout",
              "GET /api/v2/users/me",
              "DELETE /api/v2/users/me",
              "PATCH /api/v2/users/me",
              "GET /api/v2/users/me/export",
              "GET /api/v2/oauth/config",
              "GET /api/v2/oauth/{provider}/link/start",
              "GET /api/v2/oauth/{provider}/login/start",
              "GET /api/v2/oauth/{provider}/callback",
              "POST /api/v2/oauth/{provider}/unlink",
              "GET /api/v2/chat/link/start",
              "GET /api/v2/chat/login/start",
              "GET /api/v2/chat/link/callback",
              "POST /api/v2/chat/unlink",
              "POST /api/v2/chat/dm",
              "GET /api/v2/grade",
              "GET /api/v2/forecast",
              "GET /api/v2/calendar",
              "GET /api/v2/day",
              "GET /api/v2/cell",
              "GET /api/v2/trend",
              "GET /api/v2/spells",
              "GET /api/v2/places",
              "GET /api/v2/alerts/config",
              "GET /api/v2/alerts/watches",
              "POST /api/v2/alerts/watches",
              "DELETE /api/v2/alerts/watches/{id}",
              "GET /api/v2/alerts/sent",
              "GET /api/v2/card.png"
            ].sort()
          )
        }))

      it.effect("the trend's, spells' and normals' payloads are described field by field in the OpenAPI document", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const document = (yield* json(yield* http(server.url("/api/v2/openapi.json")))) as {
            components: { schemas: Record<string, unknown> }
          }
          const undescribed: Array<string> = []
          const walk = (schema: unknown, at: string): void => {
            if (typeof schema !== "object" || schema === null) return
            const s = schema as Record<string, unknown>
            for (const [name, property] of Object.entries((s.properties ?? {}) as Record<string, Record<string, unknown>>)) {
              if (typeof property.description !== "string" || property.description === "") undescribed.push(`${at}.${name}`)
              walk(property, `${at}.${name}`)
            }
            for (const key of ["anyOf", "allOf", "oneOf"]) for (const part of (s[key] ?? []) as Array<unknown>) walk(part, at)
            walk(s.items, `${at}[]`)
          }
          const trend = Object.keys(document.components.schemas).filter((name) => name.startsWith("Trend"))
          expect(trend.sort()).toEqual(["TrendPayload", "TrendPeriod", "TrendStanding", "TrendYear", "TrendYearValue"])
          for (const name of trend) walk(document.components.schemas[name], name)
          const spells = Object.keys(document.components.schemas).filter((name) => name.startsWith("Spell") || name === "Normal")
          expect(spells.sort()).toEqual(["Normal", "Spell", "SpellsPayload"])
          for (const name of spells) walk(document.components.schemas[name], name)
          walk(document.components.schemas.ForecastPayload, "ForecastPayload")
          expect(undescribed).toEqual([])
        }))

      it.effect("the docs page and the OpenAPI document revalidate: no-cache, a weak ETag, an empty 304 on a match", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          for (const path of ["/api/v2/docs", "/api/v2/openapi.json"]) {
            const first = yield* http(server.url(path))
            const etag = first.headers.get("etag")
            expect([path, etag]).toEqual([path, expect.stringMatching(/^W\/"[0-9a-f]{32}"$/)])
            expect(first.headers.get("cache-control")).toBe("no-cache")
            const again = yield* http(server.url(path), { headers: { "if-none-match": etag!, "accept-encoding": "gzip" } })
            expect([path, again.status]).toEqual([path, 304])
            expect(yield* Effect.promise(() => again.text())).toBe("")
            expect(again.headers.get("etag")).toBe(etag)
            expect((yield* http(server.url(path), { headers: { "if-none-match": '"other"' } })).status).toBe(200)
          }
        }))

      it.effect("the docs page is self-contained: no script, style or font from another host", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const response = yield* http(server.url("/api/v2/docs"))
          expect(response.status).toBe(200)
          expect(response.headers.get("content-type")).toMatch(/^text\/html/)
          const html = yield* Effect.promise(() => response.text())
          expect(html).toContain("api-reference")
          expect(html).not.toMatch(/<(script|link)[^>]+(src|href)=["']https?:/i)
        }))
    })
  })
}

describe("health when the database stops answering", () => {
  const pglite = backends.find((b) => b.name === "pglite")!
  layer(testServerLayer({}, pglite.layer), { timeout: 60_000 })((it) => {
    it.effect("answers 503 with a detail", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const db = yield* PgliteClient.PgliteClient
        expect((yield* http(server.url("/api/v2/health"))).status).toBe(200)
        yield* Effect.promise(() => db.pglite.close())
        const response = yield* http(server.url("/api/v2/health"))
        expect(response.status).toBe(503)
        expect(yield* json(response)).toEqual({ detail: "The database does not answer.", code: "database-unavailable" })
      }))
  })
})
