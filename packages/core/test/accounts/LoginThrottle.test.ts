import { describe, expect, it } from "@effect/vitest"
import { AuthSecret, AuthSecrets, ClientNetwork, LoginThrottle, SecureRandom } from "@climate-grade/core"
import * as KnownDevice from "@climate-grade/core/accounts/KnownDevice"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"

/** A window long beside the slowdown's waits (at most 8 s each), so a burst stays in one window. */
const POLICY: LoginThrottle.Policy = { accountFailures: 3, addressFailures: 6, windowMillis: 600_000 }
const SECRET = "a secret long enough for the known-device cookie"
const KEYS = AuthSecrets.keys(SECRET)

/** The port as the database implements it: `step` per key; a success forgets some keys and takes one back from the others. */
const inMemory = () => {
  const counters = new Map<string, LoginThrottle.Counter>()
  let random = 0
  return Layer.mergeAll(
    Layer.succeed(
      LoginThrottle.LoginAttempts,
      LoginThrottle.LoginAttempts.of({
        count: (keys, now, windowMillis) =>
          Effect.sync(() =>
            keys.map((key) => {
              const next = LoginThrottle.step(Option.fromNullable(counters.get(key)), now, windowMillis)
              counters.set(key, next)
              return next
            })
          ),
        succeeded: (forget, takeBack) =>
          Effect.sync(() => {
            for (const key of forget) counters.delete(key)
            for (const key of takeBack) {
              const c = counters.get(key)
              if (c !== undefined) counters.set(key, { ...c, count: Math.max(0, c.count - 1) })
            }
          })
      })
    ),
    Layer.succeed(LoginThrottle.LoginPolicy, POLICY),
    Layer.succeed(AuthSecret, KEYS),
    Layer.succeed(SecureRandom, { bytes: (n) => Effect.sync(() => new Uint8Array(n).fill(++random % 256)) })
  )
}

const OWNER = "owner@x.org"
const EMAILS = [OWNER, " Owner@X.org", "other@x.org", "nobody@x.org"]
const STRANGERS = ["192.0.2.1", "::ffff:192.0.2.2", "2001:db8::1", "2001:db8:0:1::2", "198.51.100.7"]
/** The owner's own network, which no stranger uses. */
const HOME = "203.0.113.9"

type Answer = "ok" | "refused" | { readonly throttled: number }

interface Try {
  readonly email: string
  readonly address: string
  readonly correct: boolean
  readonly cookie?: string | undefined
}

interface Result {
  readonly answer: Answer
  /** How long the attempt waited before its password was checked. */
  readonly delayMs: number
  readonly cookie: string | undefined
}

/**
 * One attempt on TestClock: `owner@x.org` (any spelling) has a password when `ownerExists`; no
 * other address has an account. A slowed attempt's sleep is found among TestClock's sleeps and
 * waited out exactly, so its delay is measured, and later attempts happen after it.
 */
const attempt = (t: Try, ownerExists: boolean) =>
  Effect.gen(function* () {
    const isOwner = KnownDevice.account(t.email) === OWNER
    const check = Effect.succeed(ownerExists && isOwner && t.correct ? Option.some("session") : Option.none())
    const fiber = yield* Effect.fork(
      LoginThrottle.guard({ email: t.email, address: t.address, deviceCookie: t.cookie }, check).pipe(
        Effect.map((r): [Answer, string | undefined] => (Option.isSome(r) ? ["ok", r.value.deviceCookie] : ["refused", undefined])),
        Effect.catchTag("TooManyAttempts", (e) => Effect.succeed<[Answer, string | undefined]>([{ throttled: e.retryAfterSeconds }, undefined]))
      )
    )
    let delayMs = 0
    for (let i = 0; i < 50 && Option.isNone(yield* Fiber.poll(fiber)); i++) {
      const pending = yield* TestClock.sleeps()
      if (Chunk.isNonEmpty(pending)) {
        delayMs = Chunk.headNonEmpty(pending) - (yield* TestClock.currentTimeMillis)
        yield* TestClock.adjust(delayMs)
        break
      }
      yield* Effect.yieldNow()
    }
    const [answer, cookie] = yield* Fiber.join(fiber)
    return { answer, delayMs, cookie } satisfies Result
  })

interface Step extends Try {
  readonly waitMs: number
}

const run = (steps: ReadonlyArray<Step>, ownerExists = true) =>
  Effect.gen(function* () {
    const results: Array<Result & { readonly at: number; readonly step: Step }> = []
    for (const step of steps) {
      if (step.waitMs > 0) yield* TestClock.adjust(step.waitMs)
      const at = yield* TestClock.currentTimeMillis
      results.push({ ...(yield* attempt(step, ownerExists)), at, step })
    }
    return results
  })

/** Strangers: any address of theirs, any of the e-mails, wrong passwords, any pace. */
const strangerArb: FastCheck.Arbitrary<Step> = FastCheck.record({
  // Mostly at once (the limits are per window), sometimes seconds apart, now and then past a window.
  waitMs: FastCheck.oneof(
    { weight: 12, arbitrary: FastCheck.constant(0) },
    { weight: 3, arbitrary: FastCheck.integer({ min: 0, max: 5_000 }) },
    { weight: 1, arbitrary: FastCheck.integer({ min: 0, max: 900_000 }) }
  ),
  email: FastCheck.constantFrom(...EMAILS),
  address: FastCheck.constantFrom(...STRANGERS),
  correct: FastCheck.constant(false)
})

/** Runs one property run on a fresh store and TestClock of its own. */
const fresh = <A>(program: Effect.Effect<A, never, LoginThrottle.LoginAttempts | LoginThrottle.LoginPolicy | AuthSecret | SecureRandom>) =>
  Effect.runPromise(program.pipe(Effect.provide(inMemory()), Effect.provide(TestContext.TestContext)))

/** Failures whose password was checked (answered "refused"), per key, per window it was counted in. */
const checkedPerWindow = (results: ReadonlyArray<Result & { readonly at: number; readonly step: Step }>, keyOf: (s: Step) => string) => {
  const windows = new Map<string, { start: number; refused: number }>()
  let most = 0
  for (const { answer, at, step } of results) {
    const key = keyOf(step)
    const w = windows.get(key)
    const current = w === undefined || at >= w.start + POLICY.windowMillis ? { start: at, refused: 0 } : w
    if (answer === "refused") current.refused++
    windows.set(key, current)
    most = Math.max(most, current.refused)
  }
  return most
}

describe("LoginThrottle", () => {
  it("a stranger never locks the owner out: a known browser gets in at once from anywhere, a new one within the slowdown", async () => {
    const seen = { strangersThrottled: 0, ownerSlowed: 0 }
    await FastCheck.assert(
      FastCheck.asyncProperty(
        FastCheck.array(strangerArb, { minLength: 1, maxLength: 60, size: "max" }),
        FastCheck.constantFrom(...STRANGERS, HOME),
        (strangers, from) =>
          fresh(
            Effect.gen(function* () {
              // The owner signed in once from home: the browser keeps its known-device cookie.
              const first = yield* attempt({ email: OWNER, address: HOME, correct: true }, true)
              expect(first.answer).toBe("ok")
              const results = yield* run(strangers)
              seen.strangersThrottled += results.filter((r) => typeof r.answer === "object").length
              // From that browser, at any address (a stranger's too, behind one NAT): in, at once.
              const known = yield* attempt({ email: " OWNER@x.org ", address: from, correct: true, cookie: first.cookie }, true)
              expect(known.answer).toBe("ok")
              expect(known.delayMs).toBe(0)
              // From a new browser at home: in, after at most the slowdown's longest wait.
              const newBrowser = yield* attempt({ email: OWNER, address: HOME, correct: true }, true)
              expect(newBrowser.answer).toBe("ok")
              expect(newBrowser.delayMs).toBeLessThanOrEqual(LoginThrottle.MAX_DELAY_MS)
              if (newBrowser.delayMs > 0) seen.ownerSlowed++
            })
          )
      ),
      { numRuns: 50 }
    )
    // The strangers were stopped often and the owner slowed in most runs (seen: ~230 refusals, the
    // owner slowed in ~35 of 50 runs), so neither half holds by absence.
    expect(seen.strangersThrottled).toBeGreaterThan(100)
    expect(seen.ownerSlowed).toBeGreaterThan(10)
  }, 60_000)

  it("within one window a guesser has at most its limits of passwords checked: per account from one network, and per network", async () => {
    let throttled = 0
    await FastCheck.assert(
      FastCheck.asyncProperty(FastCheck.array(strangerArb, { maxLength: 80, size: "max" }), (steps) =>
        fresh(
          Effect.gen(function* () {
            const results = yield* run(steps)
            throttled += results.filter((r) => typeof r.answer === "object").length
            const pair = (s: Step) => `${KnownDevice.account(s.email)}|${ClientNetwork.of(s.address)}`
            expect(checkedPerWindow(results, pair)).toBeLessThanOrEqual(POLICY.accountFailures)
            expect(checkedPerWindow(results, (s) => ClientNetwork.of(s.address))).toBeLessThanOrEqual(POLICY.addressFailures)
            for (const r of results) {
              if (typeof r.answer !== "object") continue
              expect(r.answer.throttled).toBeGreaterThanOrEqual(1)
              expect(r.answer.throttled).toBeLessThanOrEqual(POLICY.windowMillis / 1000)
            }
          })
        )
      ),
      { numRuns: 40 }
    )
    // ~300 refusals are drawn in 40 runs: the limits were reached, not merely never tested.
    expect(throttled).toBeGreaterThan(100)
  }, 60_000)

  it("the account is only slowed: each attempt past the allowance waits longer, up to the most, and is still checked", async () => {
    const answers = await fresh(
      run(
        Array.from({ length: 12 }, (_, i) => ({ waitMs: 0, email: OWNER, address: `198.18.0.${i + 1}`, correct: i === 11 }))
      )
    )
    // Every attempt from a new network is checked (no refusal), after 0, 0, 0, 1, 2, 4, 8, 8 … seconds.
    expect(answers.map((a) => a.answer)).toEqual([...Array.from({ length: 11 }, () => "refused"), "ok"])
    expect(answers.map((a) => a.delayMs)).toEqual([0, 0, 0, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000, 8_000, 8_000, 8_000])
    for (let count = 0; count < 100; count++) {
      expect(LoginThrottle.slowdownMs(POLICY, count)).toBeLessThanOrEqual(LoginThrottle.MAX_DELAY_MS)
      expect(LoginThrottle.slowdownMs(POLICY, count + 1)).toBeGreaterThanOrEqual(LoginThrottle.slowdownMs(POLICY, count))
    }
  })

  it("the answers and the waits do not depend on whether the account exists (no enumeration)", async () => {
    await FastCheck.assert(
      FastCheck.asyncProperty(FastCheck.array(strangerArb, { maxLength: 60, size: "max" }), async (steps) => {
        const known = await fresh(run(steps, true))
        const unknown = await fresh(run(steps, false))
        expect(known.map((r) => [r.answer, r.delayMs, r.at])).toEqual(unknown.map((r) => [r.answer, r.delayMs, r.at]))
      }),
      { numRuns: 25 }
    )
  }, 60_000)

  it("a known browser has its own limit, past which it is any other browser, and a success starts its count over", async () => {
    const answers = await fresh(
      Effect.gen(function* () {
        const first = yield* attempt({ email: OWNER, address: HOME, correct: true }, true)
        const wrong = { email: OWNER, address: STRANGERS[0]!, correct: false, cookie: first.cookie, waitMs: 0 }
        const results = yield* run([
          ...Array.from({ length: 7 }, () => wrong),
          { ...wrong, correct: true },
          { ...wrong, waitMs: 600_000 },
          { ...wrong, correct: true }
        ])
        return results.map((r) => [r.answer, r.delayMs])
      })
    )
    // Three failures on its own count; then that network's pair counts it (three more), then
    // refuses it; after the window it is known and checked at once again.
    expect(answers).toEqual([
      ["refused", 0],
      ["refused", 0],
      ["refused", 0],
      ["refused", 0],
      ["refused", 0],
      ["refused", 0],
      [{ throttled: 600 }, 0],
      [{ throttled: 600 }, 0],
      ["refused", 0],
      ["ok", 0]
    ])
  })

  it("a copy of the owner's known-device cookie guessed with elsewhere never locks the owner's browser out", async () => {
    await FastCheck.assert(
      FastCheck.asyncProperty(
        FastCheck.array(strangerArb, { minLength: 1, maxLength: 40, size: "max" }),
        FastCheck.constantFrom(...STRANGERS),
        (strangers, thief) =>
          fresh(
            Effect.gen(function* () {
              const first = yield* attempt({ email: OWNER, address: HOME, correct: true }, true)
              // The thief guesses with the owner's cookie until refused, among other strangers' guesses.
              const stolen = { email: OWNER, address: thief, correct: false, cookie: first.cookie, waitMs: 0 }
              const results = yield* run([...Array.from({ length: 12 }, () => stolen), ...strangers])
              expect(results.slice(0, 12).some((r) => typeof r.answer === "object")).toBe(true)
              // The owner's browser, with that very cookie, at home: in, within the slowdown's longest wait.
              const owner = yield* attempt({ email: OWNER, address: HOME, correct: true, cookie: first.cookie }, true)
              expect(owner.answer).toBe("ok")
              expect(owner.delayMs).toBeLessThanOrEqual(LoginThrottle.MAX_DELAY_MS)
            })
          )
      ),
      { numRuns: 30 }
    )
  }, 60_000)

  it("addresses count by client: IPv4-mapped as IPv4, IPv6 by its /64", () => {
    expect(LoginThrottle.addressKey("::ffff:192.0.2.1")).toBe(LoginThrottle.addressKey("192.0.2.1"))
    expect(LoginThrottle.addressKey("2001:db8:0:0:1::7")).toBe(LoginThrottle.addressKey("2001:db8::ffff"))
    expect(LoginThrottle.addressKey("2001:db8:0:1::7")).not.toBe(LoginThrottle.addressKey("2001:db8::7"))
    expect(ClientNetwork.of("2001:DB8::1")).toBe("2001:db8:0:0::/64")
    expect(LoginThrottle.accountKey(" Owner@X.org ")).toBe(LoginThrottle.accountKey("owner@x.org"))
    expect(LoginThrottle.pairKey(" Owner@X.org ", "2001:db8::1")).toBe(LoginThrottle.pairKey("owner@x.org", "2001:db8::2"))
  })
})

describe("KnownDevice", () => {
  const DAY = 24 * 60 * 60 * 1000
  const deviceArb = FastCheck.stringMatching(/^[A-Za-z0-9_-]{22}$/)
  const emailArb = FastCheck.oneof(FastCheck.emailAddress(), FastCheck.constantFrom(...EMAILS))

  it("an entry is recognised for its account, in any spelling, until it expires, and for no other account", () => {
    FastCheck.assert(
      FastCheck.property(emailArb, emailArb, deviceArb, FastCheck.integer({ min: 0, max: 2 ** 40 }), (email, other, device, now) => {
        const cookie = KnownDevice.afterSignIn(KEYS, undefined, email, device, now)
        expect(KnownDevice.recognise(KEYS, cookie, ` ${email.toUpperCase()} `, now + DAY)).toEqual(Option.some(device))
        expect(KnownDevice.recognise(KEYS, cookie, email, now + KnownDevice.TTL_SECONDS * 1000 + 1000)).toEqual(Option.none())
        expect(KnownDevice.recognise(AuthSecrets.keys("another secret altogether"), cookie, email, now)).toEqual(Option.none())
        if (KnownDevice.account(other) !== KnownDevice.account(email)) {
          expect(KnownDevice.recognise(KEYS, cookie, other, now)).toEqual(Option.none())
        }
      })
    )
  })

  it("any change to an entry unmakes it", () => {
    FastCheck.assert(
      FastCheck.property(deviceArb, FastCheck.nat(), FastCheck.integer({ min: 0x21, max: 0x7e }), (device, at, code) => {
        const now = 1_700_000_000_000
        const cookie = KnownDevice.afterSignIn(KEYS, undefined, OWNER, device, now)
        const i = at % cookie.length
        const changed = `${cookie.slice(0, i)}${String.fromCharCode(code)}${cookie.slice(i + 1)}`
        FastCheck.pre(changed !== cookie)
        expect(KnownDevice.recognise(KEYS, changed, OWNER, now)).toEqual(Option.none())
      })
    )
  })

  it("a browser is remembered for its last five accounts, the latest first, each keeping its device", () => {
    const now = 1_700_000_000_000
    let cookie: string | undefined
    const accounts = Array.from({ length: 7 }, (_, i) => `user${i}@x.org`)
    accounts.forEach((email, i) => {
      cookie = KnownDevice.afterSignIn(KEYS, cookie, email, `device-number-${i}-abcdefgh`, now + i * 1000)
    })
    expect(cookie!.split("~")).toHaveLength(KnownDevice.MAX_ENTRIES)
    for (const [i, email] of accounts.entries()) {
      const expected = i >= 2 ? Option.some(`device-number-${i}-abcdefgh`) : Option.none()
      expect(KnownDevice.recognise(KEYS, cookie, email, now + 10_000)).toEqual(expected)
    }
    // Signing in again keeps the account's device and moves it first.
    const again = KnownDevice.afterSignIn(KEYS, cookie, "user3@x.org", "a-new-device-0000000000", now + 20_000)
    expect(again.split("~")[0]).toMatch(/^device-number-3-abcdefgh\./)
    expect(again.split("~")).toHaveLength(KnownDevice.MAX_ENTRIES)
  })
})
