/**
 * The core's `Leaving.AccountRecords` over every table that holds something of a user: the export
 * reads them (never a password hash, a token hash or a secret), the erasure deletes the account in
 * one transaction — its links, sessions, watches, alerts and outbox messages go with its row
 * (`on delete cascade`) — and writes the one record that stays.
 */
import { SqlClient } from "@effect/sql"
import { Leaving, UpstreamBudget, type UserId } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Record from "effect/Record"
import * as Schema from "effect/Schema"

/** A timestamp column as the export writes it (ISO 8601, UTC, milliseconds), in the same text from both drivers. */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/**
 * Each part of the export but the account, as one query over the table(s) holding it, with the
 * export's own names: its rows are decoded by the core's `Leaving.AccountExport` as they come.
 * `$1` is the user's id, but for the weather units, kept under the user's key in the ledger.
 */
const PARTS: { readonly [K in Exclude<keyof Leaving.AccountExport, "account">]: string } = {
  links: `select provider, subject, email, ${iso("created_at")} as created_at from oauth_accounts where user_id = $1
    order by provider`,
  sessions: `select ${iso("created_at")} as created_at, ${iso("expires_at")} as expires_at from sessions where user_id = $1
    order by sessions.created_at, sessions.expires_at`,
  watches: `select id, cell_key as cell, lat, lon, kinds, ${iso("created_at")} as created_at, ${iso("updated_at")} as updated_at
    from alert_watches where user_id = $1 order by alert_watches.created_at, id`,
  alerts: `select id, watch_id, date::text as date, kind, variable, value, unit, percentile, label, n, content, delivery,
      ${iso("created_at")} as created_at
    from alerts where user_id = $1 order by alerts.created_at, id`,
  spell_alerts: `select id, watch_id, kind, start_date::text as start_date, end_date::text as end_date, severity, rank, "of",
      content, delivery, ${iso("created_at")} as created_at, ${iso("updated_at")} as updated_at
    from spell_alerts where user_id = $1 order by spell_alerts.created_at, id`,
  messages: `select alert_id, content, status, attempts, ${iso("created")} as created_at, ${iso("sent")} as sent_at from (
      select alert_id, content, status, attempts, created_at as created, sent_at as sent from alert_outbox where user_id = $1
      union all
      select alert_id, content, status, attempts, created_at, sent_at from spell_alert_outbox where user_id = $1
    ) m order by created, alert_id`,
  weather_units: `select (date '1970-01-01' + day)::text as date, spent as units from weather_budget_shares
    where spender = $1 order by day`,
  audit: `select activity, ${iso("created_at")} as created_at, data::text as data from audit_log
    where data->>'user_id' = $1 order by id`
}

type Row = { readonly [column: string]: unknown }

const decodeExport = Schema.decodeUnknown(Leaving.AccountExport)

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const exportOf = (userId: UserId) =>
    Effect.gen(function* () {
      const [account] = yield* sql.unsafe(
        `select id, email, is_active, is_superuser, is_verified, oauth_only, chat_id, chat_dm, lang, units, ${iso("created_at")} as created_at
         from users where id = $1`,
        [userId]
      )
      if (account === undefined) return undefined
      const parts = yield* Effect.all(
        Record.map(PARTS, (text, part) =>
          sql.unsafe<Row>(text, [part === "weather_units" ? UpstreamBudget.userKey(userId) : userId])
        )
      )
      // The audit's data comes as text, the same from both drivers, and is given as the JSON it holds.
      const audit = parts.audit.map((r) => ({ ...r, data: JSON.parse(String(r.data)) }))
      return yield* decodeExport({ account, ...parts, audit })
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
