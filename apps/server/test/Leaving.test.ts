/**
 * Leaving, end to end on PGlite and PostgreSQL: `GET /users/me/export` gives everything held about
 * the user and no secret; `DELETE /users/me` (signed in, same-site) deletes the account and
 * everything of it, after which every table is searched for the user's id and e-mail: only the
 * audit log names the id, nothing names the address, and another user's data is untouched.
 */
import { createHash } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { backends, Browser, FakeChatProvider, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

class Providers extends Context.Tag("test/LeavingProviders")<Providers, { readonly chat: FakeChatProvider.FakeChatProvider }>() {}

const AUTH_SECRET = "a secret for the leaving test, long enough"

const world = (backend: (typeof backends)[number]) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const chat = yield* FakeChatProvider.make()
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      const env = { AUTH_SECRET, ...FakeEnv.upstreams(weather, geocoder), HISTORY_START: "2015-01-01", ...FakeEnv.provider("CHAT", chat) }
      return Layer.merge(testServerLayer(env, backend.layer), Layer.succeed(Providers, { chat }))
    })
  )

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)
let counter = 0

for (const backend of backends) {
  describe(`leaving on ${backend.name}`, () => {
    layer(world(backend), { timeout: 180_000 })((it) => {
      /** A user made by a chat sign-in, with a watch, an alert and its message, a weather share and a failed password attempt. */
      const member = Effect.gen(function* () {
        const server = yield* TestServer
        const { chat } = yield* Providers
        const sql = yield* SqlClient.SqlClient
        const subject = `leaving-${Date.now()}-${++counter}`
        const email = `${subject}@example.org`
        const browser = new Browser()
        const signedIn = yield* promise(async () => {
          chat.profile = { id: subject, email, verified: true }
          const start = await browser.fetch(server.url("/api/v2/oauth/chat/login/start"))
          const done = await browser.follow(start.headers.get("location")!, { stop: (u) => u.pathname.endsWith("/alerts") })
          return new URL(done.url).searchParams.get("oauth")
        })
        expect(signedIn).toBe("created")
        const me = yield* promise(() => browser.fetch(server.url("/api/v2/users/me")).then((r) => r.json() as Promise<{ id: string }>))
        const watch = yield* promise(() =>
          browser.fetch(server.url("/api/v2/alerts/watches"), {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ lat: 10 + counter, lon: 20 + counter, kinds: ["heat", "wet"] })
          })
        )
        expect(watch.status).toBe(201)
        const watchId = ((yield* promise(() => watch.json())) as { id: string }).id
        // An alert and its unsent message, as the evaluator writes them, and a share of today's weather units.
        const [alert] = yield* sql<{ id: string }>`
          insert into alerts (watch_id, user_id, date, kind, variable, value, unit, percentile, label, n, content, delivery)
          values (${watchId}, ${me.id}, '2026-07-01', 'heat', 'tmax', 38.5, '°C', 99.5, 'record-high', 400, 'Record heat', 'queued')
          returning id`
        yield* sql`insert into alert_outbox (alert_id, user_id, content) values (${alert!.id}, ${me.id}, 'Record heat at the place')`
        yield* sql`insert into weather_budget_shares (day, spender, spent) values (20000, ${`user:${me.id}`}, 700.5)`
        // A failed password attempt on the address: counted under it (a provider-only account has no password).
        const attempt = yield* promise(() =>
          fetch(server.url("/api/v2/auth/login"), {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ email, password: "not the password" })
          })
        )
        expect(attempt.status).toBe(400)
        return { browser, id: me.id, email, subject, watchId, alertId: alert!.id }
      })

      /** Every base table of the schema, each searched for rows whose text holds `needle`: table → count. */
      const tablesHolding = (needle: string) =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const tables = yield* sql<{ name: string }>`
            select table_name as name from information_schema.tables
            where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`
          expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(["users", "sessions", "alert_outbox", "audit_log"]))
          const found: Record<string, number> = {}
          for (const { name } of tables) {
            const [row] = yield* sql.unsafe<{ n: number }>(
              `select count(*)::int as n from "${name}" t where position(lower($1) in lower(t::text)) > 0`,
              [needle]
            )
            if (row!.n > 0) found[name] = row!.n
          }
          return found
        })

      it.effect("the export holds the user's data, as a file, and no secret", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const sql = yield* SqlClient.SqlClient
          const m = yield* member
          const response = yield* promise(() => m.browser.fetch(server.url("/api/v2/users/me/export")))
          expect(response.status).toBe(200)
          expect(response.headers.get("content-type")).toMatch(/^application\/json/)
          expect(response.headers.get("content-disposition")).toBe('attachment; filename="climate-grade-account.json"')
          expect(response.headers.get("cache-control")).toBe("no-store")
          const text = yield* promise(() => response.text())
          const held = JSON.parse(text)
          expect(held.account).toMatchObject({ id: m.id, email: m.email, oauth_only: true, chat_id: m.subject, chat_dm: true, lang: "en", units: null })
          expect(held.links).toEqual([{ provider: "chat", subject: m.subject, email: m.email, created_at: expect.any(String) }])
          expect(held.sessions).toHaveLength(1)
          // Times as ISO 8601 in UTC, to the millisecond, as JavaScript writes them.
          for (const at of [held.account.created_at, held.links[0].created_at, held.sessions[0].created_at, held.sessions[0].expires_at])
            expect(new Date(at).toISOString()).toBe(at)
          expect(held.watches).toEqual([
            expect.objectContaining({ id: m.watchId, kinds: ["heat", "wet"], lat: expect.any(Number), lon: expect.any(Number) })
          ])
          // The evaluator may have made alerts of its own for the watch by now.
          expect(held.alerts).toEqual(
            expect.arrayContaining([
              expect.objectContaining({ id: m.alertId, date: "2026-07-01", kind: "heat", value: 38.5, label: "record-high", n: 400 })
            ])
          )
          expect(held.messages).toEqual([
            expect.objectContaining({ alert_id: m.alertId, content: "Record heat at the place", status: "pending", sent_at: null })
          ])
          expect(held.spell_alerts).toEqual([])
          expect(held.weather_units).toEqual([{ date: "2024-10-04", units: 700.5 }])
          expect(held.audit).toEqual([{ activity: "auth.register", created_at: expect.any(String), data: { user_id: m.id, via: "chat" } }])
          // No secret: no password hash, session token or its hash, no configured secret.
          const [user] = yield* sql<{ hashed_password: string }>`select hashed_password from users where id = ${m.id}`
          const [session] = yield* sql<{ token_hash: string }>`select token_hash from sessions where user_id = ${m.id}`
          const token = m.browser.cookie(server.origin, "session")!
          expect(createHash("sha256").update(token).digest("hex")).toBe(session!.token_hash)
          for (const secret of [user!.hashed_password, session!.token_hash, token, AUTH_SECRET]) expect(text).not.toContain(secret)
          expect(text).not.toMatch(/hash|password|token|secret/i)
          // Signed out: 401.
          expect((yield* promise(() => fetch(server.url("/api/v2/users/me/export")))).status).toBe(401)
        }))

      it.effect("deleting the account leaves it in no table but the audit, never by its e-mail; another user's data stays", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const { chat } = yield* Providers
          const sql = yield* SqlClient.SqlClient
          const m = yield* member
          const bystander = yield* member
          const before = yield* tablesHolding(m.id)
          expect(Object.keys(before).sort()).toEqual(
            ["alert_outbox", "alert_watches", "alerts", "audit_log", "oauth_accounts", "sessions", "users", "weather_budget_shares"].sort()
          )
          const bystanderBefore = yield* tablesHolding(bystander.id)

          const del = (headers: Record<string, string>, browser = m.browser) =>
            promise(() => browser.fetch(server.url("/api/v2/users/me"), { method: "DELETE", headers }))
          // Another site's request is refused, like every state-changing one; signed out is 401.
          expect((yield* del({ "sec-fetch-site": "cross-site" })).status).toBe(403)
          expect((yield* del({ origin: "https://evil.example" })).status).toBe(403)
          expect((yield* promise(() => fetch(server.url("/api/v2/users/me"), { method: "DELETE" }))).status).toBe(401)
          // Refused, nothing of the account went from any table (the alert evaluator may meanwhile add an alert).
          const after = yield* tablesHolding(m.id)
          for (const [table, n] of Object.entries(before)) expect([table, after[table]! >= n]).toEqual([table, true])

          const deleted = yield* del({ origin: server.origin, "sec-fetch-site": "same-origin" })
          expect(deleted.status).toBe(204)
          expect(deleted.headers.get("set-cookie")).toMatch(/^session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax/)
          expect((yield* promise(() => m.browser.fetch(server.url("/api/v2/users/me")))).status).toBe(401)

          expect(yield* tablesHolding(m.id)).toEqual({ audit_log: 2 })
          expect(yield* tablesHolding(m.email)).toEqual({})
          const audit = yield* sql<{ activity: string; data: unknown }>`
            select activity, data from audit_log where data->>'user_id' = ${m.id} order by id`
          expect(audit).toEqual([
            { activity: "auth.register", data: { user_id: m.id, via: "chat" } },
            { activity: "account.delete", data: { user_id: m.id } }
          ])
          const [attempts] = yield* sql<{ n: number }>`select count(*)::int as n from login_attempts where key = ${`account:${createHash("sha256").update(m.email).digest("hex")}`}`
          expect(attempts!.n).toBe(0)
          // The bystander's rows are all there (the evaluator may have added alerts meanwhile).
          const bystanderAfter = yield* tablesHolding(bystander.id)
          for (const [table, n] of Object.entries(bystanderBefore)) expect([table, bystanderAfter[table]! >= n]).toEqual([table, true])

          // Once is enough: the old session is no session. The identity is free for a new account.
          expect((yield* del({ origin: server.origin }, new Browser())).status).toBe(401)
          const again = new Browser()
          const status = yield* promise(async () => {
            chat.profile = { id: m.subject, email: m.email, verified: true }
            const start = await again.fetch(server.url("/api/v2/oauth/chat/login/start"))
            const done = await again.follow(start.headers.get("location")!, { stop: (u) => u.pathname.endsWith("/alerts") })
            return new URL(done.url).searchParams.get("oauth")
          })
          expect(status).toBe("created")
        }))
    })
  })
}
