/**
 * The daily budget of the weather source's cost units (`WEATHER_DAILY_UNITS`; Open-Meteo's free
 * tier allows 10,000 a day), shared by every instance through a ledger in the database. One day is
 * a UTC day. What a call costs is the source's to say (`WeatherSource.cost`).
 *
 * - A new cell's history (the one call that costs hundreds of units) is *reserved* before it is
 *   asked for: if it would not fit, the cell is refused (until the day rolls over) and the
 *   upstream is not called.
 * - The day is split so that no one spends it for everyone (OWASP API4:2023, unrestricted
 *   resource consumption): a new cell is reserved for its `Spender` — the client network that
 *   asked, and the signed-in user when there is one — and neither may pass `Shares.client` percent
 *   of the day (`ShareSpent`). The last `Shares.signedIn` percent of the day is kept for signed-in
 *   users: an anonymous reservation may not take the day's total past the rest (`BudgetSpent`
 *   with `keptForSignedIn`).
 * - Calls that keep cells already held fresh (history top-ups, forecast refetches: about one unit
 *   each, at most hourly per cell) are *upkeep*, paid by whoever caused them under the same rules:
 *   a client's request by its network's and its user's shares (and, anonymous, within the day less
 *   the signed-in part); the alerts' evaluation by the user whose watch it is and by the operator's
 *   part for alerts (`ALERTS_KEY`, one share of the day). Refused, the cell answers from what it
 *   holds, a little older: places already loaded still answer. Upkeep that nobody caused (none on a
 *   client-facing path) is only recorded. So touching held cells spends the toucher's share, and
 *   no number of anonymous clients can spend the part kept for signed-in users.
 * - A call that fails gives its units back: the upstream counts what it answers.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import type { EpochDay } from "../CivilDate.js"
import { BudgetSpent, ShareSpent, type UpstreamError } from "./Errors.js"

export const DAY_MS = 86_400_000

/** The budget's day (days since the epoch, UTC) at `now`. */
export const utcDay = (now: number): EpochDay => Math.floor(now / DAY_MS) as EpochDay

/** Whole seconds until the budget's next day begins (at least one). */
export const secondsUntilNextDay = (now: number): number => Math.max(1, Math.ceil(((utcDay(now) + 1) * DAY_MS - now) / 1000))

/** Whether `units` more fit under `limit` after `spent` (a null limit is no limit). */
export const fits = (limit: number | null, spent: number, units: number): boolean => limit === null || spent + units <= limit

/** How the day is split, in percent of `WEATHER_DAILY_UNITS`. */
export interface Shares {
  /** The most one client network, or one signed-in user, may reserve for new cells in a day (`WEATHER_CLIENT_SHARE`). */
  readonly client: number
  /** The last part of the day, which only signed-in users' new cells may spend (`WEATHER_SIGNED_IN_SHARE`). */
  readonly signedIn: number
}

/** A fifth of the day per client (three new cells of the free tier's ~14), a quarter kept for signed-in users. */
export const DEFAULT_SHARES: Shares = { client: 20, signedIn: 25 }

/** No split: any reservation may spend the whole day (a process that serves no clients, tests of the day's limit). */
export const UNSPLIT: Shares = { client: 100, signedIn: 0 }

/** Who a call's units are reserved for. */
export interface Spender {
  /** The client network that asked (`ClientNetwork.of` its address); null for the alerts' evaluation. */
  readonly network: string | null
  /** The signed-in user that asked (or whose watch is evaluated), if any. */
  readonly user: string | null
  /** The alerts' own evaluation: counted on the operator's part for alerts (`ALERTS_KEY`) too. */
  readonly alerts?: boolean
}

/** A spender whose user is looked up only when a call is to be paid (most requests pay nothing). */
export interface Payer {
  readonly network: string | null
  readonly user: Effect.Effect<string | null>
  readonly alerts?: boolean
}

/** The payer of the calls made in this fiber (and the fibers it forks); none outside a client's request or an evaluation. */
export const currentSpender: FiberRef.FiberRef<Option.Option<Payer>> = FiberRef.unsafeMake<Option.Option<Payer>>(Option.none())

/** Runs `effect` with its calls paid by `payer`. */
export const payingAs =
  (payer: Payer) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.locally(effect, currentSpender, Option.some(payer))

/** Runs `effect` with its calls paid by `spender`. */
export const spendingAs = (spender: Spender) => payingAs({ ...spender, user: Effect.succeed(spender.user) })

/** The fiber's spender, its user looked up now; none when nobody pays. */
export const spenderNow: Effect.Effect<Option.Option<Spender>> = Effect.flatMap(FiberRef.get(currentSpender), (payer) =>
  Option.match(payer, {
    onNone: () => Effect.succeed(Option.none()),
    onSome: (p) => Effect.map(p.user, (user) => Option.some({ network: p.network, user, ...(p.alerts === true ? { alerts: true } : {}) }))
  })
)

/** The ledger's key of the operator's part for the alerts' evaluation (one share of the day). */
export const ALERTS_KEY = "alerts"

/** The ledger's key of a client network's share. */
export const networkKey = (network: string): string => `network:${network}`
/** The ledger's key of a user's share. */
export const userKey = (user: string): string => `user:${user}`

/** What one reservation must fit, every part at once. */
export interface Limits {
  /** The day's total after it (everything spent, new cells and upkeep alike) may not pass this; null: no limit. */
  readonly day: number | null
  /** Shares the units are counted against (ledger keys, in the order they are tried). */
  readonly spenders: ReadonlyArray<string>
  /** What each of `spenders` may have reserved in the day, these units included; null: no limit. */
  readonly perSpender: number | null
}

/** Nothing refused: a recorded call, or a reading of the day's total. */
export const RECORDED: Limits = { day: null, spenders: [], perSpender: null }

/**
 * The limits of a new cell's reservation. Unlimited budget: none (and no shares kept). Without a
 * spender (nobody asked: no client-facing path reserves so) the reservation is anonymous and
 * belongs to no share.
 */
export const limitsFor = (dailyUnits: number | null, shares: Shares, spender: Option.Option<Spender>): Limits => {
  if (dailyUnits === null) return RECORDED
  const signedIn = Option.isSome(spender) && spender.value.user !== null
  const day = signedIn ? dailyUnits : (dailyUnits * (100 - shares.signedIn)) / 100
  // A share of the whole day limits nothing: no share is kept then.
  if (shares.client >= 100) return { day, spenders: [], perSpender: null }
  const keys = Option.match(spender, {
    onNone: () => [],
    onSome: ({ alerts, network, user }) => [
      ...(alerts === true ? [ALERTS_KEY] : []),
      ...(network === null ? [] : [networkKey(network)]),
      ...(user === null ? [] : [userKey(user)])
    ]
  })
  return { day, spenders: [...keys].sort(), perSpender: (dailyUnits * shares.client) / 100 }
}

/** A ledger's answer: reserved (with the day's total after it), or the first limit it would pass. */
export type Reservation =
  | { readonly _tag: "Reserved"; readonly dayTotal: number }
  | {
      readonly _tag: "Refused"
      /** The share that refused it, or null for the day's limit. */
      readonly key: string | null
      /** What that share, or the day, had spent. */
      readonly spent: number
    }

/**
 * The rule every ledger applies, atomically: the shares are tried in order, then the day; the
 * first that `units` would take past its limit refuses the whole reservation, and nothing is added
 * anywhere. `spentBy(null)` is the day's total.
 */
export const refusal = (
  limits: Limits,
  units: number,
  spentBy: (key: string | null) => number
): { readonly key: string | null; readonly spent: number } | undefined => {
  for (const key of limits.spenders) {
    const spent = spentBy(key)
    if (!fits(limits.perSpender, spent, units)) return { key, spent }
  }
  const spent = spentBy(null)
  return fits(limits.day, spent, units) ? undefined : { key: null, spent }
}

/** Where the day's spending is kept, shared by every instance. */
export class BudgetLedger extends Context.Tag("@climate-grade/core/BudgetLedger")<
  BudgetLedger,
  {
    /**
     * Adds `units` to `day`'s total and to each of `limits.spenders`, atomically, unless `refusal`
     * says one of them would pass its limit (then nothing is added).
     */
    readonly reserve: (day: EpochDay, units: number, limits: Limits) => Effect.Effect<Reservation>
    /** Takes back units reserved for a call that failed, from the day and the same shares. */
    readonly refund: (day: EpochDay, units: number, spenders: ReadonlyArray<string>) => Effect.Effect<void>
  }
>() {}

/** The ledger of one process, for a store that no other process shares (and for tests). */
export const memoryLedger = (): BudgetLedger["Type"] => {
  // day → key ("" for the day's total) → units
  const days = new Map<number, Map<string, number>>()
  const of = (day: number) => {
    const found = days.get(day) ?? new Map<string, number>()
    days.set(day, found)
    return found
  }
  return BudgetLedger.of({
    reserve: (day, units, limits) =>
      Effect.sync((): Reservation => {
        const spent = of(day)
        const refused = refusal(limits, units, (key) => spent.get(key ?? "") ?? 0)
        if (refused !== undefined) return { _tag: "Refused", ...refused }
        for (const key of [...limits.spenders, ""]) spent.set(key, (spent.get(key) ?? 0) + units)
        return { _tag: "Reserved", dayTotal: spent.get("") ?? 0 }
      }),
    refund: (day, units, spenders) =>
      Effect.sync(() => {
        const spent = of(day)
        for (const key of [...spenders, ""]) spent.set(key, Math.max(0, (spent.get(key) ?? 0) - units))
      })
  })
}

/** Cost units left of the day's budget, as this process last saw the shared ledger. */
export const unitsLeft = Metric.gauge("weather_budget_units_left", {
  description: "Open-Meteo cost units left of today's budget (WEATHER_DAILY_UNITS), as this process last saw the ledger"
})

/** New cells refused by the budget, by the limit that refused them. */
export const refusals = Metric.counter("weather_budget_refusals", {
  description: "New cells refused by the daily budget, by limit: client_share, user_share, signed_in_part or day",
  incremental: true
})

/** The error a refusal is to the caller. */
export const refusedError = (
  dailyUnits: number,
  shares: Shares,
  limits: Limits,
  units: number,
  refused: { readonly key: string | null; readonly spent: number },
  now: number
): BudgetSpent | ShareSpent => {
  const retryAfterSeconds = secondsUntilNextDay(now)
  if (refused.key !== null) {
    return new ShareSpent({
      scope: refused.key.startsWith("user:") ? "user" : refused.key === ALERTS_KEY ? "alerts" : "client",
      shareUnits: limits.perSpender ?? dailyUnits,
      dailyUnits,
      retryAfterSeconds
    })
  }
  // Refused by the anonymous part of the day, though the whole day still had room.
  const keptForSignedIn = limits.day !== null && limits.day < dailyUnits && fits(dailyUnits, refused.spent, units)
  return new BudgetSpent({
    dailyUnits,
    keptForSignedIn,
    signedInUnits: (dailyUnits * shares.signedIn) / 100,
    retryAfterSeconds
  })
}

const units = (n: number) => String(Math.round(n))

/** What a refusal says: which limit, and until when (Retry-After gives the seconds). */
export const detail = (error: BudgetSpent | ShareSpent): string => {
  const still = "places already loaded still answer."
  if (error._tag === "ShareSpent") {
    const share = `share of today's weather budget (${units(error.shareUnits)} of ${units(error.dailyUnits)} cost units)`
    if (error.scope === "alerts") return `The alerts' ${share} is spent; ${still}`
    return error.scope === "user"
      ? `Your ${share} is spent, so you can load no new place until 00:00 UTC; ${still}`
      : `This client's ${share} is spent, so it can load no new place until 00:00 UTC; ${still}`
  }
  return error.keptForSignedIn
    ? `What is left of today's weather budget is kept for signed-in users (${units(error.signedInUnits)} of ${units(error.dailyUnits)} ` +
        `cost units), so no new place can be loaded without signing in until 00:00 UTC; ${still}`
    : `Today's weather budget (${units(error.dailyUnits)} cost units) is spent, so no new place can be loaded until 00:00 UTC; ${still}`
}

const refusalLabel = (error: BudgetSpent | ShareSpent) =>
  error._tag === "ShareSpent" ? `${error.scope}_share` : error.keptForSignedIn ? "signed_in_part" : "day"

export interface Budget {
  /**
   * A new cell's call: reserved first for the fiber's spender (`BudgetSpent` or `ShareSpent` when
   * it does not fit), refunded if it fails.
   */
  readonly reserved: <A>(units: number, call: Effect.Effect<A, UpstreamError>) => Effect.Effect<A, UpstreamError>
  /** A call that is never refused; its units are recorded in the day's total (and refunded if it fails). */
  readonly recorded: <A>(units: number, call: Effect.Effect<A, UpstreamError>) => Effect.Effect<A, UpstreamError>
  /**
   * A held cell's top-up or refetch: paid by the fiber's spender under its limits, as a new cell
   * is (`BudgetSpent` or `ShareSpent` when it does not fit: the caller keeps what it holds);
   * recorded only when nobody pays.
   */
  readonly upkeep: <A>(units: number, call: Effect.Effect<A, UpstreamError>) => Effect.Effect<A, UpstreamError>
  /** Reads the day's spending (adding nothing) into the `unitsLeft` gauge, e.g. at start-up. */
  readonly observe: Effect.Effect<void>
}

export const make = (ledger: BudgetLedger["Type"], dailyUnits: number | null, shares: Shares = UNSPLIT): Budget => {
  const spend = <A>(units: number, limits: Limits, call: Effect.Effect<A, UpstreamError>) =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const day = utcDay(now)
      const reservation = yield* ledger.reserve(day, units, limits)
      if (reservation._tag === "Refused") {
        const error = refusedError(dailyUnits ?? 0, shares, limits, units, reservation, now)
        yield* Metric.increment(Metric.tagged(refusals, "limit", refusalLabel(error)))
        return yield* error
      }
      if (dailyUnits !== null) yield* Metric.set(unitsLeft, Math.max(0, dailyUnits - reservation.dayTotal))
      return yield* Effect.tapError(call, () => ledger.refund(day, units, limits.spenders))
    })
  return {
    reserved: (units, call) => Effect.flatMap(spenderNow, (spender) => spend(units, limitsFor(dailyUnits, shares, spender), call)),
    recorded: (units, call) => spend(units, RECORDED, call),
    upkeep: (units, call) =>
      Effect.flatMap(spenderNow, (spender) =>
        spend(units, Option.isNone(spender) ? RECORDED : limitsFor(dailyUnits, shares, spender), call)
      ),
    observe:
      dailyUnits === null
        ? Effect.void
        : Effect.gen(function* () {
            const reservation = yield* ledger.reserve(utcDay(yield* Clock.currentTimeMillis), 0, RECORDED)
            const total = reservation._tag === "Reserved" ? reservation.dayTotal : 0
            yield* Metric.set(unitsLeft, Math.max(0, dailyUnits - total))
          })
  }
}
