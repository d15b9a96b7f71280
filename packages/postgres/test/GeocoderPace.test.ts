/**
 * The geocoder's pace shared by every instance (PGlite and PostgreSQL), on the database's clock:
 * claims made at once, on a pool of connections as several instances would, get starts one gap
 * apart; a stored start far ahead (a clock that was wrong) is not believed.
 */
import { describe, expect, layer } from "@effect/vitest"
import { GeocoderPace } from "@climate-grade/core"
import { GeocoderPaceRepo } from "@climate-grade/postgres"
import { backends } from "@climate-grade/testing"
import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const GAP = 1_000

for (const backend of backends) {
  describe(`the geocoder's shared pace on ${backend.name}`, () => {
    layer(Layer.provideMerge(GeocoderPaceRepo.layer, backend.layer), { timeout: 120_000 })((it) => {
      const stored = Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.map(sql<{ value: string }>`select value from settings where key = ${GeocoderPaceRepo.KEY}`, (rows) => Number(rows[0]!.value))
      )
      const set = (sqlExpression: string) =>
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql.unsafe(
            `insert into settings (key, value) values ($1, (${sqlExpression})::text) on conflict (key) do update set value = excluded.value`,
            [GeocoderPaceRepo.KEY]
          )
        )
      const dbNow = "floor(extract(epoch from clock_timestamp()) * 1000)::bigint"

      it.effect("twenty claims at once take twenty starts one gap apart", () =>
        Effect.gen(function* () {
          yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`delete from settings where key = ${GeocoderPaceRepo.KEY}`)
          const pace = yield* GeocoderPace.GeocoderPace
          const first = yield* pace.claim(GAP)
          expect(first).toBe(0)
          const after = yield* stored
          const waits = yield* Effect.all(
            Array.from({ length: 19 }, () => pace.claim(GAP)),
            { concurrency: "unbounded" }
          )
          // Each claim moved the next start on by exactly one gap.
          expect(yield* stored).toBe(after + 19 * GAP)
          // Each waits for its own start, the last at most nineteen gaps after the first's.
          for (const wait of waits) {
            expect(wait).toBeGreaterThanOrEqual(0)
            expect(wait).toBeLessThanOrEqual(19 * GAP)
          }
          expect(Math.max(...waits)).toBeGreaterThan(GAP)
        }))

      it.effect("a start a little ahead is waited for; one far ahead is not believed", () =>
        Effect.gen(function* () {
          const pace = yield* GeocoderPace.GeocoderPace
          yield* set(`${dbNow} + 5000`)
          const wait = yield* pace.claim(GAP)
          expect(wait).toBeGreaterThan(2_000)
          expect(wait).toBeLessThanOrEqual(5_000)
          yield* set(`${dbNow} + ${GeocoderPace.MAX_AHEAD_MS + 3_600_000}`)
          expect(yield* pace.claim(GAP)).toBe(0)
        }))
    })
  })
}
