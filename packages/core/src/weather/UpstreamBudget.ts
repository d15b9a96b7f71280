/**
 * The daily budget of Open-Meteo cost units (`WEATHER_DAILY_UNITS`; the free tier allows 10,000
 * a day), shared by every instance through a ledger in the database. One day is a UTC day.
 *
 * - A new cell's history (the one call that costs hundreds of units) is *reserved* before it is
 *   asked for: if the day's spending plus its cost would pass the budget, the cell is refused
 *   (`BudgetSpent`, until the day rolls over) and the upstream is not called.
 * - Calls that keep cells already held fresh (history top-ups, forecast refetches: one unit each,
 *   at most hourly per cell) are never refused, so the budget running out changes nothing for
 *   places people already have; their units are still *recorded*, so the ledger is the day's
 *   real spending and new cells see what is left.
 * - A call that fails gives its units back: Open-Meteo counts what it answers.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import type { EpochDay } from "../CivilDate.js"
import { BudgetSpent, type UpstreamError } from "./Errors.js"

export const DAY_MS = 86_400_000

/** The default budget without an API key: Open-Meteo's free tier. */
export const FREE_TIER_DAILY_UNITS = 10_000

/** Open-Meteo's price of one call: max(1, variables / 10 × days / 14) cost units. */
export const costOf = (variables: number, days: number): number => Math.max(1, (variables / 10) * (days / 14))

/** Every call asks for the three daily variables (tmax, tmin, precip). */
const VARIABLES = 3
/** An archive call for `[start, end]`. */
export const archiveCost = (start: EpochDay, end: EpochDay): number => costOf(VARIABLES, end - start + 1)
/** A forecast call: the 7 past and 16 coming days (CONTRACT.md §3). */
export const FORECAST_COST = costOf(VARIABLES, 7 + 16)

/** The budget's day (days since the epoch, UTC) at `now`. */
export const utcDay = (now: number): EpochDay => Math.floor(now / DAY_MS) as EpochDay

/** Whole seconds until the budget's next day begins (at least one). */
export const secondsUntilNextDay = (now: number): number => Math.max(1, Math.ceil(((utcDay(now) + 1) * DAY_MS - now) / 1000))

/** Whether `units` more fit a day that has spent `spent` (a null budget is unlimited). */
export const fits = (dailyUnits: number | null, spent: number, units: number): boolean =>
  dailyUnits === null || spent + units <= dailyUnits

/** Where the day's spending is kept, shared by every instance. */
export class BudgetLedger extends Context.Tag("@climate-grade/core/BudgetLedger")<
  BudgetLedger,
  {
    /**
     * Adds `units` to `day`'s spending, atomically, unless the total would pass `limit` (null:
     * no limit, always added). The day's total after it, or None when refused.
     */
    readonly reserve: (day: EpochDay, units: number, limit: number | null) => Effect.Effect<Option.Option<number>>
    /** Takes back units reserved for a call that failed. */
    readonly refund: (day: EpochDay, units: number) => Effect.Effect<void>
  }
>() {}

/** The ledger of one process, for a store that no other process shares (and for tests). */
export const memoryLedger = (): BudgetLedger["Type"] => {
  const spent = new Map<number, number>()
  return BudgetLedger.of({
    reserve: (day, units, limit) =>
      Effect.sync(() => {
        const total = spent.get(day) ?? 0
        if (!fits(limit, total, units)) return Option.none()
        spent.set(day, total + units)
        return Option.some(total + units)
      }),
    refund: (day, units) => Effect.sync(() => void spent.set(day, Math.max(0, (spent.get(day) ?? 0) - units)))
  })
}

/** Cost units left of the day's budget, as this process last saw the shared ledger. */
export const unitsLeft = Metric.gauge("weather_budget_units_left", {
  description: "Open-Meteo cost units left of today's budget (WEATHER_DAILY_UNITS), as this process last saw the ledger"
})

export interface Budget {
  /** A call that may be refused: reserved first (`BudgetSpent` when it does not fit), refunded if it fails. */
  readonly reserved: <A>(units: number, call: Effect.Effect<A, UpstreamError>) => Effect.Effect<A, UpstreamError>
  /** A call that is never refused; its units are recorded (and refunded if it fails). */
  readonly recorded: <A>(units: number, call: Effect.Effect<A, UpstreamError>) => Effect.Effect<A, UpstreamError>
  /** Reads the day's spending (adding nothing) into the `unitsLeft` gauge, e.g. at start-up. */
  readonly observe: Effect.Effect<void>
}

export const make = (ledger: BudgetLedger["Type"], dailyUnits: number | null): Budget => {
  const spend = <A>(units: number, limit: number | null, call: Effect.Effect<A, UpstreamError>) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const day = utcDay(now)
      const total = yield* ledger.reserve(day, units, limit)
      if (Option.isNone(total)) {
        return yield* new BudgetSpent({ dailyUnits: dailyUnits ?? 0, retryAfterSeconds: secondsUntilNextDay(now) })
      }
      if (dailyUnits !== null) yield* Metric.set(unitsLeft, Math.max(0, dailyUnits - total.value))
      return yield* Effect.tapError(call, () => ledger.refund(day, units))
    })
  return {
    reserved: (units, call) => spend(units, dailyUnits, call),
    recorded: (units, call) => spend(units, null, call),
    observe:
      dailyUnits === null
        ? Effect.void
        : Effect.gen(function* () {
            const total = yield* ledger.reserve(utcDay(yield* Clock.currentTimeMillis), 0, null)
            yield* Metric.set(unitsLeft, Math.max(0, dailyUnits - Option.getOrElse(total, () => 0)))
          })
  }
}
