/**
 * Delivery through the transactional outbox (docs/architecture.md "Alerts"). One fiber claims due
 * messages one at a time (`Outbox.claim`: FOR UPDATE SKIP LOCKED, with a lease), checks at send time
 * that the user still has chat linked and messages on, sends through the bot API, and records the
 * outcome: sent; a 429 waited out (the whole sender pauses: the provider's limits are per bot); another
 * failure retried with exponential backoff for up to 24 hours, then failed.
 *
 * A message is marked sent only after the provider accepted it, and an interrupted send gives its
 * claim back; a crash between the send and the mark leaves a claim that expires, and the message
 * is sent again with the same nonce (`Delivery.nonce`), which the provider recognises for a few
 * minutes: a resend within them is answered with the first message; a later one may repeat it.
 * None is lost.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import { Users } from "../accounts/Ports.js"
import { AlertSettings } from "./AlertSettings.js"
import * as Backoff from "./Backoff.js"
import { deliverable, nonce } from "./Delivery.js"
import { ChatBot, Outbox, type OutboxMessage } from "./Ports.js"

/** The shortest wait between two looks at the outbox when nothing could be claimed. */
const IDLE_FLOOR_MS = 20

export const make = (wake: Queue.Dequeue<void>) =>
  Effect.gen(function* () {
    const settings = yield* AlertSettings
    const outbox = yield* Outbox
    const users = yield* Users
    const bot = yield* ChatBot
    let pausedUntil = 0

    const backlog = Effect.map(outbox.stats, (s) => `outbox: ${s.pending} pending, ${s.failed} failed`)

    const handle = (message: OutboxMessage) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const user = yield* users.findById(message.userId)
          if (Option.isNone(user) || !deliverable(user.value)) {
            yield* outbox.drop(message.id, "chat unlinked or direct messages off")
            return yield* Effect.logInfo(`alert message ${message.id} dropped: chat unlinked or muted; ${yield* backlog}`)
          }
          // Only the call itself can be interrupted (shutdown): its claim is then given back.
          // One nonce for every attempt: a resend after a crash is the provider's to recognise.
          const sent = yield* restore(bot.send(user.value.chatId, message.content, nonce(message.alertId))).pipe(
            Effect.either,
            Effect.onInterrupt(() => outbox.release(message.id))
          )
          const now = yield* Clock.currentTimeMillis
          if (sent._tag === "Right") {
            yield* outbox.markSent(message.id, now)
            return yield* Effect.logInfo(`alert message ${message.id} sent; ${yield* backlog}`)
          }
          const error = sent.left
          const waitMs =
            error._tag === "ChatRateLimited" ? error.retryAfterMs : Backoff.delay(message.attempts, settings.retryBaseMs)
          if (error._tag === "ChatRateLimited") pausedUntil = Math.max(pausedUntil, now + error.retryAfterMs)
          const reason = error._tag === "ChatRateLimited" ? `rate limited for ${error.retryAfterMs} ms` : error.reason
          const step = Backoff.next({ now, createdAt: message.createdAt, windowMs: settings.retryForMs, waitMs })
          if (step._tag === "Fail") {
            yield* outbox.markFailed(message.id, reason)
            return yield* Effect.logError(`alert message ${message.id} failed for good after ${message.attempts} attempts: ${reason}; ${yield* backlog}`)
          }
          yield* outbox.retry(message.id, step.at, reason)
          yield* Effect.logWarning(
            `alert message ${message.id} not sent (attempt ${message.attempts}): ${reason}; retry in ${step.at - now} ms; ${yield* backlog}`
          )
        })
      )

    /** One claimed message handled; false when there was nothing to do now. */
    const step = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      if (now < pausedUntil) return false
      const claimed = yield* outbox.claim(now, now + settings.leaseMs, 1)
      if (claimed.length === 0) return false
      yield* Effect.forEach(claimed, handle, { discard: true })
      return true
    })

    /** How long to sleep: until the next message is due, the pause ends, or the poll interval passes. */
    const idle = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const due = yield* outbox.nextDue
      const until = Math.max(due ?? Number.POSITIVE_INFINITY, pausedUntil)
      const wait = Math.min(settings.pollMs, Math.max(IDLE_FLOOR_MS, until - now))
      yield* Effect.race(Effect.sleep(wait), Queue.take(wake))
    })

    /** Sends forever; fork it. A fault in one round is logged and the loop goes on. */
    const run: Effect.Effect<never> = step.pipe(
      Effect.catchAllCause((cause) => Effect.as(Effect.logError("alert sender fault", cause), false)),
      Effect.flatMap((worked) => (worked ? Effect.void : idle)),
      Effect.forever
    )
    return { run, step }
  })
