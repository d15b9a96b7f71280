/**
 * Throttling of password guessing (OWASP Authentication Cheat Sheet, "Login Throttling"):
 * failed sign-ins are counted per account (the normalised e-mail, whether or not an account has
 * it, so the answer never tells which addresses exist) and per client address, in fixed windows.
 * Past a limit, attempts are refused (429 with Retry-After) until the window that counted them
 * ends; the owner can then sign in again, and a success starts the account's count over.
 *
 * The attempt is counted *before* the password is checked, in one atomic statement per key, so
 * concurrent guesses cannot all slip past a read-then-write check; a success then takes its
 * count back. A refused attempt checks no password (no argon2 work for a guesser) and does not
 * move the window, so hammering a locked account never extends the owner's wait.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as ClientNetwork from "../ClientNetwork.js"
import { sha256Hex } from "../Crypto.js"

export interface Policy {
  /** Failed attempts allowed per account (normalised e-mail) within one window. */
  readonly accountFailures: number
  /** Failed attempts allowed per client address within one window, whatever the accounts. */
  readonly addressFailures: number
  readonly windowMillis: number
}

/**
 * OWASP suggests a small per-account threshold; the address limit is larger because many people
 * can share one address (a NAT, an office), and only has to stop one client spraying many accounts.
 */
export const DEFAULT_POLICY: Policy = { accountFailures: 10, addressFailures: 100, windowMillis: 15 * 60_000 }

export class LoginPolicy extends Context.Tag("@climate-grade/core/LoginPolicy")<LoginPolicy, Policy>() {}

/** Attempts counted in the window that started at `windowStart` (epoch ms). */
export interface Counter {
  readonly count: number
  readonly windowStart: number
}

/**
 * The key an account is counted under: the address as users type it, trimmed and lower-cased.
 * Keys are hashed: whatever a client sends (a megabyte, a NUL) makes a short, storable key.
 */
export const accountKey = (email: string): string => `account:${sha256Hex(email.trim().toLowerCase())}`

/** The key a client address is counted under: its network (`ClientNetwork`: IPv6 by /64), hashed. */
export const addressKey = (address: string): string => `address:${sha256Hex(ClientNetwork.of(address))}`

/**
 * The counter once one more attempt is counted at `now`: a window that has ended starts over.
 * (The database adapter does the same in one upsert; this is the rule it implements.)
 */
export const step = (counter: Option.Option<Counter>, now: number, windowMillis: number): Counter =>
  Option.match(counter, {
    onNone: () => ({ count: 1, windowStart: now }),
    onSome: (c) => (now >= c.windowStart + windowMillis ? { count: 1, windowStart: now } : { count: c.count + 1, windowStart: c.windowStart })
  })

export type Verdict =
  | { readonly _tag: "Allowed" }
  | { readonly _tag: "Throttled"; readonly retryAfterSeconds: number }

/**
 * The verdict on an attempt, given both counters *after* it was counted: refused when either is
 * over its limit, until the later of the windows at fault ends (whole seconds, at least one).
 */
export const verdict = (policy: Policy, account: Counter, address: Counter, now: number): Verdict => {
  const waits = [
    account.count > policy.accountFailures ? account.windowStart + policy.windowMillis - now : undefined,
    address.count > policy.addressFailures ? address.windowStart + policy.windowMillis - now : undefined
  ].filter((w): w is number => w !== undefined)
  if (waits.length === 0) return { _tag: "Allowed" }
  return { _tag: "Throttled", retryAfterSeconds: Math.max(1, Math.ceil(Math.max(...waits) / 1000)) }
}

/** The storage of counters, shared by every instance of the service. */
export class LoginAttempts extends Context.Tag("@climate-grade/core/LoginAttempts")<
  LoginAttempts,
  {
    /** Counts one attempt under each key (each atomically, as `step`); the counters after it, in order. */
    readonly count: (
      keys: readonly [account: string, address: string],
      now: number,
      windowMillis: number
    ) => Effect.Effect<readonly [Counter, Counter]>
    /** The attempt succeeded: the account's count starts over; the address's attempt is taken back. */
    readonly succeeded: (keys: readonly [account: string, address: string]) => Effect.Effect<void>
  }
>() {}

export class TooManyAttempts extends Schema.TaggedError<TooManyAttempts>()("TooManyAttempts", {
  retryAfterSeconds: Schema.Number
}) {}

/**
 * Runs a password check under the throttle. `check` answers Some on success and None on any
 * refusal (unknown, wrong, inactive, provider-only: they all count the same).
 */
export const guard = <A, E, R>(
  attempt: { readonly email: string; readonly address: string },
  check: Effect.Effect<Option.Option<A>, E, R>
): Effect.Effect<Option.Option<A>, E | TooManyAttempts, R | LoginAttempts | LoginPolicy> =>
  Effect.gen(function* () {
    const policy = yield* LoginPolicy
    const attempts = yield* LoginAttempts
    const keys = [accountKey(attempt.email), addressKey(attempt.address)] as const
    const now = yield* Clock.currentTimeMillis
    const [account, address] = yield* attempts.count(keys, now, policy.windowMillis)
    const decided = verdict(policy, account, address, now)
    if (decided._tag === "Throttled") return yield* new TooManyAttempts({ retryAfterSeconds: decided.retryAfterSeconds })
    const result = yield* check
    if (Option.isSome(result)) yield* attempts.succeeded(keys)
    return result
  })
