import { describe, expect, it } from "@effect/vitest"
import { SingleFlight } from "@climate-grade/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"

describe("SingleFlight", () => {
  it.effect("a first caller that goes away (interrupted) does not cancel the run for the callers sharing it", () =>
    Effect.gen(function* () {
      const flight = SingleFlight.make<string, never>()
      const release = yield* Deferred.make<void>()
      let runs = 0
      let finished = 0
      const work = Effect.gen(function* () {
        runs++
        yield* Deferred.await(release)
        finished++
        return "result"
      })
      const first = yield* Effect.fork(flight("k", work))
      yield* Effect.yieldNow()
      const second = yield* Effect.fork(flight("k", work))
      yield* Effect.yieldNow()
      // The first caller's connection closes while the run is under way.
      const firstExit = yield* Fiber.interrupt(first)
      expect(Exit.isInterrupted(firstExit)).toBe(true)
      yield* Deferred.succeed(release, undefined)
      expect(yield* Fiber.join(second)).toBe("result")
      expect([runs, finished]).toEqual([1, 1])
      // The flight is over: the next caller starts a run of its own.
      expect(yield* flight("k", Effect.succeed("again"))).toBe("again")
    }))

  it.effect("a run whose every caller went away still finishes, and its result is not left behind for later callers", () =>
    Effect.gen(function* () {
      const flight = SingleFlight.make<string, never>()
      const release = yield* Deferred.make<void>()
      const done = yield* Deferred.make<string>()
      const only = yield* Effect.fork(
        flight("k", Effect.zipLeft(Effect.as(Deferred.await(release), "late"), Deferred.succeed(done, "finished")))
      )
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(only)
      yield* Deferred.succeed(release, undefined)
      expect(yield* Deferred.await(done)).toBe("finished")
      // Let the run's own clean-up (removing the key) happen.
      yield* Effect.yieldNow()
      expect(yield* flight("k", Effect.succeed("fresh"))).toBe("fresh")
    }))
})
