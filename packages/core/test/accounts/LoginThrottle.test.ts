import { describe, expect, it } from "@effect/vitest"
import { ClientNetwork, LoginThrottle } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"

const POLICY: LoginThrottle.Policy = { accountFailures: 3, addressFailures: 5, windowMillis: 60_000 }

/** The port as the database implements it: `step` per key, a success resets / takes back. */
const inMemory = () => {
  const counters = new Map<string, LoginThrottle.Counter>()
  return Layer.succeed(
    LoginThrottle.LoginAttempts,
    LoginThrottle.LoginAttempts.of({
      count: (keys, now, windowMillis) =>
        Effect.sync(() => {
          const after = keys.map((key) => {
            const next = LoginThrottle.step(Option.fromNullable(counters.get(key)), now, windowMillis)
            counters.set(key, next)
            return next
          })
          return [after[0]!, after[1]!] as const
        }),
      succeeded: ([account, address]) =>
        Effect.sync(() => {
          counters.delete(account)
          const a = counters.get(address)
          if (a !== undefined) counters.set(address, { ...a, count: Math.max(0, a.count - 1) })
        })
    })
  ).pipe(Layer.merge(Layer.succeed(LoginThrottle.LoginPolicy, POLICY)))
}

const EMAILS = ["owner@x.org", "Owner@X.org ", "other@x.org", "nobody@x.org"]
// The last one is never generated: the owner's own, fresh address.
const ADDRESSES = ["192.0.2.1", "::ffff:192.0.2.1", "2001:db8::1", "2001:db8::2", "198.51.100.7", "203.0.113.9"]

interface Step {
  readonly waitMs: number
  readonly email: number
  readonly address: number
  readonly correct: boolean
}

const stepArb: FastCheck.Arbitrary<Step> = FastCheck.record({
  waitMs: FastCheck.oneof(FastCheck.constant(0), FastCheck.integer({ min: 0, max: 5_000 }), FastCheck.integer({ min: 0, max: 90_000 })),
  email: FastCheck.nat({ max: EMAILS.length - 1 }),
  address: FastCheck.nat({ max: ADDRESSES.length - 2 }),
  correct: FastCheck.boolean()
})

type Answer = "ok" | "refused" | { readonly throttled: number }

/** Runs attempts on TestClock; `owner@x.org` (any spelling) has a password, every other address does not exist. */
const run = (steps: ReadonlyArray<Step>, ownerExists = true) =>
  Effect.gen(function* () {
    const answers: Array<{ at: number; step: Step; answer: Answer }> = []
    for (const step of steps) {
      if (step.waitMs > 0) yield* TestClock.adjust(step.waitMs)
      const email = EMAILS[step.email]!
      const isOwner = email.trim().toLowerCase() === "owner@x.org"
      const check = Effect.succeed(ownerExists && isOwner && step.correct ? Option.some("session") : Option.none())
      const answer = yield* LoginThrottle.guard({ email, address: ADDRESSES[step.address]! }, check).pipe(
        Effect.map((r): Answer => (Option.isSome(r) ? "ok" : "refused")),
        Effect.catchTag("TooManyAttempts", (e) => Effect.succeed<Answer>({ throttled: e.retryAfterSeconds }))
      )
      answers.push({ at: yield* TestClock.currentTimeMillis, step, answer })
    }
    return answers
  }).pipe(Effect.provide(inMemory()))

describe("LoginThrottle", () => {
  it.effect.prop(
    "within one window an account has at most its limit of passwords checked and refused",
    [FastCheck.array(stepArb, { maxLength: 60 })],
    ([steps]) =>
      Effect.gen(function* () {
        const answers = yield* run(steps)
        // Refusals per account key, bucketed by the window each was counted in: replay `step`.
        const windows = new Map<string, { start: number; refused: number }>()
        for (const { answer, at, step } of answers) {
          const key = LoginThrottle.accountKey(EMAILS[step.email]!)
          const w = windows.get(key)
          const current = w === undefined || at >= w.start + POLICY.windowMillis ? { start: at, refused: 0 } : w
          if (answer === "ok") current.refused = 0
          if (answer === "refused") current.refused++
          windows.set(key, current)
          expect(current.refused).toBeLessThanOrEqual(POLICY.accountFailures)
        }
      }),
    { fastCheck: { numRuns: 40 } }
  )

  it.effect.prop(
    "a throttled answer's Retry-After is within the window, and waiting it out lets the owner in",
    [FastCheck.array(stepArb, { minLength: 1, maxLength: 40 })],
    ([steps]) =>
      Effect.gen(function* () {
        // Guessing from one address until refused, then the owner waits as told, from another.
        const guesses = [...steps, ...Array.from({ length: 12 }, () => ({ waitMs: 0, email: 0, address: 0, correct: false }))]
        const answers = yield* run([...guesses])
        const throttled = answers.filter((a) => typeof a.answer === "object")
        FastCheck.pre(throttled.length > 0)
        for (const { answer } of throttled) {
          const seconds = (answer as { throttled: number }).throttled
          expect(seconds).toBeGreaterThanOrEqual(1)
          expect(seconds).toBeLessThanOrEqual(POLICY.windowMillis / 1000)
        }
        const last = throttled[throttled.length - 1]!.answer as { throttled: number }
        const replay = yield* run([
          ...guesses,
          { waitMs: last.throttled * 1000, email: 1, address: ADDRESSES.length - 1, correct: true }
        ])
        expect(replay[replay.length - 1]!.answer).toBe("ok")
      }),
    { fastCheck: { numRuns: 40 } }
  )

  it.effect.prop(
    "the answers do not depend on whether the account exists (no enumeration)",
    [FastCheck.array(stepArb.map((s) => ({ ...s, correct: false })), { maxLength: 60 })],
    ([steps]) =>
      Effect.gen(function* () {
        const known = yield* run(steps, true)
        const unknown = yield* run(steps, false)
        expect(known.map((a) => a.answer)).toEqual(unknown.map((a) => a.answer))
      }),
    { fastCheck: { numRuns: 40 } }
  )

  it.effect("a success starts the account's count over; the address keeps its failures", () =>
    Effect.gen(function* () {
      const wrong = { waitMs: 0, email: 0, address: 0, correct: false }
      const right = { ...wrong, correct: true }
      const elsewhere = { ...wrong, email: 2 }
      const answers = yield* run([wrong, wrong, right, wrong, wrong, wrong, wrong, elsewhere])
      expect(answers.map((a) => a.answer)).toEqual([
        "refused",
        "refused",
        "ok", // the account starts over; the address keeps its 2 failures
        "refused",
        "refused",
        "refused",
        { throttled: 60 }, // the account's 4th attempt in its window
        { throttled: 60 } // another account, but the address is past its 5
      ])
    })
  )

  it("addresses count by client: IPv4-mapped as IPv4, IPv6 by its /64", () => {
    expect(LoginThrottle.addressKey("::ffff:192.0.2.1")).toBe(LoginThrottle.addressKey("192.0.2.1"))
    expect(LoginThrottle.addressKey("2001:db8:0:0:1::7")).toBe(LoginThrottle.addressKey("2001:db8::ffff"))
    expect(LoginThrottle.addressKey("2001:db8:0:1::7")).not.toBe(LoginThrottle.addressKey("2001:db8::7"))
    expect(ClientNetwork.of("2001:DB8::1")).toBe("2001:db8:0:0::/64")
    expect(LoginThrottle.accountKey(" Owner@X.org ")).toBe(LoginThrottle.accountKey("owner@x.org"))
  })
})
