import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"

/**
 * Concurrent callers asking for the same key share one run of the effect. The check and the
 * registration happen in one synchronous step, so no two runs can start for one key. The run is a
 * daemon fiber: a caller that goes away (a closed connection) does not cancel it for the others.
 */
export const make = <A, E>() => {
  const running = new Map<string, Deferred.Deferred<A, E>>()
  return <R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const existing = running.get(key)
      if (existing !== undefined) return Deferred.await(existing)
      const result = Deferred.unsafeMake<A, E>(FiberId.none)
      running.set(key, result)
      const run = Effect.onExit(effect, (exit) =>
        Effect.zipRight(
          Effect.sync(() => running.delete(key)),
          Deferred.done(result, exit)
        )
      )
      return Effect.zipRight(Effect.forkDaemon(run), Deferred.await(result))
    })
}

/**
 * As `make`, but a run lasts only while someone waits for it: when the last caller waiting for a
 * key goes away (interrupted, as when its connection closes), the run is interrupted and the key
 * forgotten, so work nobody will read (a card for a client that has gone) stops at once.
 */
export const makeWhileWanted = <A, E>() => {
  interface Run {
    readonly result: Deferred.Deferred<A, E>
    waiters: number
    fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined
  }
  const running = new Map<string, Run>()
  const wait = (
    key: string,
    run: Run,
    restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z> = (effect) => effect
  ): Effect.Effect<A, E> =>
    Effect.suspend(() => {
      run.waiters++
      return Effect.onExit(restore(Deferred.await(run.result)), (exit) =>
        Effect.suspend(() => {
          run.waiters--
          if (run.waiters > 0 || !Exit.isInterrupted(exit) || running.get(key) !== run) return Effect.void
          running.delete(key)
          return run.fiber === undefined ? Effect.void : Fiber.interruptFork(run.fiber)
        })
      )
    })
  const flight = <R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const existing = running.get(key)
      if (existing !== undefined) return wait(key, existing)
      const run: Run = { result: Deferred.unsafeMake<A, E>(FiberId.none), waiters: 0, fiber: undefined }
      running.set(key, run)
      const body = Effect.onExit(effect, (exit) =>
        Effect.zipRight(
          Effect.sync(() => {
            if (running.get(key) === run) running.delete(key)
          }),
          Deferred.done(run.result, exit)
        )
      )
      // Counted as a waiter before an interruption can land, so an early leaver still stops the run.
      return Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(Effect.forkDaemon(Effect.interruptible(body)), (fiber) => {
          run.fiber = fiber
          return wait(key, run, restore)
        })
      )
    })
  /** Keys whose run is under way (for tests and metrics). */
  const size = () => running.size
  return Object.assign(flight, { size })
}
