/**
 * The alert ports of `@climate-grade/core` (watches, alerts, outbox) over the tables of migration
 * 0005. `SqlError`s are defects here: no rule decides on them.
 */
import { SqlClient } from "@effect/sql"
import {
  AlertLog,
  Cell,
  CivilDate,
  Kinds,
  Outbox,
  type OutboxMessage,
  type SentAlert,
  type UserId,
  type Watch,
  WatchLimitReached,
  Watches
} from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { foreignKeyViolation } from "./SqlErrors.js"

interface WatchRow {
  readonly id: string
  readonly user_id: string
  readonly cell_lat: number
  readonly cell_lon: number
  readonly lat: number
  readonly lon: number
  readonly kinds: ReadonlyArray<string>
  readonly label: string | null
  readonly created_at: Date
}

const WATCH_SELECT = `select w.id, w.user_id, w.cell_lat, w.cell_lon, w.lat, w.lon, w.kinds, c.label, w.created_at
  from alert_watches w left join weather_cells c on c.cell_key = w.cell_key`

const toWatch = (row: WatchRow): Watch => ({
  id: row.id,
  userId: row.user_id as UserId,
  lat: row.lat,
  lon: row.lon,
  cell: Cell.fromCoordinates(row.cell_lat, row.cell_lon),
  label: row.label,
  kinds: Kinds.kinds.filter((k) => row.kinds.includes(k)),
  createdAt: row.created_at
})

export const makeWatches = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const byId = (id: string) =>
    Effect.map(sql.unsafe<WatchRow>(`${WATCH_SELECT} where w.id = $1`, [id]), (rows) => toWatch(rows[0]!))
  return Watches.of({
    list: (userId) =>
      sql
        .unsafe<WatchRow>(`${WATCH_SELECT} where w.user_id = $1 order by w.created_at, w.id`, [userId])
        .pipe(Effect.map((rows) => rows.map(toWatch)), Effect.orDie),
    upsert: (userId, watch, limit) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // The user's row is the lock that makes count-then-insert one step across requests.
            yield* sql`select id from users where id = ${userId} for update`
            const kinds = [...watch.kinds]
            const updated = yield* sql<{ id: string }>`
              update alert_watches set kinds = ${kinds}::text[], updated_at = now()
              where user_id = ${userId} and cell_key = ${watch.cell.key} returning id`
            if (updated.length > 0) return { watch: yield* byId(updated[0]!.id), created: false }
            const counted = yield* sql<{ count: number }>`
              select count(*)::int as count from alert_watches where user_id = ${userId}`
            if ((counted[0]?.count ?? 0) >= limit) return yield* new WatchLimitReached({ limit })
            const [row] = yield* sql<{ id: string }>`
              insert into alert_watches (user_id, cell_key, cell_lat, cell_lon, lat, lon, kinds)
              values (${userId}, ${watch.cell.key}, ${watch.cell.lat}, ${watch.cell.lon}, ${watch.lat}, ${watch.lon}, ${kinds}::text[])
              returning id`
            return { watch: yield* byId(row!.id), created: true }
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die)),
    remove: (userId, id) =>
      Effect.gen(function* () {
        // Not a uuid: no watch of anyone's.
        if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return "absent" as const
        const rows = yield* sql<{ user_id: string }>`delete from alert_watches where id = ${id} and user_id = ${userId} returning user_id`
        if (rows.length > 0) return "removed" as const
        const other = yield* sql`select 1 from alert_watches where id = ${id}`
        return other.length > 0 ? ("foreign" as const) : ("absent" as const)
      }).pipe(Effect.orDie),
    forCell: (cellKey) =>
      sql
        .unsafe<WatchRow>(`${WATCH_SELECT} where w.cell_key = $1 order by w.created_at, w.id`, [cellKey])
        .pipe(Effect.map((rows) => rows.map(toWatch)), Effect.orDie),
    cells: sql<{ cell_lat: number; cell_lon: number }>`
      select distinct cell_lat, cell_lon from alert_watches`.pipe(
      Effect.map((rows) => rows.map((r) => Cell.fromCoordinates(r.cell_lat, r.cell_lon))),
      Effect.orDie
    )
  })
})

interface AlertRow {
  readonly id: string
  readonly watch_id: string
  readonly lat: number
  readonly lon: number
  readonly label: string | null
  readonly date: string
  readonly kind: Kinds.Kind
  readonly variable: "tmax" | "tmin" | "precip"
  readonly value: number | null
  readonly unit: "°C" | "mm"
  readonly percentile: number | null
  readonly grade_label: SentAlert["grade"]["label"]
  readonly n: number
  readonly content: string
  readonly created_at: Date
  readonly delivery: "queued" | "muted" | "off"
  readonly status: "pending" | "sent" | "failed" | "dropped" | null
  readonly sent_at: Date | null
}

export const makeAlertLog = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return AlertLog.of({
    madeSince: (watchId, from) =>
      sql<{ date: string; kind: string }>`
        select date::text as date, kind from alerts where watch_id = ${watchId} and date >= ${CivilDate.format(from)}::date`.pipe(
        Effect.map(
          (rows) =>
            new Set(
              rows.flatMap((r) => {
                const day = CivilDate.parse(r.date)
                return day._tag === "Some" && Kinds.isKind(r.kind) ? [`${day.value}|${r.kind}`] : []
              })
            )
        ),
        Effect.orDie
      ),
    record: (alert, delivery) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const g = alert.grade
            // Only while the watch exists: one removed while its cell was evaluated makes no alert.
            // (The foreign key still guards a removal that commits between this check and the
            // insert: that refusal is caught below, the same outcome.)
            const inserted = yield* sql<{ id: string }>`
              insert into alerts (watch_id, user_id, date, kind, variable, value, unit, percentile, label, n, content, delivery, created_at)
              select ${alert.watchId}, ${alert.userId}, ${CivilDate.format(alert.date)}::date, ${alert.kind}, ${alert.variable},
                     ${g.value}, ${g.unit}, ${g.percentile}, ${g.label}, ${g.n}, ${alert.content}, ${delivery}, ${new Date(alert.at)}
              where exists (select 1 from alert_watches where id = ${alert.watchId})
              on conflict (watch_id, date, kind) do nothing
              returning id`
            const created = inserted[0]
            if (created === undefined) return false
            if (delivery === "queued") {
              // Times from the service's clock, like every other time the sender compares.
              yield* sql`insert into alert_outbox (alert_id, user_id, content, due_at, created_at)
                         values (${created.id}, ${alert.userId}, ${alert.content}, ${new Date(alert.at)}, ${new Date(alert.at)})`
            }
            return true
          })
        )
        .pipe(
          // The watch (or its user) removed by another transaction meanwhile: no alert, no error.
          Effect.catchIf((e) => foreignKeyViolation(e) !== undefined, () => Effect.succeed(false)),
          Effect.orDie
        ),
    recent: (userId, limit) =>
      sql<AlertRow>`
        select a.id, a.watch_id, w.lat, w.lon, c.label, a.date::text as date, a.kind, a.variable, a.value, a.unit,
               a.percentile, a.label as grade_label, a.n, a.content, a.created_at, a.delivery, o.status, o.sent_at
        from alerts a
        join alert_watches w on w.id = a.watch_id
        left join weather_cells c on c.cell_key = w.cell_key
        left join alert_outbox o on o.alert_id = a.id
        where a.user_id = ${userId}
        order by a.created_at desc, a.date desc
        limit ${limit}`.pipe(
        Effect.map((rows) =>
          rows.map(
            (r): SentAlert => ({
              id: r.id,
              watchId: r.watch_id,
              lat: r.lat,
              lon: r.lon,
              label: r.label,
              date: CivilDate.parse(r.date).pipe((d) => (d._tag === "Some" ? d.value : 0)),
              kind: r.kind,
              variable: r.variable,
              grade: { value: r.value, unit: r.unit, percentile: r.percentile, label: r.grade_label, n: r.n },
              content: r.content,
              createdAt: r.created_at,
              status: r.delivery === "queued" ? (r.status ?? "pending") : r.delivery,
              sentAt: r.sent_at
            })
          )
        ),
        Effect.orDie
      )
  })
})

interface ClaimRow {
  readonly id: string
  readonly alert_id: string
  readonly user_id: string
  readonly content: string
  readonly attempts: number
  readonly created_at: Date
}

export const makeOutbox = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const set = (id: string, fields: ReturnType<typeof sql.update>) =>
    Effect.orDie(Effect.asVoid(sql`update alert_outbox set ${fields} where id = ${id}::bigint`))
  return Outbox.of({
    claim: (now, leaseUntil, limit) =>
      // `= any(array(…))` runs the locking subquery once; `in (…)` may let the planner rerun it.
      sql<ClaimRow>`
        update alert_outbox set claimed_until = ${new Date(leaseUntil)}, attempts = attempts + 1
        where id = any(array(
          select id from alert_outbox
          where status = 'pending' and due_at <= ${new Date(now)} and (claimed_until is null or claimed_until <= ${new Date(now)})
          order by due_at, id
          limit ${limit}
          for update skip locked))
        returning id::text as id, alert_id::text as alert_id, user_id, content, attempts, created_at`.pipe(
        Effect.map((rows) =>
          rows.map(
            (r): OutboxMessage => ({
              id: r.id,
              alertId: r.alert_id,
              userId: r.user_id as UserId,
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
          sql`update alert_outbox set claimed_until = null, attempts = greatest(attempts - 1, 0)
              where id = ${id}::bigint and status = 'pending'`
        )
      ),
    nextDue: sql<{ at: Date | null }>`
      select min(greatest(due_at, coalesce(claimed_until, due_at))) as at from alert_outbox where status = 'pending'`.pipe(
      Effect.map((rows) => rows[0]?.at?.getTime() ?? null),
      Effect.orDie
    ),
    stats: sql<{ pending: number; failed: number; oldest: Date | null }>`
      select count(*) filter (where status = 'pending')::int as pending,
             count(*) filter (where status = 'failed')::int as failed,
             min(created_at) filter (where status = 'pending') as oldest
      from alert_outbox`.pipe(
      Effect.map((rows) => ({
        pending: rows[0]?.pending ?? 0,
        failed: rows[0]?.failed ?? 0,
        oldestPending: rows[0]?.oldest?.getTime() ?? null
      })),
      Effect.orDie
    )
  })
})

export const layer = Layer.mergeAll(
  Layer.effect(Watches, makeWatches),
  Layer.effect(AlertLog, makeAlertLog),
  Layer.effect(Outbox, makeOutbox)
)
