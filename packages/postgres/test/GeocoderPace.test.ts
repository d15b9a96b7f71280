/**
 * The geocoder's pace shared by every instance (PGlite and PostgreSQL): claims made at once, on a
 * pool of connections as several instances would, get starts one gap apart, in some order, and
 * the rule is the core's (GeocoderPace.step) claim for claim.
 */
import { describe, expect, layer } from "@effect/vitest"
import { GeocoderPace } from "@climate-grade/core"
import { GeocoderPaceRepo } from "@climate-grade/postgres"
import { backends } from "@climate-grade/testing"
import { SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"

const GAP = 1_000

for (const backend of backends) {
  describe(`the geocoder's shared pace on ${backend.name}`, () => {
    layer(Layer.provideMerge(GeocoderPaceRepo.layer, backend.layer), { timeout: 120_000 })((it) => {
      const reset = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`delete from settings where key = ${GeocoderPaceRepo.KEY}`)

      it.effect("twenty claims at once start one gap apart, from now", () =>
        Effect.gen(function* () {
          yield* reset
          const pace = yield* GeocoderPace.GeocoderPace
          const now = 1_800_000_000_000
          const starts = yield* Effect.all(
            Array.from({ length: 20 }, () => pace.claim(now, GAP)),
            { concurrency: "unbounded" }
          )
          expect([...starts].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => now + i * GAP))
        }))

      it.effect("each claim is the core's rule applied to the one before", () =>
        Effect.gen(function* () {
          const pace = yield* GeocoderPace.GeocoderPace
          const nowArb = FastCheck.array(FastCheck.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 30 })
          for (const gaps of FastCheck.sample(nowArb, 20)) {
            yield* reset
            let next: number | undefined
            let now = 1_800_000_000_000
            for (const wait of gaps) {
              now += wait
              const expected = GeocoderPace.step(next, now, GAP)
              expect(yield* pace.claim(now, GAP)).toBe(expected.start)
              next = expected.next
            }
          }
        }))
    })
  })
}
