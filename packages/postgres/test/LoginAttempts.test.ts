import { describe, expect, layer } from "@effect/vitest"
import { LoginThrottle } from "@climate-grade/core"
import { LoginAttemptsRepo } from "@climate-grade/postgres"
import { backends } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

const WINDOW = 60_000
const T0 = Date.parse("2026-11-23T12:00:00Z")

for (const backend of backends) {
  describe(`login attempts on ${backend.name}`, () => {
    layer(LoginAttemptsRepo.layer.pipe(Layer.provideMerge(backend.layer)), { timeout: 60_000 })((it) => {
      it.effect("three keys at once, as an attempt from an unknown browser counts them", () =>
        Effect.gen(function* () {
          const repo = yield* LoginThrottle.LoginAttempts
          const keys = ["pair:three", "address:three", "account:three"]
          yield* repo.count(keys, T0, WINDOW)
          const after = yield* repo.count(keys, T0 + 5, WINDOW)
          expect(after).toEqual([
            { count: 2, windowStart: T0 },
            { count: 2, windowStart: T0 },
            { count: 2, windowStart: T0 }
          ])
          yield* repo.succeeded(["pair:three"], ["address:three", "account:three"])
          expect(yield* repo.count(keys, T0 + 6, WINDOW)).toEqual([
            { count: 1, windowStart: T0 + 6 },
            { count: 2, windowStart: T0 },
            { count: 2, windowStart: T0 }
          ])
        }))

      it.effect("concurrent attempts each get their own count: the upsert is atomic", () =>
        Effect.gen(function* () {
          const repo = yield* LoginThrottle.LoginAttempts
          const results = yield* Effect.all(
            Array.from({ length: 25 }, (_, i) => repo.count(["account:race@x.org", `address:10.0.0.${i % 5}`], T0, WINDOW)),
            { concurrency: "unbounded" }
          )
          expect(results.map(([account]) => account!.count).sort((a, b) => a - b)).toEqual(
            Array.from({ length: 25 }, (_, i) => i + 1)
          )
          for (const [, address] of results) expect(address!.count).toBeLessThanOrEqual(5)
        }))

      it.effect("counts as LoginThrottle.step does: a window that has ended starts over", () =>
        Effect.gen(function* () {
          const repo = yield* LoginThrottle.LoginAttempts
          const keys = ["account:step@x.org", "address:192.0.2.50"] as const
          let model = Option.none<LoginThrottle.Counter>()
          for (const at of [0, 1_000, 59_999, 60_000, 60_001, 200_000, 200_000]) {
            const [account, address] = yield* repo.count(keys, T0 + at, WINDOW)
            const expected = LoginThrottle.step(model, T0 + at, WINDOW)
            model = Option.some(expected)
            expect(account).toEqual(expected)
            expect(address).toEqual(expected)
          }
        }))

      it.effect("a success forgets the first key and takes the attempt back from the others", () =>
        Effect.gen(function* () {
          const repo = yield* LoginThrottle.LoginAttempts
          const keys = ["account:ok@x.org", "address:192.0.2.60"] as const
          yield* repo.count(keys, T0, WINDOW)
          yield* repo.count(keys, T0, WINDOW)
          yield* repo.succeeded([keys[0]], [keys[1]])
          const [account, address] = yield* repo.count(keys, T0 + 1, WINDOW)
          expect(account).toEqual({ count: 1, windowStart: T0 + 1 })
          expect(address).toEqual({ count: 2, windowStart: T0 })
        }))
    })
  })
}
