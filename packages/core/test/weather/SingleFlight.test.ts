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

describe("SingleFlight.makeWhileWanted", () => {
  it.effect("a run goes on while one caller still waits, and stops (interrupted) when the last one goes away", () =>
    Effect.gen(function* () {
      const flight = SingleFlight.makeWhileWanted<string, never>()
      const started = yield* Deferred.make<void>()
      const stopped = yield* Deferred.make<void>()
      let runs = 0
      const work = Effect.gen(function* () {
        runs++
        yield* Deferred.succeed(started, undefined)
        return yield* Effect.never
      }).pipe(Effect.onInterrupt(() => Deferred.succeed(stopped, undefined)))
      const first = yield* Effect.fork(flight("k", work))
      yield* Deferred.await(started)
      const second = yield* Effect.fork(flight("k", work))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(first)
      expect([runs, flight.size(), yield* Deferred.isDone(stopped)]).toEqual([1, 1, false])
      yield* Fiber.interrupt(second)
      yield* Deferred.await(stopped)
      expect(flight.size()).toBe(0)
      // Nothing was left behind: the next caller runs afresh.
      expect(yield* flight("k", Effect.succeed("again"))).toBe("again")
    }))

  it.effect("callers that stay share one run and its result", () =>
    Effect.gen(function* () {
      const flight = SingleFlight.makeWhileWanted<number, never>()
      const release = yield* Deferred.make<void>()
      let runs = 0
      const work = Effect.zipRight(Deferred.await(release), Effect.sync(() => ++runs))
      const callers = yield* Effect.forEach([1, 2, 3], () => Effect.fork(flight("k", work)))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(release, undefined)
      expect(yield* Effect.forEach(callers, Fiber.join)).toEqual([1, 1, 1])
      expect(flight.size()).toBe(0)
    }))
})
