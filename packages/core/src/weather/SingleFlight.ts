import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
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
