import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { AuditLog, EmailTaken, LinkConflict, OAuthAccounts, OAuthLink, Sessions, UnitOfWork, Users } from "@climate-grade/core"
import { AccountsRepo, Migrations, SessionsRepo } from "@climate-grade/postgres"
import { Random } from "@climate-grade/node"
import { backends } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"

const newUser = (email: string) => ({
  email,
  hashedPassword: "x",
  isActive: true,
  isSuperuser: false,
  isVerified: true,
  oauthOnly: false
})

for (const backend of backends) {
  const Repos = Layer.mergeAll(AccountsRepo.layer, SessionsRepo.layer).pipe(
    Layer.provide(Random.layer),
    Layer.provideMerge(backend.layer)
  )

  describe(`repositories on ${backend.name}`, () => {
    layer(Repos, { timeout: 60_000 })((it) => {
      it.effect("migrations are idempotent", () =>
        Effect.gen(function* () {
          expect(yield* Migrations.run).toEqual([])
          const sql = yield* SqlClient.SqlClient
          const tables = yield* sql<{ name: string }>`
            select table_name as name from information_schema.tables where table_schema = 'public' order by 1`
          expect(tables.map((t) => t.name)).toEqual(
            expect.arrayContaining(["audit_log", "oauth_accounts", "sessions", "users"])
          )
        }))

      it.effect("a migration that reached the database after a higher-numbered one still runs", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          // As if 0008 had been applied before 0005 existed: 0005's tables and its record gone.
          yield* sql`drop table alert_outbox, alerts, alert_watches cascade`
          yield* sql`delete from schema_migrations where migration_id = 5`
          expect(yield* Migrations.run).toEqual([[5, "alerts"]])
          const [found] = yield* sql<{ n: number }>`
            select count(*)::int as n from information_schema.tables where table_name = 'alert_watches'`
          expect(found!.n).toBe(1)
          expect(yield* Migrations.run).toEqual([])
        }))

      it.effect("users: e-mail is unique case-insensitively and found either way", () =>
        Effect.gen(function* () {
          const users = yield* Users
          const created = yield* users.create(newUser("Case@Example.org"))
          expect(created.oauthOnly).toBe(false)
          const found = yield* users.findByEmail("case@EXAMPLE.org")
          expect(Option.map(found, (u) => u.id)).toEqual(Option.some(created.id))
          const again = yield* Effect.either(users.create(newUser("CASE@example.org")))
          expect(again).toEqual(Either.left(new EmailTaken({ email: "CASE@example.org" })))
        }))

      it.effect("one user created twice at once: one wins, the other gets EmailTaken", () =>
        Effect.gen(function* () {
          const users = yield* Users
          const results = yield* Effect.all(
            [users.create(newUser("race@example.org")), users.create(newUser("race@example.org"))].map(Effect.either),
            { concurrency: "unbounded" }
          )
          expect(results.filter(Either.isRight)).toHaveLength(1)
          expect(results.filter(Either.isLeft).map((e) => e.left._tag)).toEqual(["EmailTaken"])
        }))

      it.effect("oauth links: both unique constraints surface as LinkConflict", () =>
        Effect.gen(function* () {
          const users = yield* Users
          const links = yield* OAuthAccounts
          const a = yield* users.create(newUser("a-links@example.org"))
          const b = yield* users.create(newUser("b-links@example.org"))
          yield* links.insert(new OAuthLink({ userId: a.id, provider: "chat", subject: "s-1", email: null }))
          const sameSubject = yield* Effect.flip(
            links.insert(new OAuthLink({ userId: b.id, provider: "chat", subject: "s-1", email: null }))
          )
          expect(sameSubject).toEqual(new LinkConflict({ constraint: "subject" }))
          const sameProvider = yield* Effect.flip(
            links.insert(new OAuthLink({ userId: a.id, provider: "chat", subject: "s-2", email: "x@y.z" }))
          )
          expect(sameProvider).toEqual(new LinkConflict({ constraint: "user-provider" }))
          expect(yield* links.listByUser(a.id)).toHaveLength(1)
          expect(yield* links.remove(a.id, "chat")).toBe(true)
          expect(yield* links.remove(a.id, "chat")).toBe(false)
        }))

      it.effect("a failed transaction leaves nothing behind", () =>
        Effect.gen(function* () {
          const users = yield* Users
          const audit = yield* AuditLog
          const uow = yield* UnitOfWork
          const sql = yield* SqlClient.SqlClient
          const attempt = uow.transaction(
            Effect.gen(function* () {
              yield* users.create(newUser("rollback@example.org"))
              yield* audit.record("auth.register", { user_id: "x", via: "chat" })
              return yield* Effect.fail("boom" as const)
            })
          )
          expect(yield* Effect.flip(attempt)).toBe("boom")
          expect(yield* users.findByEmail("rollback@example.org")).toEqual(Option.none())
          const rows = yield* sql`select count(*)::int as n from audit_log where data->>'user_id' = 'x'`
          expect(rows[0]!.n).toBe(0)
        }))

      it.effect("sessions: stored as a hash, found while live, gone after expiry or revoke", () =>
        Effect.gen(function* () {
          const users = yield* Users
          const sessions = yield* Sessions
          const sql = yield* SqlClient.SqlClient
          const user = yield* users.create(newUser("session@example.org"))
          const { token } = yield* sessions.issue(user.id)
          expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
          const stored = yield* sql<{ token_hash: string }>`select token_hash from sessions where user_id = ${user.id}`
          expect(stored.map((r) => r.token_hash)).not.toContain(token)
          expect(Option.map(yield* sessions.find(token), (u) => u.id)).toEqual(Option.some(user.id))
          expect(yield* sessions.find(`${token}x`)).toEqual(Option.none())
          yield* TestClock.adjust("31 days")
          expect(yield* sessions.find(token)).toEqual(Option.none())
          const second = yield* sessions.issue(user.id)
          yield* sessions.revoke(second.token)
          expect(yield* sessions.find(second.token)).toEqual(Option.none())
        }))

      it.effect("two sessions created at once for one user are both live and distinct", () =>
        Effect.gen(function* () {
          const users = yield* Users
          const sessions = yield* Sessions
          const user = yield* users.create(newUser("two-sessions@example.org"))
          const [s1, s2] = yield* Effect.all([sessions.issue(user.id), sessions.issue(user.id)], { concurrency: 2 })
          expect(s1.token).not.toBe(s2.token)
          expect(Option.isSome(yield* sessions.find(s1.token))).toBe(true)
          expect(Option.isSome(yield* sessions.find(s2.token))).toBe(true)
        }))
    })
  })
}
