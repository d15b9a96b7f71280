/**
 * Evaluation of watches: a watched cell's coming days are graded from what the cell holds —
 * the history (fetched once, never topped up for alerts) and the forecast (refetched at most
 * hourly, as for any request, paid by the oldest watch's user and the operator's part for alerts)
 * — and every qualifying (watch, date, kind) not yet alerted makes
 * one alert, with its message queued when the user can receive it.
 *
 * Evaluations run one at a time in one worker fiber, fed by a queue of cells: a watch created or
 * changed, start-up, each forecast refetch, and an hourly pass over every watched cell.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import { UnitOfWork, Users } from "../accounts/Ports.js"
import { type Cell, coordinateLabel } from "../Cell.js"
import * as CivilDate from "../CivilDate.js"
import { GradingCache } from "../data/GradingCache.js"
import { CellData } from "../weather/CellData.js"
import * as UpstreamBudget from "../weather/UpstreamBudget.js"
import type { DailySeries } from "../weather/DailySeries.js"
import type { History } from "../weather/Held.js"
import { AlertSettings } from "./AlertSettings.js"
import { deliverable } from "./Delivery.js"
import * as Notable from "../spells/Notable.js"
import { isSpellKind, RULES } from "./Kinds.js"
import * as Message from "./Message.js"
import { AlertLog, type Delivery, type Watch, Watches } from "./Ports.js"
import * as Qualifying from "./Qualifying.js"
import * as SpellAlerts from "./SpellAlerts.js"

export class AlertEvaluator extends Context.Tag("@climate-grade/core/AlertEvaluator")<
  AlertEvaluator,
  {
    /**
     * Evaluates the cell's watches now, from the history held: it never fetches a cell's history
     * (a watch of a new cell loads it first, as its owner's new cell: `Watching.watch`).
     */
    readonly evaluate: (cell: Cell) => Effect.Effect<void>
    /** Queues the cell for the worker (a cell already queued is not queued twice). */
    readonly trigger: (cell: Cell) => Effect.Effect<void>
    /** Takes queued cells and evaluates them, forever; fork it. */
    readonly worker: Effect.Effect<never>
  }
>() {}

export interface EvaluatorOptions {
  /** Called after an alert's message is queued, to wake the sender. */
  readonly onQueued: Effect.Effect<void>
}

export const make = (options: EvaluatorOptions) =>
  Effect.gen(function* () {
    const settings = yield* AlertSettings
    const data = yield* CellData
    const watches = yield* Watches
    const log = yield* AlertLog
    const users = yield* Users
    const uow = yield* UnitOfWork

    const gradings = yield* GradingCache
    /** The heat waves and cold spells on or coming (the spells view's `now`), and the record's first year. */
    const spellsNow = (key: string, history: History, forecast: DailySeries, today: CivilDate.EpochDay) =>
      Effect.map(gradings.thresholds(key, history), (thresholds) =>
        Notable.nowOf({ record: history.series, recordLast: history.end, forecast, today, thresholds })
      )

    const evaluateCell = (cell: Cell) =>
      Effect.gen(function* () {
        const watched = yield* watches.forCell(cell.key)
        if (watched.length === 0) return
        // History: what is held, never topped up for alerts (a watch is made only once its cell's is held).
        const held = yield* data.heldHistory(cell)
        if (Option.isNone(held)) return
        const history = held.value
        // A refetch for the evaluation is paid by the oldest watch's user and by the operator's
        // part for alerts (UpstreamBudget's upkeep); refused, the forecast held is evaluated.
        const payer = watched.reduce((a, b) => (b.createdAt < a.createdAt ? b : a))
        const forecast = yield* UpstreamBudget.spendingAs({ network: null, user: payer.userId, alerts: true })(data.forecast(cell))
        const place = (yield* data.label(cell)) ?? coordinateLabel(cell)
        const now = yield* Clock.currentTimeMillis
        const today = CivilDate.todayIn(now, history.timezone)
        const grading = yield* gradings.grading(cell.key, history)
        const found = Qualifying.candidates({
          today,
          daysAhead: settings.daysAhead,
          forecast: forecast.series,
          grade: grading.grade
        })
        const wantsSpells = watched.some((w) => w.kinds.some(isSpellKind))
        const spells = wantsSpells ? yield* spellsNow(cell.key, history, forecast.series, today) : null
        const spellsFound =
          spells === null ? [] : SpellAlerts.candidates({ now: spells.now, today, daysAhead: settings.daysAhead })
        if (found.length === 0 && spellsFound.length === 0) return

        // The user's switch is read in the transaction that records the alert: a muted alert is
        // dropped, not queued, and a later unmute does not replay it.
        // The message is written there too, in the language and units the user reads.
        const recordWith = (watch: Watch, record: (delivery: Delivery, reader: Message.Reader) => Effect.Effect<boolean>) =>
          uow.transaction(
            Effect.gen(function* () {
              const user = yield* users.findById(watch.userId)
              const delivery: Delivery = !settings.deliveryConfigured
                ? "off"
                : Option.isSome(user) && deliverable(user.value)
                  ? "queued"
                  : "muted"
              const reader: Message.Reader = Option.match(user, {
                onNone: () => Message.DEFAULT_READER,
                onSome: (u) => ({ language: u.language, units: u.units })
              })
              return [yield* record(delivery, reader), delivery] as const
            })
          )
        const linkTo = (watch: Watch, date: CivilDate.EpochDay) =>
          Message.link({ origin: settings.siteOrigin, basePath: settings.basePath, lat: watch.lat, lon: watch.lon, date })

        for (const watch of watched) {
          const made = found.length === 0 ? new Set<string>() : yield* log.madeSince(watch.id, today)
          for (const candidate of Qualifying.fresh(found, watch.kinds, made)) {
            const variable = RULES[candidate.kind].variable
            const contentFor = (reader: Message.Reader) =>
              Message.content({
                place,
                date: candidate.date,
                kind: candidate.kind,
                variable,
                grade: candidate.grade,
                link: linkTo(watch, candidate.date),
                reader
              })
            const [created, delivery] = yield* recordWith(watch, (delivery, reader) =>
              log.record(
                {
                  watchId: watch.id,
                  userId: watch.userId,
                  date: candidate.date,
                  kind: candidate.kind,
                  variable,
                  grade: candidate.grade,
                  content: contentFor(reader),
                  at: now
                },
                delivery
              )
            )
            if (!created) continue
            yield* Effect.logInfo(
              `alert: ${candidate.kind} on ${CivilDate.format(candidate.date)} at ${cell.key} for watch ${watch.id} (${delivery})`
            )
            if (delivery === "queued") yield* options.onQueued
          }
          for (const candidate of spellsFound) {
            if (!watch.kinds.includes(candidate.kind) || spells === null) continue
            const since = spells.since
            const contentFor = (reader: Message.Reader) =>
              SpellAlerts.content({ place, candidate, since, link: linkTo(watch, candidate.start), reader })
            const [created, delivery] = yield* recordWith(watch, (delivery, reader) =>
              log.recordSpell(
                {
                  watchId: watch.id,
                  userId: watch.userId,
                  kind: candidate.kind,
                  start: candidate.start,
                  end: candidate.end,
                  severity: candidate.spell.severity,
                  rank: candidate.spell.rank_peak,
                  of: candidate.spell.of,
                  content: contentFor(reader),
                  at: now
                },
                delivery
              )
            )
            if (!created) continue
            yield* Effect.logInfo(
              `alert: ${candidate.kind} from ${CivilDate.format(candidate.start)} at ${cell.key} for watch ${watch.id} (${delivery})`
            )
            if (delivery === "queued") yield* options.onQueued
          }
        }
      }).pipe(
        // An upstream fault leaves the evaluation to the next trigger; what is held stays held.
        Effect.catchAll((error) => Effect.logWarning(`alert evaluation of ${cell.key} skipped: ${error._tag}`)),
        Effect.withSpan("AlertEvaluator.evaluate", { attributes: { cell: cell.key } })
      )

    const queue = yield* Queue.unbounded<Cell>()
    // Cells queued and not yet taken.
    const queued = new Set<string>()
    const trigger = (cell: Cell) =>
      Effect.suspend(() => {
        if (queued.has(cell.key)) return Effect.void
        queued.add(cell.key)
        return Queue.offer(queue, cell)
      })

    const worker = Queue.take(queue).pipe(
      Effect.flatMap((cell) => {
        // Taken off the set first: a change during the evaluation queues the cell again.
        queued.delete(cell.key)
        return Effect.catchAllCause(evaluateCell(cell), (cause) =>
          Effect.logError(`alert evaluation of ${cell.key} failed`, cause)
        )
      }),
      Effect.forever
    )

    return AlertEvaluator.of({ evaluate: evaluateCell, trigger, worker })
  })
