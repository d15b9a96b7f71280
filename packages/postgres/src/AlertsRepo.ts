/**
 * The alert ports of `@climate-grade/core` (watches, alerts, outbox) over the tables of migration
 * 0005. `SqlError`s are defects here: no rule decides on them.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import {
  AlertLog,
  Cell,
  CivilDate,
  DailySeries,
  Kinds,
  Outbox,
  type OutboxMessage,
  Payloads,
  type SentAlert,
  UserId,
  type Watch,
  WatchLimitReached,
  Watches
} from "@climate-grade/core"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { foreignKeyViolation } from "./SqlErrors.js"

/*
 * Rows as both drivers give them: double precision and integer columns are numbers, timestamptz
 * a Date, uuid text, text[] an array. The bigint outbox id is selected as text (node-postgres
 * gives int8 as a string, PGlite as a number). A row that does not decode is a defect.
 */

const Id = Schema.Struct({ id: Schema.String })

const WatchRow = Schema.Struct({
  id: Schema.String,
  user_id: UserId,
  cell_lat: Schema.Number,
  cell_lon: Schema.Number,
  lat: Schema.Number,
  lon: Schema.Number,
  // Kept as text: `toWatch` keeps the known kinds, in their order.
  kinds: Schema.Array(Schema.String),
  label: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf
})

const WATCH_SELECT = `select w.id, w.user_id, w.cell_lat, w.cell_lon, w.lat, w.lon, w.kinds, c.label, w.created_at
  from alert_watches w left join weather_cells c on c.cell_key = w.cell_key`

const toWatch = (row: typeof WatchRow.Type): Watch => ({
  id: row.id,
  userId: row.user_id,
  lat: row.lat,
  lon: row.lon,
  cell: Cell.fromCoordinates(row.cell_lat, row.cell_lon),
  label: row.label,
  kinds: Kinds.kinds.filter((k) => row.kinds.includes(k)),
  createdAt: row.created_at
})

export const makeWatches = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const watches = (where: string) =>
    SqlSchema.findAll({
      Request: Schema.String,
      Result: WatchRow,
      execute: (value) => sql.unsafe(`${WATCH_SELECT} where ${where} order by w.created_at, w.id`, [value])
    })
  const ofUser = watches("w.user_id = $1")
  const ofCell = watches("w.cell_key = $1")
  const byId = SqlSchema.single({
    Request: Schema.String,
    Result: WatchRow,
    execute: (id) => sql.unsafe(`${WATCH_SELECT} where w.id = $1`, [id])
  })
  const watchOf = (id: string) => Effect.map(byId(id), toWatch)
  const KindsRequest = Schema.Struct({ userId: Schema.String, cellKey: Schema.String, kinds: Schema.Array(Schema.String) })
  const setKinds = SqlSchema.findOne({
    Request: KindsRequest,
    Result: Id,
    execute: ({ cellKey, kinds, userId }) => sql`
      update alert_watches set kinds = ${kinds}::text[], updated_at = now()
      where user_id = ${userId} and cell_key = ${cellKey} returning id`
  })
  const countOf = SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ count: Schema.Number }),
    execute: (userId) => sql`select count(*)::int as count from alert_watches where user_id = ${userId}`
  })
  const insert = SqlSchema.single({
    Request: Schema.Struct({
      userId: Schema.String,
      cell: Schema.Struct({ key: Schema.String, lat: Schema.Number, lon: Schema.Number }),
      lat: Schema.Number,
      lon: Schema.Number,
      kinds: Schema.Array(Schema.String)
    }),
    Result: Id,
    execute: ({ cell, kinds, lat, lon, userId }) => sql`
      insert into alert_watches (user_id, cell_key, cell_lat, cell_lon, lat, lon, kinds)
      values (${userId}, ${cell.key}, ${cell.lat}, ${cell.lon}, ${lat}, ${lon}, ${kinds}::text[])
      returning id`
  })
  const removeOwn = SqlSchema.findOne({
    Request: Schema.Struct({ id: Schema.String, userId: Schema.String }),
    Result: Schema.Struct({ user_id: Schema.String }),
    execute: ({ id, userId }) => sql`delete from alert_watches where id = ${id} and user_id = ${userId} returning user_id`
  })
  const cells = SqlSchema.findAll({
    Request: Schema.Void,
    Result: Schema.Struct({ cell_lat: Schema.Number, cell_lon: Schema.Number }),
    execute: () => sql`select distinct cell_lat, cell_lon from alert_watches`
  })
  return Watches.of({
    list: (userId) => ofUser(userId).pipe(Effect.map((rows) => rows.map(toWatch)), Effect.orDie),
    upsert: (userId, watch, limit) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // The user's row is the lock that makes count-then-insert one step across requests.
            yield* sql`select id from users where id = ${userId} for update`
            const kinds = [...watch.kinds]
            const updated = yield* setKinds({ userId, cellKey: watch.cell.key, kinds })
            if (Option.isSome(updated)) return { watch: yield* watchOf(updated.value.id), created: false }
            const counted = yield* countOf(userId)
            if (Option.match(counted, { onNone: () => 0, onSome: (r) => r.count }) >= limit) {
              return yield* new WatchLimitReached({ limit })
            }
            const row = yield* insert({ userId, cell: watch.cell, lat: watch.lat, lon: watch.lon, kinds })
            return { watch: yield* watchOf(row.id), created: true }
          })
        )
        .pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die, NoSuchElementException: Effect.die })),
    remove: (userId, id) =>
      Effect.gen(function* () {
        // Not a uuid: no watch of anyone's.
        if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return "absent" as const
        if (Option.isSome(yield* removeOwn({ id, userId }))) return "removed" as const
        const other = yield* sql`select 1 from alert_watches where id = ${id}`
        return other.length > 0 ? ("foreign" as const) : ("absent" as const)
      }).pipe(Effect.orDie),
    forCell: (cellKey) => ofCell(cellKey).pipe(Effect.map((rows) => rows.map(toWatch)), Effect.orDie),
    cells: cells(undefined).pipe(
      Effect.map((rows) => rows.map((r) => Cell.fromCoordinates(r.cell_lat, r.cell_lon))),
      Effect.orDie
    )
  })
})

const AlertRow = Schema.Struct({
  id: Schema.String,
  watch_id: Schema.String,
  lat: Schema.Number,
  lon: Schema.Number,
  label: Schema.NullOr(Schema.String),
  // `date::text`: YYYY-MM-DD, parsed by CivilDate.
  date: Schema.String,
  kind: Schema.Literal(...Kinds.dailyKinds),
  variable: Schema.Literal(...DailySeries.variables),
  value: Schema.NullOr(Schema.Number),
  unit: Payloads.Grade.fields.unit,
  percentile: Schema.NullOr(Schema.Number),
  grade_label: Schema.NullOr(Payloads.Label),
  n: Schema.Number,
  content: Schema.String,
  created_at: Schema.DateFromSelf,
  delivery: Schema.Literal("queued", "muted", "off"),
  // Null when the alert has no message in the outbox.
  status: Schema.NullOr(Schema.Literal("pending", "sent", "failed", "dropped")),
  sent_at: Schema.NullOr(Schema.DateFromSelf)
})

const SpellAlertRow = Schema.Struct({
  id: Schema.String,
  watch_id: Schema.String,
  lat: Schema.Number,
  lon: Schema.Number,
  label: Schema.NullOr(Schema.String),
  kind: Schema.Literal(...Kinds.spellKinds),
  start_date: Schema.String,
  end_date: Schema.String,
  severity: Schema.Literal("low", "severe", "extreme"),
  content: Schema.String,
  created_at: Schema.DateFromSelf,
  delivery: Schema.Literal("queued", "muted", "off"),
  status: Schema.NullOr(Schema.Literal("pending", "sent", "failed", "dropped")),
  sent_at: Schema.NullOr(Schema.DateFromSelf)
})

const dayOf = (date: string) => CivilDate.parse(date) ?? 0

const toSentSpellAlert = (r: typeof SpellAlertRow.Type): SentAlert => ({
  id: r.id,
  watchId: r.watch_id,
  lat: r.lat,
  lon: r.lon,
  label: r.label,
  date: dayOf(r.start_date),
  kind: r.kind,
  variable: null,
  grade: null,
  spell: { start: dayOf(r.start_date), end: dayOf(r.end_date), severity: r.severity },
  content: r.content,
  createdAt: r.created_at,
  status: r.delivery === "queued" ? (r.status ?? "pending") : r.delivery,
  sentAt: r.sent_at
})

const toSentAlert = (r: typeof AlertRow.Type): SentAlert => ({
  id: r.id,
  watchId: r.watch_id,
  lat: r.lat,
  lon: r.lon,
  label: r.label,
  date: CivilDate.parse(r.date) ?? 0,
  kind: r.kind,
  variable: r.variable,
  grade: { value: r.value, unit: r.unit, percentile: r.percentile, label: r.grade_label, n: r.n },
  content: r.content,
  createdAt: r.created_at,
  status: r.delivery === "queued" ? (r.status ?? "pending") : r.delivery,
  sentAt: r.sent_at
})

export const makeAlertLog = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const keysSince = SqlSchema.findAll({
    Request: Schema.Struct({ watchId: Schema.String, from: Schema.String }),
    // Kept as text: a row whose date or kind is not understood is left out, not a failure.
    Result: Schema.Struct({ date: Schema.String, kind: Schema.String }),
    execute: ({ from, watchId }) =>
      sql`select date::text as date, kind from alerts where watch_id = ${watchId} and date >= ${from}::date`
  })
  const insertAlert = SqlSchema.findOne({
    Request: Schema.Struct({
      watchId: Schema.String,
      userId: Schema.String,
      date: Schema.String,
      kind: Schema.String,
      variable: Schema.String,
      value: Schema.NullOr(Schema.Number),
      unit: Schema.String,
      percentile: Schema.NullOr(Schema.Number),
      label: Schema.NullOr(Schema.String),
      n: Schema.Number,
      content: Schema.String,
      delivery: Schema.String,
      at: Schema.DateFromSelf
    }),
    Result: Id,
    execute: (a) => sql`
      insert into alerts (watch_id, user_id, date, kind, variable, value, unit, percentile, label, n, content, delivery, created_at)
      select ${a.watchId}, ${a.userId}, ${a.date}::date, ${a.kind}, ${a.variable},
             ${a.value}, ${a.unit}, ${a.percentile}, ${a.label}, ${a.n}, ${a.content}, ${a.delivery}, ${a.at}
      where exists (select 1 from alert_watches where id = ${a.watchId})
      on conflict (watch_id, date, kind) do nothing
      returning id`
  })
  const recentRows = SqlSchema.findAll({
    Request: Schema.Struct({ userId: Schema.String, limit: Schema.Number }),
    Result: AlertRow,
    execute: ({ limit, userId }) => sql`
      select a.id, a.watch_id, w.lat, w.lon, c.label, a.date::text as date, a.kind, a.variable, a.value, a.unit,
             a.percentile, a.label as grade_label, a.n, a.content, a.created_at, a.delivery, o.status, o.sent_at
      from alerts a
      join alert_watches w on w.id = a.watch_id
      left join weather_cells c on c.cell_key = w.cell_key
      left join alert_outbox o on o.alert_id = a.id
      where a.user_id = ${userId}
      order by a.created_at desc, a.date desc
      limit ${limit}`
  })
  const recentSpellRows = SqlSchema.findAll({
    Request: Schema.Struct({ userId: Schema.String, limit: Schema.Number }),
    Result: SpellAlertRow,
    execute: ({ limit, userId }) => sql`
      select a.id, a.watch_id, w.lat, w.lon, c.label, a.kind, a.start_date::text as start_date, a.end_date::text as end_date,
             a.severity, a.content, a.created_at, a.delivery, o.status, o.sent_at
      from spell_alerts a
      join alert_watches w on w.id = a.watch_id
      left join weather_cells c on c.cell_key = w.cell_key
      left join spell_alert_outbox o on o.alert_id = a.id
      where a.user_id = ${userId}
      order by a.created_at desc, a.start_date desc
      limit ${limit}`
  })
  const SpellRequest = Schema.Struct({
    watchId: Schema.String,
    kind: Schema.String,
    start: Schema.String,
    end: Schema.String
  })
  const lockWatch = SqlSchema.findOne({
    Request: Schema.String,
    Result: Id,
    execute: (watchId) => sql`select id from alert_watches where id = ${watchId} for update`
  })
  const sameSpell = SqlSchema.findOne({
    Request: SpellRequest,
    Result: Id,
    // The overlap rule of SpellAlerts.overlaps, on the days last seen.
    execute: ({ end, kind, start, watchId }) => sql`
      select id from spell_alerts
      where watch_id = ${watchId} and kind = ${kind} and start_date <= ${end}::date and end_date >= ${start}::date
      order by end_date desc
      limit 1`
  })
  const insertSpell = SqlSchema.single({
    Request: Schema.Struct({
      watchId: Schema.String,
      userId: Schema.String,
      kind: Schema.String,
      start: Schema.String,
      end: Schema.String,
      severity: Schema.String,
      rank: Schema.Number,
      of: Schema.Number,
      content: Schema.String,
      delivery: Schema.String,
      at: Schema.DateFromSelf
    }),
    Result: Id,
    execute: (a) => sql`
      insert into spell_alerts (watch_id, user_id, kind, start_date, end_date, first_start, severity, rank, of, content, delivery, created_at, updated_at)
      values (${a.watchId}, ${a.userId}, ${a.kind}, ${a.start}::date, ${a.end}::date, ${a.start}::date, ${a.severity},
              ${a.rank}, ${a.of}, ${a.content}, ${a.delivery}, ${a.at}, ${a.at})
      returning id`
  })
  return AlertLog.of({
    recordSpell: (alert, delivery) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // The watch's row is the lock: another instance checking the same watch waits here,
            // then sees this one's alert. A removed watch makes no alert.
            if (Option.isNone(yield* lockWatch(alert.watchId))) return false
            const range = { watchId: alert.watchId, kind: alert.kind, start: CivilDate.format(alert.start), end: CivilDate.format(alert.end) }
            const same = yield* sameSpell(range)
            if (Option.isSome(same)) {
              // The same spell, moved: its days become these, so it is still found as it moves on.
              yield* sql`update spell_alerts set start_date = ${range.start}::date, end_date = ${range.end}::date,
                         updated_at = ${new Date(alert.at)} where id = ${same.value.id}`
              return false
            }
            const inserted = yield* insertSpell({
              watchId: alert.watchId,
              userId: alert.userId,
              kind: alert.kind,
              start: range.start,
              end: range.end,
              severity: alert.severity,
              rank: alert.rank,
              of: alert.of,
              content: alert.content,
              delivery,
              at: new Date(alert.at)
            })
            if (delivery === "queued") {
              yield* sql`insert into spell_alert_outbox (alert_id, user_id, content, due_at, created_at)
                         values (${inserted.id}, ${alert.userId}, ${alert.content}, ${new Date(alert.at)}, ${new Date(alert.at)})`
            }
            return true
          })
        )
        .pipe(
          Effect.catchIf(
            (e): e is SqlError => e._tag === "SqlError" && foreignKeyViolation(e) !== undefined,
            () => Effect.succeed(false)
          ),
          Effect.orDie
        ),
    madeSince: (watchId, from) =>
      keysSince({ watchId, from: CivilDate.format(from) }).pipe(
        Effect.map(
          (rows) =>
            new Set(
              rows.flatMap((r) => {
                const day = CivilDate.parse(r.date)
                return day !== undefined && Kinds.isKind(r.kind) ? [`${day}|${r.kind}`] : []
              })
            )
        ),
        Effect.orDie
      ),
    record: (alert, delivery) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // Only while the watch exists: one removed while its cell was evaluated makes no alert.
            // (The foreign key still guards a removal that commits between this check and the
            // insert: that refusal is caught below, the same outcome.)
            const g = alert.grade
            const inserted = yield* insertAlert({
              watchId: alert.watchId,
              userId: alert.userId,
              date: CivilDate.format(alert.date),
              kind: alert.kind,
              variable: alert.variable,
              value: g.value,
              unit: g.unit,
              percentile: g.percentile,
              label: g.label,
              n: g.n,
              content: alert.content,
              delivery,
              at: new Date(alert.at)
            })
            if (Option.isNone(inserted)) return false
            if (delivery === "queued") {
              // Times from the service's clock, like every other time the sender compares.
              yield* sql`insert into alert_outbox (alert_id, user_id, content, due_at, created_at)
                         values (${inserted.value.id}, ${alert.userId}, ${alert.content}, ${new Date(alert.at)}, ${new Date(alert.at)})`
            }
            return true
          })
        )
        .pipe(
          // The watch (or its user) removed by another transaction meanwhile: no alert, no error.
          Effect.catchIf(
            (e): e is SqlError => e._tag === "SqlError" && foreignKeyViolation(e) !== undefined,
            () => Effect.succeed(false)
          ),
          Effect.orDie
        ),
    recent: (userId, limit) =>
      Effect.zipWith(recentRows({ userId, limit }), recentSpellRows({ userId, limit }), (daily, spells) =>
        [...daily.map(toSentAlert), ...spells.map(toSentSpellAlert)]
          .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.date - a.date)
          .slice(0, limit)
      ).pipe(Effect.orDie)
  })
})

const ClaimRow = Schema.Struct({
  id: Schema.String,
  alert_id: Schema.String,
  user_id: UserId,
  content: Schema.String,
  attempts: Schema.Number,
  created_at: Schema.DateFromSelf
})

/** One outbox table: `alert_outbox` (daily alerts) or `spell_alert_outbox` (spells), the same columns. */
const tableOutbox = (table: "alert_outbox" | "spell_alert_outbox") =>
  Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const t = sql(table)
  const set = (id: string, fields: ReturnType<typeof sql.update>) =>
    Effect.orDie(Effect.asVoid(sql`update ${t} set ${fields} where id = ${id}::bigint`))
  const claimRows = SqlSchema.findAll({
    Request: Schema.Struct({ now: Schema.Number, leaseUntil: Schema.Number, limit: Schema.Number }),
    Result: ClaimRow,
    // `= any(array(…))` runs the locking subquery once; `in (…)` may let the planner rerun it.
    execute: ({ leaseUntil, limit, now }) => sql`
      update ${t} set claimed_until = ${new Date(leaseUntil)}, attempts = attempts + 1
      where id = any(array(
        select id from ${t}
        where status = 'pending' and due_at <= ${new Date(now)} and (claimed_until is null or claimed_until <= ${new Date(now)})
        order by due_at, id
        limit ${limit}
        for update skip locked))
      returning id::text as id, alert_id::text as alert_id, user_id, content, attempts, created_at`
  })
  const nextDue = SqlSchema.findOne({
    Request: Schema.Void,
    Result: Schema.Struct({ at: Schema.NullOr(Schema.DateFromSelf) }),
    execute: () => sql`
      select min(greatest(due_at, coalesce(claimed_until, due_at))) as at from ${t} where status = 'pending'`
  })
  const stats = SqlSchema.findOne({
    Request: Schema.Void,
    // `::int` counts: numbers from both drivers (a bare count(*) is int8, a string from node-postgres).
    Result: Schema.Struct({ pending: Schema.Number, failed: Schema.Number, oldest: Schema.NullOr(Schema.DateFromSelf) }),
    execute: () => sql`
      select count(*) filter (where status = 'pending')::int as pending,
             count(*) filter (where status = 'failed')::int as failed,
             min(created_at) filter (where status = 'pending') as oldest
      from ${t}`
  })
  return Outbox.of({
    claim: (now, leaseUntil, limit) =>
      claimRows({ now, leaseUntil, limit }).pipe(
        Effect.map((rows) =>
          rows.map(
            (r): OutboxMessage => ({
              id: r.id,
              alertId: r.alert_id,
              userId: r.user_id,
              content: r.content,
              attempts: r.attempts,
              createdAt: r.created_at.getTime()
            })
          )
        ),
        Effect.orDie
      ),
    markSent: (id, at) => set(id, sql.update({ status: "sent", sent_at: new Date(at), claimed_until: null })),
    retry: (id, dueAt, error) =>
      set(id, sql.update({ due_at: new Date(dueAt), last_error: error.slice(0, 500), claimed_until: null })),
    markFailed: (id, error) => set(id, sql.update({ status: "failed", last_error: error.slice(0, 500), claimed_until: null })),
    drop: (id, reason) => set(id, sql.update({ status: "dropped", last_error: reason, claimed_until: null })),
    release: (id) =>
      Effect.orDie(
        Effect.asVoid(
          sql`update ${t} set claimed_until = null, attempts = greatest(attempts - 1, 0)
              where id = ${id}::bigint and status = 'pending'`
        )
      ),
    nextDue: nextDue(undefined).pipe(
      Effect.map((row) => Option.match(row, { onNone: () => null, onSome: (r) => r.at?.getTime() ?? null })),
      Effect.orDie
    ),
    stats: stats(undefined).pipe(
      Effect.map((row) =>
        Option.match(row, {
          onNone: () => ({ pending: 0, failed: 0, oldestPending: null }),
          onSome: (r) => ({ pending: r.pending, failed: r.failed, oldestPending: r.oldest?.getTime() ?? null })
        })
      ),
      Effect.orDie
    )
  })
})

/**
 * The outbox the sender drains: both tables, as one. A spell's message's id carries the prefix
 * `spell-`, so each outcome goes back to the row it came from; claims take the daily alerts' first.
 */
export const makeOutbox = Effect.gen(function* () {
  const daily = yield* tableOutbox("alert_outbox")
  const spells = yield* tableOutbox("spell_alert_outbox")
  const PREFIX = "spell-"
  const route = <A>(id: string, f: (outbox: Context.Tag.Service<typeof Outbox>, id: string) => A): A =>
    id.startsWith(PREFIX) ? f(spells, id.slice(PREFIX.length)) : f(daily, id)
  return Outbox.of({
    claim: (now, leaseUntil, limit) =>
      Effect.gen(function* () {
        const first = yield* daily.claim(now, leaseUntil, limit)
        if (first.length >= limit) return first
        const more = yield* spells.claim(now, leaseUntil, limit - first.length)
        return [...first, ...more.map((m) => ({ ...m, id: `${PREFIX}${m.id}` }))]
      }),
    markSent: (id, at) => route(id, (o, id) => o.markSent(id, at)),
    retry: (id, dueAt, error) => route(id, (o, id) => o.retry(id, dueAt, error)),
    markFailed: (id, error) => route(id, (o, id) => o.markFailed(id, error)),
    drop: (id, reason) => route(id, (o, id) => o.drop(id, reason)),
    release: (id) => route(id, (o, id) => o.release(id)),
    nextDue: Effect.zipWith(daily.nextDue, spells.nextDue, (a, b) => (a === null ? b : b === null ? a : Math.min(a, b))),
    stats: Effect.zipWith(daily.stats, spells.stats, (a, b) => ({
      pending: a.pending + b.pending,
      failed: a.failed + b.failed,
      oldestPending:
        a.oldestPending === null ? b.oldestPending : b.oldestPending === null ? a.oldestPending : Math.min(a.oldestPending, b.oldestPending)
    }))
  })
})

export const layer = Layer.mergeAll(
  Layer.effect(Watches, makeWatches),
  Layer.effect(AlertLog, makeAlertLog),
  Layer.effect(Outbox, makeOutbox)
)
