/**
 * Nominatim's usage policy: at most one request per second, from the whole application. Every
 * call to Nominatim from this process (reverse geocoding, place search) goes through one pacer:
 * `effect/RateLimiter` (a token bucket of one token refilled a second after it is taken, so two
 * calls start at least `interval` apart by Effect's Clock) behind a one-permit semaphore, so
 * calls also never overlap (a slow answer holds the next call back, as a polite client should).
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as RateLimiter from "effect/RateLimiter"

export class NominatimPacer extends Context.Tag("@climate-grade/weather/NominatimPacer")<
  NominatimPacer,
  {
    /** Runs `call` when its turn comes: one at a time, starts `interval` apart. */
    readonly paced: <A, E, R>(call: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /** When (Clock ms) the last calls were let through, oldest first; at most 100 (tests, diagnostics). */
    readonly released: Effect.Effect<ReadonlyArray<number>>
  }
>() {}

export const make = (interval: Duration.DurationInput = Duration.seconds(1)) =>
  Effect.gen(function* () {
    const limiter = yield* RateLimiter.make({ limit: 1, interval, algorithm: "token-bucket" })
    const serial = yield* Effect.makeSemaphore(1)
    const released: Array<number> = []
    const stamp = Effect.map(Clock.currentTimeMillis, (now) => {
      released.push(now)
      if (released.length > 100) released.shift()
    })
    return NominatimPacer.of({
      paced: (call) => serial.withPermits(1)(limiter(Effect.zipRight(stamp, call))),
      released: Effect.sync(() => [...released])
    })
  })

export const layer = (interval?: Duration.DurationInput) => Layer.scoped(NominatimPacer, make(interval))
