import { SqlClient, SqlSchema } from "@effect/sql"
import { Lru, type PayloadKey, PayloadStore, type StoredPayload } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * A stored payload. The JSON stays bytes (bytea: a Uint8Array from PGlite, a Buffer from
 * node-postgres), served as it is and never parsed here; a row that does not decode is a defect.
 */
const Row = Schema.Struct({ token: Schema.String, json: Schema.Uint8ArrayFromSelf })

export interface PayloadRepoOptions {
  /** How many payloads to keep in memory in front of the table (the replay hot path). */
  readonly memoryEntries?: number
  /** And how many bytes of JSON at most (default 16 MB). */
  readonly memoryBytes?: number
}

/**
 * Payloads in the `payloads` table, with a bounded in-memory layer in front so a replay of a hot
 * payload does not touch the database. The table lets a restart, or another instance, replay
 * without rebuilding. It holds the JSON only, as the port does: migration 0010 dropped the gzip
 * column (see there why).
 */
export const make = (options: PayloadRepoOptions = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const capacity = options.memoryEntries ?? 2_000
    const memory = Lru.make<string, StoredPayload>({
      name: "payloads",
      capacity,
      maxWeight: options.memoryBytes ?? 16 * 1024 * 1024,
      weigh: (payload) => payload.json.byteLength + payload.token.length + 128
    })
    const remember = (id: string, payload: StoredPayload) => memory.set(id, payload)
    const idOf = (key: { cell: string; view: string; params: string }): string => `${key.view}|${key.cell}|${key.params}`
    const stored = SqlSchema.findOne({
      Request: Schema.Struct({ cell: Schema.String, view: Schema.String, params: Schema.String }),
      Result: Row,
      execute: (key) =>
        sql`select token, json from payloads where cell_key = ${key.cell} and view = ${key.view} and params = ${key.params}`
    })

    const Rows = Schema.Struct({ view: Schema.String, params: Schema.String, token: Schema.String, json: Schema.Uint8ArrayFromSelf })
    /** One cell's payloads under several (view, params), read in one statement. */
    const storedOfCell = SqlSchema.findAll({
      Request: Schema.Struct({ cell: Schema.String, keys: Schema.Array(Schema.Struct({ view: Schema.String, params: Schema.String })) }),
      Result: Rows,
      execute: ({ cell, keys }) =>
        sql`select view, params, token, json from payloads where cell_key = ${cell} and ${sql.or(
          keys.map((k) => sql.and([sql`view = ${k.view}`, sql`params = ${k.params}`]))
        )}`
    })
    const write = (entries: ReadonlyArray<readonly [PayloadKey, StoredPayload]>) =>
      sql`insert into payloads ${sql.insert(
        entries.map(([key, payload]) => ({
          cell_key: key.cell,
          view: key.view,
          params: key.params,
          token: payload.token,
          json: Buffer.from(payload.json.buffer, payload.json.byteOffset, payload.json.byteLength)
        }))
      )}
        on conflict (cell_key, view, params) do update
        set token = excluded.token, json = excluded.json, created_at = now()`.pipe(
        Effect.tap(() => Effect.sync(() => entries.forEach(([key, payload]) => remember(idOf(key), payload)))),
        Effect.asVoid,
        Effect.orDie
      )

    const get = (key: PayloadKey) =>
      Effect.suspend(() => {
        const id = idOf(key)
        // A hit becomes the most recently used.
        const hit = memory.get(id)
        if (hit !== undefined) return Effect.succeedSome(hit)
        return stored(key).pipe(
          Effect.map(
            Option.map((row) => {
              const payload = { token: row.token, json: row.json }
              remember(id, payload)
              return payload
            })
          ),
          Effect.orDie
        )
      })

    return PayloadStore.of({
      get,
      getAll: (keys) =>
        Effect.suspend(() => {
          const found = keys.map((key) => Option.fromNullable(memory.get(idOf(key))))
          const missing = keys.filter((_, i) => Option.isNone(found[i]!))
          if (missing.length === 0) return Effect.succeed(found)
          // A bundle's keys are one cell's; any others are read one by one.
          const cell = missing[0]!.cell
          const sameCell = missing.filter((k) => k.cell === cell)
          return Effect.gen(function* () {
            const rows = yield* storedOfCell({ cell, keys: sameCell.map((k) => ({ view: k.view, params: k.params })) }).pipe(Effect.orDie)
            const byId = new Map<string, StoredPayload>(rows.map((row) => [idOf({ cell, view: row.view, params: row.params }), { token: row.token, json: row.json }]))
            const result: Array<Option.Option<StoredPayload>> = []
            for (let i = 0; i < keys.length; i++) {
              const key = keys[i]!
              if (Option.isSome(found[i]!)) result.push(found[i]!)
              else if (key.cell !== cell) result.push(yield* get(key))
              else {
                const row = byId.get(idOf(key))
                if (row !== undefined) remember(idOf(key), row)
                result.push(Option.fromNullable(row))
              }
            }
            return result
          })
        }),
      put: (key, payload) => write([[key, payload]]),
      putAll: (entries) => (entries.length === 0 ? Effect.void : write(entries))
    })
  })

export const layer = (options?: PayloadRepoOptions) => Layer.effect(PayloadStore, make(options))
