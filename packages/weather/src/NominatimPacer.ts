/**
 * Nominatim's usage policy: at most one request per second, from the whole application. Every
 * call to Nominatim from this process (reverse geocoding, place search) goes through one pacer:
 * one call at a time, and whoever has the turn first waits until `interval` has passed since the
 * previous call ended. Calls never overlap, and each starts at least `interval` after the previous
 * one *ended*, which is what Nominatim sees on the wire whatever each call's latency.
 *
 * Who has the next turn is the core's rule (`GeocoderQueue`): new cells' labels and place searches
 * alternate (a label waits behind one search at most), searches by client in turn, at most
 * `SEARCHES_PER_CLIENT` of one client waiting or running (one more is refused at once with
 * `SearchesQueued`, Retry-After estimated from the turns ahead).
 *
 * With a `GeocoderPace` (the database, shared by every instance), each call also claims its start
 * there, so the one-a-second is the deployment's, not each instance's.
 *
 * Not `effect/RateLimiter`: its token bucket spaces the *starts* of calls (a token comes back
 * `interval` after it was taken), so a call slow to connect followed by a fast one reach the
 * server less than a second apart (862 ms measured in the place-search spacing test); nor a
 * semaphore, whose waiters go first come, first served.
 */
import { GeocoderPace, GeocoderQueue } from "@climate-grade/core"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

export class NominatimPacer extends Context.Tag("@climate-grade/weather/NominatimPacer")<
  NominatimPacer,
  {
    /** Runs a new cell's label lookup when its turn comes (behind one waiting search at most). */
    readonly label: <A, E, R>(call: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    /** Runs a place search for `client` (a client network) in its turn, or refuses it past the client's bound. */
    readonly search: <A, E, R>(client: string, call: Effect.Effect<A, E, R>) => Effect.Effect<A, E | GeocoderQueue.SearchesQueued, R>
    /** When (Clock ms) the last calls were let through, oldest first; at most 100 (tests, diagnostics). */
    readonly released: Effect.Effect<ReadonlyArray<number>>
  }
>() {}

export const make = (
  interval: Duration.DurationInput = Duration.seconds(1),
  perClient = GeocoderQueue.SEARCHES_PER_CLIENT,
  waitingLimit = GeocoderQueue.SEARCHES_WAITING
) =>
  Effect.gen(function* () {
    const gap = Duration.toMillis(interval)
    const queue = GeocoderQueue.make<Deferred.Deferred<void>>(perClient)
    // With the deployment's pace (several instances on one database), each start is also claimed there.
    const shared = yield* Effect.serviceOption(GeocoderPace.GeocoderPace)
    let running = false
    let lastEnded = Number.NEGATIVE_INFINITY
    const released: Array<number> = []

    // Hands the turn to the next waiting call when none is running. Synchronous, so no two calls
    // can be given the turn at once.
    const dispatch = () => {
      if (running) return
      const next = queue.take()
      if (next === undefined) return
      running = true
      Deferred.unsafeDone(next, Effect.void)
    }
    const giveBack = (lane: GeocoderQueue.Lane) =>
      Effect.sync(() => {
        queue.finished(lane)
        running = false
        dispatch()
      })

    /** Once it has the turn: the gap since the last call, then the call. */
    const turn = <A, E, R>(call: Effect.Effect<A, E, R>) =>
      Effect.gen(function* () {
        // A timer may fire a millisecond early by the clock: looked at again until the gap is whole.
        let now = yield* Clock.currentTimeMillis
        while (now - lastEnded < gap) {
          yield* Effect.sleep(Duration.millis(lastEnded + gap - now))
          now = yield* Clock.currentTimeMillis
        }
        if (Option.isSome(shared)) {
          const wait = yield* shared.value.claim(gap)
          if (wait > 0) {
            yield* Effect.sleep(Duration.millis(wait))
            now = yield* Clock.currentTimeMillis
          }
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

    /** Waits for the turn of `ready` (queued in `lane`), then runs the call and hands the turn on. */
    const inTurn = <A, E, R>(
      restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>,
      lane: GeocoderQueue.Lane,
      ready: Deferred.Deferred<void>,
      call: Effect.Effect<A, E, R>
    ) => {
      dispatch()
      return restore(Deferred.await(ready)).pipe(
        // Given up while waiting: out of the queue; given up just as its turn came: the turn goes on.
        Effect.onInterrupt(() => (queue.cancel(lane, ready) ? Effect.void : giveBack(lane))),
        Effect.zipRight(Effect.ensuring(restore(turn(call)), giveBack(lane)))
      )
    }

    return NominatimPacer.of({
      label: (call) =>
        Effect.uninterruptibleMask((restore) =>
          Effect.suspend(() => {
            const ready = Deferred.unsafeMake<void>(FiberId.none)
            queue.offer(GeocoderQueue.LABEL, ready)
            return inTurn(restore, GeocoderQueue.LABEL, ready, call)
          })
        ),
      search: <A, E, R>(client: string, call: Effect.Effect<A, E, R>) =>
        Effect.uninterruptibleMask((restore) =>
          Effect.suspend((): Effect.Effect<A, E | GeocoderQueue.SearchesQueued, R> => {
            const lane = GeocoderQueue.search(client)
            const ready = Deferred.unsafeMake<void>(FiberId.none)
            // Everyone's bound first: past it, the wait is that many turns.
            if (queue.searchesWaiting() >= waitingLimit) {
              const seconds = Math.ceil(((queue.waiting() + 1) * gap) / 1000)
              return Effect.fail(
                new GeocoderQueue.SearchesQueued({ limit: waitingLimit, retryAfterSeconds: Math.max(1, seconds), everyone: true })
              )
            }
            if (!queue.offer(lane, ready)) {
              const seconds = Math.ceil((queue.turnsUntilFree(client) * gap) / 1000)
              return Effect.fail(new GeocoderQueue.SearchesQueued({ limit: perClient, retryAfterSeconds: Math.max(1, seconds) }))
            }
            return inTurn(restore, lane, ready, call)
          })
        ),
      released: Effect.sync(() => [...released])
    })
  })

export const layer = (interval?: Duration.DurationInput) => Layer.effect(NominatimPacer, make(interval))
