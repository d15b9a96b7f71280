import { SqlClient, SqlSchema } from "@effect/sql"
import { Lru, PayloadStore, type StoredPayload } from "@climate-grade/core"
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
    const idOf = (key: { cell: string; view: string; params: string }) => `${key.view}|${key.cell}|${key.params}`
    const stored = SqlSchema.findOne({
      Request: Schema.Struct({ cell: Schema.String, view: Schema.String, params: Schema.String }),
      Result: Row,
      execute: (key) =>
        sql`select token, json from payloads where cell_key = ${key.cell} and view = ${key.view} and params = ${key.params}`
    })

    return PayloadStore.of({
      get: (key) =>
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
        }),
      put: (key, payload) =>
        sql`insert into payloads (cell_key, view, params, token, json)
            values (${key.cell}, ${key.view}, ${key.params}, ${payload.token}, ${Buffer.from(payload.json)})
            on conflict (cell_key, view, params) do update
            set token = excluded.token, json = excluded.json, created_at = now()`.pipe(
          Effect.tap(() => Effect.sync(() => remember(idOf(key), payload))),
          Effect.asVoid,
          Effect.orDie
        )
    })
  })

export const layer = (options?: PayloadRepoOptions) => Layer.effect(PayloadStore, make(options))
