/**
 * The running part of alerts, for the server: the evaluation worker, the start-up and hourly
 * passes over every watched cell, evaluation after each forecast refetch, and — when delivery is
 * configured — the outbox sender. All are fibers of the layer's scope, interrupted on shutdown.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import { ForecastEvents } from "../weather/ForecastEvents.js"
import { AlertSettings } from "./AlertSettings.js"
import { AlertEvaluator, make as makeEvaluator } from "./Evaluator.js"
import { ChatBot, Watches } from "./Ports.js"
import * as Sender from "./Sender.js"

/** Needs the one `GradingCache` of the process, shared with the views. */
export const layer = Layer.scoped(
    AlertEvaluator,
    Effect.gen(function* () {
      const settings = yield* AlertSettings
      const watches = yield* Watches
      // One pending wake-up is enough: the sender drains everything due when it wakes.
      const wake = yield* Queue.sliding<void>(1)
      const evaluator = yield* makeEvaluator({ onQueued: Effect.asVoid(Queue.offer(wake, undefined)) })
      yield* Effect.forkScoped(evaluator.worker)

      const pass = Effect.flatMap(watches.cells, Effect.forEach((cell) => evaluator.trigger(cell), { discard: true })).pipe(
        Effect.catchAllCause((cause) => Effect.logError("alert pass failed", cause))
      )
      // At once (start-up), then every `evaluateEveryMs`.
      yield* Effect.forkScoped(Effect.repeat(pass, Schedule.spaced(settings.evaluateEveryMs)))

      const events = yield* Effect.serviceOption(ForecastEvents)
      if (Option.isSome(events)) {
        const refetched = yield* PubSub.subscribe(events.value)
        yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(refetched), (cell) => evaluator.trigger(cell))))
      }

      const bot = yield* Effect.serviceOption(ChatBot)
      if (settings.deliveryConfigured && Option.isSome(bot)) {
        const sender = yield* Sender.make(wake).pipe(Effect.provideService(ChatBot, bot.value))
        yield* Effect.forkScoped(sender.run)
      } else {
        yield* Effect.logInfo("alerts: CHAT_BOT_TOKEN or CHAT_API_URL unset; watches are evaluated, nothing is sent")
      }
      return evaluator
    })
  )
