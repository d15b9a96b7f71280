import { describe, expect, it } from "@effect/vitest"
import { SingleFlight } from "@climate-grade/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Scope from "effect/Scope"

describe("SingleFlight", () => {
  it.scoped("a first caller that goes away (interrupted) does not cancel the run for the callers sharing it", () =>
    Effect.gen(function* () {
      const flight = SingleFlight.make<string, never>(yield* FiberSet.make())
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

  it.scoped("a run whose every caller went away still finishes, and its result is not left behind for later callers", () =>
    Effect.gen(function* () {
      const flight = SingleFlight.make<string, never>(yield* FiberSet.make())
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

/** A run under way in a flight whose fibers belong to `scope`; told when it is interrupted. */
const inFlight = (make: (fibers: FiberSet.FiberSet) => (key: string, effect: Effect.Effect<string>) => Effect.Effect<string>) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const flight = make(yield* Scope.extend(FiberSet.make(), scope))
    const started = yield* Deferred.make<void>()
    const interrupted = yield* Deferred.make<void>()
    const work = Effect.zipRight(Deferred.succeed(started, undefined), Effect.never).pipe(
      Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
    )
    const caller = yield* Effect.fork(flight("k", work))
    yield* Deferred.await(started)
    return { scope, flight, interrupted, caller }
  })

describe("SingleFlight's runs belong to the scope of their fibers", () => {
  for (const [name, make] of [
    ["make", (fibers: FiberSet.FiberSet) => SingleFlight.make<string, never>(fibers)],
    ["makeWhileWanted", (fibers: FiberSet.FiberSet) => SingleFlight.makeWhileWanted<string, never>(fibers)]
  ] as const) {
    it.effect(`${name}: closing the scope (shutdown) interrupts a run under way, and its caller with it`, () =>
      Effect.gen(function* () {
        const { scope, flight, interrupted, caller } = yield* inFlight(make)
        expect(yield* Deferred.isDone(interrupted)).toBe(false)
        yield* Scope.close(scope, Exit.void)
        // Closing waits for the run's end: it is over once the scope is closed.
        expect(yield* Deferred.isDone(interrupted)).toBe(true)
        expect(Exit.isInterrupted(yield* Fiber.await(caller))).toBe(true)
        // After shutdown nothing new starts, and no caller is left waiting for it.
        let ran = false
        const late = yield* Effect.exit(
          flight(
            "k",
            Effect.sync(() => {
              ran = true
              return "late"
            })
          )
        )
        expect([Exit.isInterrupted(late), ran]).toEqual([true, false])
      }))
  }
})

describe("SingleFlight.makeWhileWanted", () => {
  it.scoped("a run goes on while one caller still waits, and stops (interrupted) when the last one goes away", () =>
    Effect.gen(function* () {
      const flight = SingleFlight.makeWhileWanted<string, never>(yield* FiberSet.make())
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

  it.scoped("callers that stay share one run and its result", () =>
    Effect.gen(function* () {
      const flight = SingleFlight.makeWhileWanted<number, never>(yield* FiberSet.make())
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
