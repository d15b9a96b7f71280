/**
 * Text no query can store as sent — a NUL character, an unpaired surrogate — never reaches the
 * database, on PGlite and PostgreSQL: every API operation answers 400 with a detail naming where
 * it is (path, query parameter, body field), and logs no error; the sign-in callbacks keep SPEC's
 * redirect; the operator's control socket refuses such an address, and one over 254 characters,
 * with 400 instead of a 500 or a stored U+FFFD.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, layer } from "@effect/vitest"
import { PasswordHasher, Sessions, Users } from "@climate-grade/core"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { backends, FakeChatProvider, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Control from "../src/Control.js"

class Logs extends Context.Tag("test/Logs")<Logs, Array<string>>() {}

const world = (backend: (typeof backends)[number]) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      const chat = yield* FakeChatProvider.make()
      const logs: Array<string> = []
      const env = { ...FakeEnv.upstreams(weather, geocoder), ...FakeEnv.provider("CHAT", chat), HISTORY_START: "2020-01-01" }
      return Layer.mergeAll(testServerLayer(env, backend.layer, { logs }), Layer.succeed(Logs, logs))
    })
  )

interface Answer {
  readonly status: number
  readonly detail: unknown
  readonly location: string | null
}

const send = (url: string, init: RequestInit = {}) =>
  Effect.promise(async (): Promise<Answer> => {
    const response = await fetch(url, { redirect: "manual", ...init })
    const text = await response.text()
    const detail = text.startsWith("{") ? (JSON.parse(text) as { detail?: unknown }).detail : undefined
    return { status: response.status, detail, location: response.headers.get("location") }
  })

const errorLines = (logs: ReadonlyArray<string>) => logs.filter((line) => /level=(ERROR|FATAL)/.test(line))

/** A lone surrogate cannot be percent-encoded (no UTF-8 form); in JSON it is the escape `\ud800`. */
const LONE = "\ud800"

for (const backend of backends) {
  describe(`text that cannot be stored, on ${backend.name}`, () => {
    layer(world(backend), { timeout: 120_000 })((it) => {
      it.effect("a NUL in any query parameter of any operation is 400 with a detail, before any query", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const logs = yield* Logs
          const document = (yield* Effect.promise(() => fetch(server.url("/api/v2/openapi.json")).then((r) => r.json()))) as {
            paths: Record<string, Record<string, unknown>>
          }
          const operations = Object.entries(document.paths).flatMap(([template, item]) =>
            Object.keys(item).map((method) => ({ method: method.toUpperCase(), template }))
          )
          expect(operations.length).toBeGreaterThan(20)
          for (const { method, template } of operations) {
            const path = template.replace("{provider}", "chat").replace("{id}", "00000000-0000-0000-0000-000000000000")
            const answer = yield* send(server.url(`${path}?q=%00`), { method })
            if (/\/callback$/.test(template)) {
              // SPEC's answer to a callback with a bad state is a redirect, whatever it holds.
              expect([method, path, answer.status]).toEqual([method, path, 303])
              continue
            }
            expect([method, path, answer.status]).toEqual([method, path, 400])
            expect(answer.detail).toBe('The query parameter "q" contains a NUL character (U+0000), which cannot be stored; send text without it.')
          }
          // The place search once answered this 503 with an ERROR "database fault" line.
          const search = yield* send(server.url("/api/v2/places?q=a%00b"))
          expect(search.status).toBe(400)
          const name = yield* send(server.url("/api/v2/grade?lat=1&lon=2&x%00=1"))
          expect(name).toMatchObject({ status: 400, detail: expect.stringMatching(/^The query parameter "x\\u0000"/) })
          const segment = yield* send(server.url("/api/v2/alerts/watches/a%00b"), { method: "DELETE" })
          expect(segment).toMatchObject({ status: 400, detail: expect.stringMatching(/^The path segment "a\\u0000b" contains a NUL/) })
          const callback = yield* send(server.url("/api/v2/oauth/chat/callback?code=c&state=%00"))
          expect(callback.location).toMatch(/oauth=error/)
          expect(errorLines(logs)).toEqual([])
        }))

      it.effect("a NUL or a lone surrogate in any string of a JSON body is 400 naming the field", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const logs = yield* Logs
          const users = yield* Users
          const hasher = yield* PasswordHasher
          const user = yield* Effect.orDie(
            users.create({
              email: `text-${Date.now()}@example.org`,
              hashedPassword: yield* hasher.hash("a password"),
              isActive: true,
              isSuperuser: false,
              isVerified: true,
              oauthOnly: false
            })
          )
          const { token } = yield* (yield* Sessions).issue(user.id)
          const post = (path: string, body: unknown) =>
            send(server.url(path), {
              method: "POST",
              headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
              body: JSON.stringify(body)
            })
          const cases: ReadonlyArray<[string, unknown, RegExp]> = [
            ["/api/v2/auth/login", { email: `nul\u0000@example.org`, password: "p" }, /^The body's "email" contains a NUL/],
            ["/api/v2/auth/login", { email: `${LONE}@example.org`, password: "p" }, /^The body's "email" contains an unpaired surrogate/],
            ["/api/v2/auth/login", { email: "a@b.c", password: `pass${LONE}` }, /^The body's "password" contains an unpaired surrogate/],
            ["/api/v2/alerts/watches", { lat: 1, lon: 2, kinds: ["heat", `wet${LONE}`] }, /^The body's "kinds\[1\]" contains an unpaired/],
            ["/api/v2/alerts/watches", { lat: 1, lon: 2, kinds: ["heat"], [`x${LONE}`]: 1 }, /^The body's "x\\ud800" contains an unpaired/],
            ["/api/v2/chat/dm", { enabled: true, note: "\u0000" }, /^The body's "note" contains a NUL/],
            ["/api/v2/chat/dm", "\u0000", /^The body contains a NUL/]
          ]
          for (const [path, body, detail] of cases) {
            const answer = yield* post(path, body)
            expect([path, answer.status]).toEqual([path, 400])
            expect(answer.detail).toMatch(detail)
          }
          // Nothing was stored: the account list of watches is still empty.
          const watches = yield* Effect.promise(() =>
            fetch(server.url("/api/v2/alerts/watches"), { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json())
          )
          expect(watches).toEqual({ watches: [] })
          expect(errorLines(logs)).toEqual([])
        }))

      it.effect("the control socket refuses a NUL, a lone surrogate and a 255-character address with 400, and stores nothing", () =>
        Effect.gen(function* () {
          const dir = mkdtempSync(join(tmpdir(), "cg-text-"))
          yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
          yield* Layer.build(Control.layer(dir))
          const users = yield* Users
          const longest = `${"a".repeat(64)}@${"d".repeat(189)}`
          expect(longest.length).toBe(254)
          for (const email of ["nul\u0000@example.org", `${LONE}@example.org`, `${longest}x`, "x".repeat(10_000)]) {
            const reply = yield* Effect.promise(() =>
              Control.createThroughServer(dir, { email, password: "a long enough password", superuser: false, verified: true })
            )
            expect(reply).toMatchObject({ _tag: "Refused", detail: expect.stringMatching(/^not an e-mail address/) })
          }
          const made = yield* Effect.promise(() =>
            Control.createThroughServer(dir, { email: longest, password: "a long enough password", superuser: false, verified: true })
          )
          expect(made).toMatchObject({ _tag: "Created", email: longest })
          expect((yield* users.findByEmail(longest))._tag).toBe("Some")
        }).pipe(Effect.scoped))
    })
  })
}
