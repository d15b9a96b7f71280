import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"

/**
 * Forks `run` as one of `fibers`, so that closing the scope they belong to (their layer shutting
 * down) interrupts it. A set already closed starts nothing: `result`, which `run` would have
 * completed, is interrupted then (after `forget`), so that no caller waits for a run that never began.
 */
export const startIn = <A, E, R>(
  fibers: FiberSet.FiberSet,
  run: Effect.Effect<unknown, unknown, R>,
  result: Deferred.Deferred<A, E>,
  forget: () => void
): Effect.Effect<Fiber.RuntimeFiber<unknown, unknown>, never, R> =>
  // The run's outcome reaches its callers through `result`; the set is told of nothing but its end.
  Effect.tap(FiberSet.run(fibers, Effect.exit(run)), (fiber) =>
    Effect.flatMap(Fiber.poll(fiber), (exit) =>
      Option.isNone(exit)
        ? Effect.void
        : Effect.flatMap(Deferred.isDone(result), (done) =>
            done ? Effect.void : Effect.zipRight(Effect.sync(forget), Deferred.interrupt(result))
          )
    )
  )

/**
 * Concurrent callers asking for the same key share one run of the effect. The check and the
 * registration happen in one synchronous step, so no two runs can start for one key. The run is a
 * fiber of `fibers`, not of any caller: a caller that goes away (a closed connection) does not
 * cancel it for the others, and closing the scope `fibers` belong to interrupts it.
 */
export const make = <A, E>(fibers: FiberSet.FiberSet) => {
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
      return Effect.zipRight(
        startIn(fibers, run, result, () => running.delete(key)),
        Deferred.await(result)
      )
    })
}

/**
 * As `make`, but a run lasts only while someone waits for it: when the last caller waiting for a
 * key goes away (interrupted, as when its connection closes), the run is interrupted and the key
 * forgotten, so work nobody will read (a card for a client that has gone) stops at once. Closing
 * the scope `fibers` belong to interrupts every run.
 */
export const makeWhileWanted = <A, E>(fibers: FiberSet.FiberSet) => {
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
        Effect.flatMap(
          startIn(fibers, Effect.interruptible(body), run.result, () => {
            if (running.get(key) === run) running.delete(key)
          }),
          (fiber) => {
            run.fiber = fiber
            return wait(key, run, restore)
          }
        )
      )
    })
  /** Keys whose run is under way (for tests and metrics). */
  const size = () => running.size
  return Object.assign(flight, { size })
}
