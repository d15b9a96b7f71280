import { deflateRawSync, inflateRawSync } from "node:zlib"
import { SqlClient, SqlSchema } from "@effect/sql"
import { type Cell, CellStore } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { PoolSize } from "./Database.js"
import { PgliteClient } from "./PgliteClient.js"
import * as SeriesCodec from "./SeriesCodec.js"

/**
 * A cell as stored. The series stay bytes here (bytea: a Uint8Array from PGlite, a Buffer from
 * node-postgres), inflated and decoded by `decodeSeries` below; timestamptz is a Date from both.
 */
const Row = Schema.Struct({
  timezone: Schema.NullOr(Schema.String),
  label: Schema.NullOr(Schema.String),
  history: Schema.NullOr(Schema.Uint8ArrayFromSelf),
  history_checked_at: Schema.NullOr(Schema.DateFromSelf),
  forecast: Schema.NullOr(Schema.Uint8ArrayFromSelf),
  forecast_stamp: Schema.NullOr(Schema.DateFromSelf),
  forecast_checked_at: Schema.NullOr(Schema.DateFromSelf)
})

/**
 * Series are stored deflated: an 85-year history shrinks ~3×, and PGlite's cost of passing a
 * bytea parameter grows with its size. A stored series that does not decode is a defect:
 * nothing but this code writes the column.
 */
const decodeSeries = (bytes: Uint8Array | null) =>
  bytes === null
    ? Effect.succeed(null)
    : Effect.try(() => inflateRawSync(bytes)).pipe(
        Effect.orDie,
        Effect.flatMap((raw) =>
          Either.match(SeriesCodec.decode(raw), { onLeft: (e) => Effect.die(new Error(e)), onRight: Effect.succeed })
        )
      )

const encodeSeries = (series: Parameters<typeof SeriesCodec.encode>[0]) =>
  deflateRawSync(SeriesCodec.encode(series), { level: 1 })

/** Namespace of this service's cell claims among advisory locks. */
const CLAIM_NAMESPACE = 727_000_002

/**
 * Claims held at once by one process with a pool of `poolSize`. Each holds a pooled connection
 * for as long as its upstream call runs (up to 30 s); the rest of the pool stays free for
 * sessions, payloads and health (four of the default ten).
 */
export const maxClaims = (poolSize: number): number => (poolSize >= 8 ? poolSize - 4 : Math.max(1, Math.floor(poolSize / 2)))

/** A label claim older than this was left by a process that died (a lookup takes at most seconds). */
const LABEL_CLAIM_STALE_MS = 60_000

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // PGlite serves one process; there is nobody else to wait for.
  const singleProcess = Option.isSome(yield* Effect.serviceOption(PgliteClient))
  const claims = yield* Effect.makeSemaphore(maxClaims(yield* PoolSize))

  /** One statement per write (each costs a round trip, and PGlite's are not cheap). */
  const upsert = (cell: Cell.Cell, columns: Record<string, unknown>, keepTimezone = false) => {
    const names = Object.keys(columns)
    const values = Object.values(columns)
    const placeholders = names.map((_, i) => `$${i + 4}`).join(", ")
    const updates = names
      .map((n) =>
        n === "timezone" && keepTimezone ? `timezone = coalesce(weather_cells.timezone, excluded.timezone)` : `${n} = excluded.${n}`
      )
      .join(", ")
    return sql
      .unsafe(
        `insert into weather_cells (cell_key, lat, lon, ${names.join(", ")}) values ($1, $2, $3, ${placeholders})
         on conflict (cell_key) do update set ${updates}, updated_at = now()`,
        [cell.key, cell.lat, cell.lon, ...values]
      )
      .pipe(Effect.asVoid, Effect.orDie)
  }

  const stored = SqlSchema.findOne({
    Request: Schema.String,
    Result: Row,
    execute: (key) => sql`
      select timezone, label, history, history_checked_at, forecast, forecast_stamp, forecast_checked_at
      from weather_cells where cell_key = ${key}`
  })

  const storedLabel = SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ label: Schema.NullOr(Schema.String) }),
    execute: (key) => sql`select label from weather_cells where cell_key = ${key}`
  })

  const claimLabelRow = SqlSchema.findOne({
    Request: Schema.Struct({ key: Schema.String, now: Schema.Number }),
    Result: Schema.Struct({ cell_key: Schema.String }),
    execute: ({ key, now }) => sql`
      insert into geocoder_claims as c (cell_key, claimed_at) values (${key}, ${now})
      on conflict (cell_key) do update set claimed_at = excluded.claimed_at
        where c.claimed_at < ${now - LABEL_CLAIM_STALE_MS}
      returning cell_key`
  })

  // A row that does not decode is a defect, as a series that does not: only this code writes them.
  const load = (key: string) =>
    Effect.gen(function* () {
      const found = yield* stored(key)
      if (Option.isNone(found)) return Option.none()
      const row = found.value
      return Option.some({
        key,
        timezone: row.timezone,
        label: row.label,
        history: yield* decodeSeries(row.history),
        historyCheckedAt: row.history_checked_at?.getTime() ?? null,
        forecast: yield* decodeSeries(row.forecast),
        forecastStamp: row.forecast_stamp?.getTime() ?? null,
        forecastCheckedAt: row.forecast_checked_at?.getTime() ?? null
      })
    }).pipe(Effect.orDie, Effect.withSpan("CellStore.load"))

  return CellStore.of({
    load,
    // PGlite: this process is the only writer, so what it holds is what is stored. A PostgreSQL
    // server: another instance may have written while this one waited for the claim.
    latest: (key, held) => (singleProcess && Option.isSome(held) ? Effect.succeed(held) : load(key)),
    saveHistory: (cell, { checkedAt, history, timezone }) =>
      upsert(cell, {
        timezone,
        history: history === null ? null : encodeSeries(history),
        history_checked_at: new Date(checkedAt)
      }),
    markHistoryChecked: (cell, checkedAt) => upsert(cell, { history_checked_at: new Date(checkedAt) }),
    saveForecast: (cell, { forecast, stamp, timezone }) =>
      // The archive's time zone wins once known; the forecast's fills it for a cell without history.
      upsert(
        cell,
        { timezone, forecast: encodeSeries(forecast), forecast_stamp: new Date(stamp), forecast_checked_at: new Date(stamp) },
        true
      ),
    markForecastChecked: (cell, checkedAt) => upsert(cell, { forecast_checked_at: new Date(checkedAt) }),
    saveLabel: (cell, label) => upsert(cell, { label }),
    label: (key) =>
      storedLabel(key).pipe(
        Effect.map(Option.match({ onNone: () => null, onSome: (row) => row.label })),
        Effect.orDie
      ),
    // A row, not an advisory lock: the lookup may wait its turn at the geocoder for a while,
    // and must not hold a pooled connection meanwhile.
    claimLabel: (key, now) => claimLabelRow({ key, now }).pipe(Effect.map(Option.isSome), Effect.orDie),
    releaseLabel: (key) => sql`delete from geocoder_claims where cell_key = ${key}`.pipe(Effect.asVoid, Effect.orDie),
    // The claim is a transaction holding an advisory lock: every statement of the claimed work
    // runs on that one connection (a claim that needed a second pooled connection could starve
    // the pool: ten claims each waiting for an eleventh connection), and the lock is released by
    // the commit that makes the work visible to whoever waits for it. The work's writes commit
    // even when it fails: a failed top-up's attempt stamp must stay.
    exclusive: (key, kind, effect) =>
      singleProcess
        ? effect
        : claims.withPermits(1)(
            sql
              .withTransaction(
                Effect.zipRight(
                  Effect.orDie(sql`select pg_advisory_xact_lock(${CLAIM_NAMESPACE}, hashtext(${`${kind}:${key}`}))`),
                  Effect.exit(effect)
                )
              )
              .pipe(Effect.orDie, Effect.flatten)
          )
  })
})

export const layer = Layer.effect(CellStore, make)
