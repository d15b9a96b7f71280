/**
 * Nominatim's usage policy: at most one request per second, from the whole application. Every
 * call to Nominatim from this process (reverse geocoding, place search) goes through one pacer:
 * a one-permit semaphore, and whoever holds it first waits until `interval` has passed since the
 * previous call ended. Calls never overlap, and each starts at least `interval` after the previous
 * one *ended*, which is what Nominatim sees on the wire whatever each call's latency.
 *
 * Not `effect/RateLimiter`: its token bucket spaces the *starts* of calls (a token comes back
 * `interval` after it was taken), so a call slow to connect followed by a fast one reach the
 * server less than a second apart (862 ms measured in the place-search spacing test).
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export class NominatimPacer extends Context.Tag("@climate-grade/weather/NominatimPacer")<
  NominatimPacer,
  {
    /** Runs `call` when its turn comes: one at a time, each `interval` after the previous one ended. */
    readonly paced: <A, E, R>(call: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /** When (Clock ms) the last calls were let through, oldest first; at most 100 (tests, diagnostics). */
    readonly released: Effect.Effect<ReadonlyArray<number>>
  }
>() {}

export const make = (interval: Duration.DurationInput = Duration.seconds(1)) =>
  Effect.gen(function* () {
    const gap = Duration.toMillis(interval)
    const permit = yield* Effect.makeSemaphore(1)
    let lastEnded = Number.NEGATIVE_INFINITY
    const released: Array<number> = []
    return NominatimPacer.of({
      paced: (call) =>
        permit.withPermits(1)(
          Effect.gen(function* () {
            // A timer may fire a millisecond early by the clock: looked at again until the gap is whole.
            let now = yield* Clock.currentTimeMillis
            while (now - lastEnded < gap) {
              yield* Effect.sleep(Duration.millis(lastEnded + gap - now))
              now = yield* Clock.currentTimeMillis
            }
            released.push(now)
            if (released.length > 100) released.shift()
            return yield* call
          }).pipe(
            Effect.ensuring(
              Effect.flatMap(Clock.currentTimeMillis, (t) =>
                Effect.sync(() => {
                  lastEnded = t
                })
              )
            )
          )
        ),
      released: Effect.sync(() => [...released])
    })
  })

export const layer = (interval?: Duration.DurationInput) => Layer.effect(NominatimPacer, make(interval))
