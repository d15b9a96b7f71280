/**
 * Throttling of password guessing without lockout (OWASP Authentication Cheat Sheet, "Login
 * Throttling" and "Slow Down Online Guessing Attacks with Device Cookies"). No count that a
 * stranger can raise ever refuses the account's owner:
 *
 * - **Per (account, client network) pair**: past `accountFailures` attempts in a window, that
 *   pair is refused (429, Retry-After) until its window ends. A guesser locks out only itself.
 * - **Per client network**: past `addressFailures` attempts in a window, whatever the accounts
 *   (one client spraying many accounts), refused likewise.
 * - **Per account, from anywhere**: only a slowdown. Past `accountFailures` attempts in a window
 *   from browsers not known to the account, each further attempt waits before its password is
 *   checked, from `FIRST_DELAY_MS` doubling up to `MAX_DELAY_MS`; it is never refused for it.
 * - **A known device** (a browser that signed in to the account before: `KnownDevice`) is counted
 *   under its own key only, with the pair's limit: strangers' failures neither slow nor stop it.
 *   Past that limit it is not refused but counted as a browser not known to the account (OWASP's
 *   "authenticate as untrusted client"): its failures are the cookie's own, so a copy of the
 *   cookie guessed with elsewhere spends that network's pair, never the owner's.
 *
 * Accounts are counted by the normalised e-mail whether or not an account has it, so answers and
 * delays are the same for known and unknown addresses. Each attempt is counted *before* the
 * password is checked, in one atomic statement per key, so concurrent guesses cannot all slip past
 * a read-then-write check; a success then takes its count back. A refused attempt checks no
 * password (no argon2 work for a guesser) and does not move the window.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AuthSecret } from "../AuthSecret.js"
import * as ClientNetwork from "../ClientNetwork.js"
import { base64Url, sha256Hex } from "../Crypto.js"
import * as KnownDevice from "./KnownDevice.js"
import { SecureRandom } from "./Ports.js"

export interface Policy {
  /**
   * Failed attempts allowed per account from one client network within a window (and from one
   * known device); also how many the account takes from anywhere before its attempts slow down.
   */
  readonly accountFailures: number
  /** Failed attempts allowed per client network within one window, whatever the accounts. */
  readonly addressFailures: number
  readonly windowMillis: number
}

/**
 * OWASP suggests a small per-account threshold; the address limit is larger because many people
 * can share one address (a NAT, an office), and only has to stop one client spraying many accounts.
 */
export const DEFAULT_POLICY: Policy = { accountFailures: 10, addressFailures: 100, windowMillis: 15 * 60_000 }

/** The account-wide slowdown: the first wait, doubled for each attempt after it, up to the most. */
export const FIRST_DELAY_MS = 1_000
export const MAX_DELAY_MS = 8_000

export class LoginPolicy extends Context.Tag("@climate-grade/core/LoginPolicy")<LoginPolicy, Policy>() {}

/** Attempts counted in the window that started at `windowStart` (epoch ms). */
export interface Counter {
  readonly count: number
  readonly windowStart: number
}

/**
 * Keys are hashed: whatever a client sends (a megabyte, odd unicode) makes a short, storable key.
 * An account is the address as users type it, trimmed and lower-cased; a client its network
 * (`ClientNetwork`: IPv6 by /64).
 */
export const accountKey = (email: string): string => `account:${sha256Hex(KnownDevice.account(email))}`
export const addressKey = (address: string): string => `address:${sha256Hex(ClientNetwork.of(address))}`
export const pairKey = (email: string, address: string): string =>
  `pair:${sha256Hex(`${KnownDevice.account(email)}\n${ClientNetwork.of(address)}`)}`
export const deviceKey = (device: string, email: string): string => `device:${sha256Hex(`${device}\n${KnownDevice.account(email)}`)}`

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
  | { readonly _tag: "Allowed"; readonly delayMs: number }
  | { readonly _tag: "Throttled"; readonly retryAfterSeconds: number }

/** How long the account's `count`-th attempt from an unknown browser waits before its password is checked. */
export const slowdownMs = (policy: Policy, count: number): number => {
  const over = count - policy.accountFailures
  return over <= 0 ? 0 : Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.min(over - 1, 30))
}

/** Refused until the later of the windows at fault ends (whole seconds, at least one), if any is at fault. */
const refusal = (policy: Policy, atFault: ReadonlyArray<Counter>, now: number): Verdict | undefined => {
  if (atFault.length === 0) return undefined
  const wait = Math.max(...atFault.map((c) => c.windowStart + policy.windowMillis - now))
  return { _tag: "Throttled", retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) }
}

/** The verdict on an attempt from a browser not known to the account, given its counters *after* it was counted. */
export const verdict = (policy: Policy, counters: { readonly pair: Counter; readonly address: Counter; readonly account: Counter }, now: number): Verdict =>
  refusal(
    policy,
    [
      ...(counters.pair.count > policy.accountFailures ? [counters.pair] : []),
      ...(counters.address.count > policy.addressFailures ? [counters.address] : [])
    ],
    now
  ) ?? { _tag: "Allowed", delayMs: slowdownMs(policy, counters.account.count) }

/** The verdict on an attempt from a device known to the account: its own count only. */
export const knownVerdict = (policy: Policy, device: Counter, now: number): Verdict =>
  refusal(policy, device.count > policy.accountFailures ? [device] : [], now) ?? { _tag: "Allowed", delayMs: 0 }

/** The storage of counters, shared by every instance of the service. */
export class LoginAttempts extends Context.Tag("@climate-grade/core/LoginAttempts")<
  LoginAttempts,
  {
    /** Counts one attempt under each key (each atomically, as `step`); the counters after it, in order. */
    readonly count: (keys: ReadonlyArray<string>, now: number, windowMillis: number) => Effect.Effect<ReadonlyArray<Counter>>
    /** An attempt succeeded: the `forget` keys start over; the `takeBack` keys give back the one attempt. */
    readonly succeeded: (forget: ReadonlyArray<string>, takeBack: ReadonlyArray<string>) => Effect.Effect<void>
  }
>() {}

export class TooManyAttempts extends Schema.TaggedError<TooManyAttempts>()("TooManyAttempts", {
  retryAfterSeconds: Schema.Number
}) {}

export interface Attempt {
  readonly email: string
  readonly address: string
  /** The known-device cookie the browser sent, if any. */
  readonly deviceCookie: string | undefined
}

/** An admitted attempt: what the check gave, and the known-device cookie to send back. */
export interface Admitted<A> {
  readonly value: A
  readonly deviceCookie: string
}

const counterAt = (counters: ReadonlyArray<Counter>, i: number): Effect.Effect<Counter> => {
  const counter = counters[i]
  return counter === undefined ? Effect.dieMessage("LoginAttempts.count returned fewer counters than keys") : Effect.succeed(counter)
}

/**
 * Runs a password check under the throttle. `check` answers Some on success and None on any
 * refusal (unknown, wrong, inactive, provider-only: they all count the same). A success also
 * gives the browser's known-device cookie for this account (made or renewed).
 */
export const guard = <A, E, R>(
  attempt: Attempt,
  check: Effect.Effect<Option.Option<A>, E, R>
): Effect.Effect<Option.Option<Admitted<A>>, E | TooManyAttempts, R | LoginAttempts | LoginPolicy | AuthSecret | SecureRandom> =>
  Effect.gen(function* () {
    const policy = yield* LoginPolicy
    const attempts = yield* LoginAttempts
    const secret = yield* AuthSecret
    const now = yield* Clock.currentTimeMillis
    const device = KnownDevice.recognise(secret, attempt.deviceCookie, attempt.email, now)
    const untrusted = [pairKey(attempt.email, attempt.address), addressKey(attempt.address), accountKey(attempt.email)]
    const countUntrusted = Effect.gen(function* () {
      const counters = yield* attempts.count(untrusted, now, policy.windowMillis)
      return verdict(
        policy,
        { pair: yield* counterAt(counters, 0), address: yield* counterAt(counters, 1), account: yield* counterAt(counters, 2) },
        now
      )
    })
    const deviceKeys = Option.match(device, { onNone: () => [], onSome: (d) => [deviceKey(d, attempt.email)] })
    // A known device within its own limit is let in at once; past it, it is any other browser.
    const trusted =
      deviceKeys.length > 0 &&
      knownVerdict(policy, yield* counterAt(yield* attempts.count(deviceKeys, now, policy.windowMillis), 0), now)._tag === "Allowed"
    const decided: Verdict = trusted ? { _tag: "Allowed", delayMs: 0 } : yield* countUntrusted
    if (decided._tag === "Throttled") return yield* new TooManyAttempts({ retryAfterSeconds: decided.retryAfterSeconds })
    if (decided.delayMs > 0) yield* Effect.sleep(decided.delayMs)
    const result = yield* check
    if (Option.isNone(result)) return Option.none()
    // The device and the pair start over; the address and the account give back this attempt.
    yield* attempts.succeeded(trusted ? deviceKeys : [...deviceKeys, untrusted[0]!], trusted ? [] : untrusted.slice(1))
    const newDevice = base64Url(yield* (yield* SecureRandom).bytes(16))
    const after = yield* Clock.currentTimeMillis
    return Option.some({
      value: result.value,
      deviceCookie: KnownDevice.afterSignIn(secret, attempt.deviceCookie, attempt.email, newDevice, after)
    })
  })
