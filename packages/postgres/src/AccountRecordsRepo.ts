/**
 * The core's `Leaving.AccountRecords` over every table that holds something of a user: the export
 * reads them (never a password hash, a token hash or a secret), the erasure deletes the account in
 * one transaction — its links, sessions, watches, alerts and outbox messages go with its row
 * (`on delete cascade`) — and writes the one record that stays.
 */
import { SqlClient } from "@effect/sql"
import { Leaving, type ProviderName } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** A timestamp column as epoch milliseconds, the same number from both drivers. */
const ms = (column: string) => `(extract(epoch from ${column}) * 1000)::float8`
const iso = (value: unknown): string => new Date(Number(value)).toISOString()
const isoOrNull = (value: unknown): string | null => (value === null ? null : iso(value))
const DAY_MS = 86_400_000

type Row = Record<string, unknown>

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = (text: string, params: ReadonlyArray<unknown>) => sql.unsafe<Row>(text, params as Array<unknown>)

  const exportOf = (userId: string) =>
    Effect.gen(function* () {
      const [user] = yield* rows(
        `select id, email, is_active, is_superuser, is_verified, oauth_only, chat_id, chat_dm, ${ms("created_at")} as created_at
         from users where id = $1`,
        [userId]
      )
      if (user === undefined) return undefined
      const links = yield* rows(
        `select provider, subject, email, ${ms("created_at")} as created_at from oauth_accounts where user_id = $1 order by provider`,
        [userId]
      )
      const sessions = yield* rows(
        `select ${ms("created_at")} as created_at, ${ms("expires_at")} as expires_at from sessions where user_id = $1
         order by created_at, expires_at`,
        [userId]
      )
      const watches = yield* rows(
        `select id, cell_key, lat, lon, kinds, ${ms("created_at")} as created_at, ${ms("updated_at")} as updated_at
         from alert_watches where user_id = $1 order by created_at, id`,
        [userId]
      )
      const alerts = yield* rows(
        `select id, watch_id, date::text as date, kind, variable, value, unit, percentile, label, n, content, delivery,
                ${ms("created_at")} as created_at
         from alerts where user_id = $1 order by created_at, id`,
        [userId]
      )
      const spells = yield* rows(
        `select id, watch_id, kind, start_date::text as start_date, end_date::text as end_date, severity, rank, "of",
                content, delivery, ${ms("created_at")} as created_at, ${ms("updated_at")} as updated_at
         from spell_alerts where user_id = $1 order by created_at, id`,
        [userId]
      )
      const messages = yield* rows(
        `select alert_id, content, status, attempts, created, sent from (
           select alert_id, content, status, attempts, ${ms("created_at")} as created, ${ms("sent_at")} as sent
           from alert_outbox where user_id = $1
           union all
           select alert_id, content, status, attempts, ${ms("created_at")} as created, ${ms("sent_at")} as sent
           from spell_alert_outbox where user_id = $1
         ) m order by created, alert_id`,
        [userId]
      )
      const units = yield* rows(`select day, spent from weather_budget_shares where spender = $1 order by day`, [
        `user:${userId}`
      ])
      const audit = yield* rows(
        `select activity, ${ms("created_at")} as created_at, data::text as data from audit_log
         where data->>'user_id' = $1 order by id`,
        [userId]
      )
      const result: Leaving.AccountExport = {
        account: {
          id: String(user.id),
          email: String(user.email),
          is_active: Boolean(user.is_active),
          is_superuser: Boolean(user.is_superuser),
          is_verified: Boolean(user.is_verified),
          oauth_only: Boolean(user.oauth_only),
          chat_id: user.chat_id === null ? null : String(user.chat_id),
          chat_dm: Boolean(user.chat_dm),
          created_at: iso(user.created_at)
        },
        links: links.map((l) => ({
          provider: l.provider as ProviderName,
          subject: String(l.subject),
          email: l.email === null ? null : String(l.email),
          created_at: iso(l.created_at)
        })),
        sessions: sessions.map((s) => ({ created_at: iso(s.created_at), expires_at: iso(s.expires_at) })),
        watches: watches.map((w) => ({
          id: String(w.id),
          cell: String(w.cell_key),
          lat: Number(w.lat),
          lon: Number(w.lon),
          kinds: (w.kinds as ReadonlyArray<unknown>).map(String),
          created_at: iso(w.created_at),
          updated_at: iso(w.updated_at)
        })),
        alerts: alerts.map((a) => ({
          id: String(a.id),
          watch_id: String(a.watch_id),
          date: String(a.date),
          kind: String(a.kind),
          variable: String(a.variable),
          value: a.value === null ? null : Number(a.value),
          unit: String(a.unit),
          percentile: a.percentile === null ? null : Number(a.percentile),
          label: a.label === null ? null : String(a.label),
          n: Number(a.n),
          content: String(a.content),
          delivery: String(a.delivery),
          created_at: iso(a.created_at)
        })),
        spell_alerts: spells.map((a) => ({
          id: String(a.id),
          watch_id: String(a.watch_id),
          kind: String(a.kind),
          start_date: String(a.start_date),
          end_date: String(a.end_date),
          severity: String(a.severity),
          rank: Number(a.rank),
          of: Number(a.of),
          content: String(a.content),
          delivery: String(a.delivery),
          created_at: iso(a.created_at),
          updated_at: iso(a.updated_at)
        })),
        messages: messages.map((m) => ({
          alert_id: String(m.alert_id),
          content: String(m.content),
          status: String(m.status),
          attempts: Number(m.attempts),
          created_at: iso(m.created),
          sent_at: isoOrNull(m.sent)
        })),
        weather_units: units.map((u) => ({
          date: new Date(Number(u.day) * DAY_MS).toISOString().slice(0, 10),
          units: Number(u.spent)
        })),
        audit: audit.map((r) => ({ activity: String(r.activity), created_at: iso(r.created_at), data: JSON.parse(String(r.data)) }))
      }
      return result
    })

  const erase = (erasure: Leaving.Erasure) =>
    sql.withTransaction(
      Effect.gen(function* () {
        // The row first: a deletion racing this one waits for it, then finds nothing and records nothing.
        const gone = yield* sql`delete from users where id = ${erasure.userId} returning id`
        if (gone.length === 0) return false
        yield* sql`delete from weather_budget_shares where spender = ${erasure.spender}`
        if (erasure.loginKeys.length > 0) yield* sql`delete from login_attempts where key in ${sql.in(erasure.loginKeys)}`
        yield* sql`insert into audit_log (activity, data) values (${erasure.audit.activity}, ${JSON.stringify(erasure.audit.data)}::jsonb)`
        return true
      })
    )

  return Leaving.AccountRecords.of({
    export: (userId) => exportOf(userId).pipe(Effect.orDie, Effect.withSpan("AccountRecords.export")),
    erase: (erasure) => erase(erasure).pipe(Effect.orDie, Effect.withSpan("AccountRecords.erase"))
  })
})

export const layer = Layer.effect(Leaving.AccountRecords, make)
