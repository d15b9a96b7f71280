/**
 * The daily budget's shares (core UpstreamBudget) as a property over a memory ledger: a new cell
 * is reserved exactly when it fits its client network's share, its user's share and the day (the
 * day less the signed-in part for an anonymous client); a refusal names the limit that refused
 * it; upkeep is paid under the same rules by whoever caused it, and recorded only when nobody did;
 * a failed call gives its units back.
 */
import { describe, expect, it } from "@effect/vitest"
import { BudgetSpent, ShareSpent, UpstreamBudget, type UpstreamError, UpstreamFailure } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"

const NETWORKS = ["192.0.2.1", "2001:db8:0:1::/64", "198.51.100.7"] as const
const USERS = ["u1", "u2"] as const

type Step =
  | {
      readonly _tag: "New"
      readonly units: number
      readonly network: number
      readonly user: number | null
      readonly fails: boolean
    }
  | { readonly _tag: "Upkeep"; readonly units: number; readonly fails: boolean }
  | { readonly _tag: "NextDay" }

const stepArb: FastCheck.Arbitrary<Step> = FastCheck.oneof(
  {
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("New" as const),
      // A new cell costs a few hundred units of a budget of a few thousand.
      units: FastCheck.integer({ min: 50, max: 700 }),
      network: FastCheck.nat({ max: NETWORKS.length - 1 }),
      user: FastCheck.option(FastCheck.nat({ max: USERS.length - 1 }), { nil: null }),
      fails: FastCheck.integer({ min: 0, max: 9 }).map((n) => n < 2)
    }),
    weight: 8
  },
  {
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("Upkeep" as const),
      units: FastCheck.integer({ min: 1, max: 200 }),
      fails: FastCheck.boolean()
    }),
    weight: 2
  },
  { arbitrary: FastCheck.record({ _tag: FastCheck.constant("NextDay" as const) }), weight: 1 }
)

/** An outcome in a few words, compared as a string (deep equality of errors is slow over thousands of steps). */
const summary = (outcome: Either.Either<string, UpstreamError>): string =>
  Either.match(outcome, {
    onRight: (ok) => ok,
    onLeft: (e) =>
      e._tag === "ShareSpent"
        ? `ShareSpent ${e.scope} ${e.shareUnits} of ${e.dailyUnits}, ${e.retryAfterSeconds} s`
        : e._tag === "BudgetSpent"
          ? `BudgetSpent ${e.dailyUnits}, kept ${e.keptForSignedIn} (${e.signedInUnits}), ${e.retryAfterSeconds} s`
          : e._tag
  })

const configArb = FastCheck.record({
  dailyUnits: FastCheck.integer({ min: 1_000, max: 5_000 }),
  client: FastCheck.integer({ min: 10, max: 100 }),
  signedIn: FastCheck.integer({ min: 0, max: 60 })
})

describe("UpstreamBudget", () => {
  it.effect("a new cell is reserved exactly when it fits its network's share, its user's share and its part of the day; refusals say which", () =>
    Effect.gen(function* () {
      const seen = { reserved: 0, clientShare: 0, userShare: 0, keptForSignedIn: 0, daySpent: 0, refunded: 0 }
      const runs = yield* Effect.sync(() =>
        FastCheck.sample(FastCheck.tuple(configArb, FastCheck.array(stepArb, { minLength: 5, maxLength: 50, size: "max" })), {
          numRuns: 200
        })
      )
      for (const [{ client, dailyUnits, signedIn }, steps] of runs) {
        yield* TestClock.setTime(Date.parse("2026-03-01T10:00:00Z"))
        const shares = { client, signedIn }
        const budget = UpstreamBudget.make(UpstreamBudget.memoryLedger(), dailyUnits, shares)
        const share = (dailyUnits * client) / 100
        // The model of the day's ledger.
        let total = 0
        let spent = new Map<string, number>()
        for (const step of steps) {
          if (step._tag === "NextDay") {
            yield* TestClock.adjust("1 day")
            total = 0
            spent = new Map()
            continue
          }
          const call = step.fails ? Effect.fail(new UpstreamFailure({ source: "test", reason: "down" })) : Effect.succeed("ok")
          if (step._tag === "Upkeep") {
            const outcome = summary(yield* Effect.either(budget.recorded(step.units, call)))
            // Never refused: it runs, and counts in the day only when it succeeded.
            expect(outcome).toBe(step.fails ? "UpstreamFailure" : "ok")
            if (!step.fails) total += step.units
            continue
          }
          const network = NETWORKS[step.network]!
          const user = step.user === null ? null : USERS[step.user]!
          const keys = [`network:${network}`, ...(user === null ? [] : [`user:${user}`])]
          const dayLimit = user === null ? (dailyUnits * (100 - signedIn)) / 100 : dailyUnits
          const units = step.units
          const outcome = summary(yield* Effect.either(UpstreamBudget.spendingAs({ network, user })(budget.reserved(units, call))))
          // 14 hours until 00:00 UTC, whichever day it is.
          // The rule, stated on its own: the network's share, then the user's, then the day.
          const over = client < 100 ? keys.find((k) => (spent.get(k) ?? 0) + units > share) : undefined
          if (over !== undefined) {
            const scope = over.startsWith("user:") ? "user" : "client"
            expect(outcome).toBe(`ShareSpent ${scope} ${share} of ${dailyUnits}, ${14 * 3600} s`)
            seen[scope === "user" ? "userShare" : "clientShare"]++
          } else if (total + units > dayLimit) {
            const kept = user === null && total + units <= dailyUnits
            expect(outcome).toBe(`BudgetSpent ${dailyUnits}, kept ${kept} (${(dailyUnits * signedIn) / 100}), ${14 * 3600} s`)
            seen[kept ? "keptForSignedIn" : "daySpent"]++
          } else if (step.fails) {
            // Reserved, called, failed: the units come back.
            expect(outcome).toBe("UpstreamFailure")
            seen.refunded++
          } else {
            expect(outcome).toBe("ok")
            total += units
            if (client < 100) for (const k of keys) spent.set(k, (spent.get(k) ?? 0) + units)
            seen.reserved++
          }
        }
        // Never more than a share for one network or user.
        for (const value of spent.values()) expect(value).toBeLessThanOrEqual(share)
      }
      // Every outcome happened often enough to be checked: over 200 runs of up to 50 steps, about
      // 1,700 reserved, 1,100 refused by a network's share, 230 by a user's, 60 by the signed-in
      // part, 200 by the day, 500 failed and refunded.
      expect(seen.reserved).toBeGreaterThan(700)
      expect(seen.clientShare).toBeGreaterThan(400)
      expect(seen.userShare).toBeGreaterThan(80)
      expect(seen.keptForSignedIn).toBeGreaterThan(15)
      expect(seen.daySpent).toBeGreaterThan(60)
      expect(seen.refunded).toBeGreaterThan(200)
    }), 180_000)

  it.effect("upkeep is paid by whoever caused it: a client's share and part of the day, the alerts' part and the watch's user; nobody's is recorded", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2026-03-01T10:00:00Z"))
      // 1,000 units: a share is 200, the anonymous part 750.
      const budget = UpstreamBudget.make(UpstreamBudget.memoryLedger(), 1_000, UpstreamBudget.DEFAULT_SHARES)
      const upkeep = (spender: UpstreamBudget.Spender | null, units: number) => {
        const call = budget.upkeep(units, Effect.succeed("ok"))
        return Effect.map(Effect.either(spender === null ? call : UpstreamBudget.spendingAs(spender)(call)), summary)
      }
      /** How many one-unit upkeeps pass before the first refusal, and that refusal. */
      const until = (spender: UpstreamBudget.Spender | null, most = 2_000) =>
        Effect.gen(function* () {
          for (let paid = 0; paid < most; paid++) {
            const outcome = yield* upkeep(spender, 1)
            if (outcome !== "ok") return [paid, outcome] as const
          }
          return [most, "ok"] as const
        })
      const anonymous = (network: string) => ({ network, user: null })
      const retry = `${14 * 3600} s`
      // An anonymous client touching held cells spends its own share, then is refused.
      expect(yield* until(anonymous("192.0.2.1"))).toEqual([200, `ShareSpent client 200 of 1000, ${retry}`])
      expect(yield* until(anonymous("192.0.2.2"))).toEqual([200, `ShareSpent client 200 of 1000, ${retry}`])
      expect(yield* until(anonymous("192.0.2.3"))).toEqual([200, `ShareSpent client 200 of 1000, ${retry}`])
      // However many clients touch cells, the part kept for signed-in users stays theirs.
      expect(yield* until(anonymous("192.0.2.4"))).toEqual([150, `BudgetSpent 1000, kept true (250), ${retry}`])
      expect(yield* until(anonymous("192.0.2.5"))).toEqual([0, `BudgetSpent 1000, kept true (250), ${retry}`])
      expect(yield* until({ network: "192.0.2.6", user: "u1" })).toEqual([200, `ShareSpent client 200 of 1000, ${retry}`])
      // The alerts' evaluation: its watch's user and the alerts' part, within the whole day.
      expect(yield* until({ network: null, user: "u2", alerts: true })).toEqual([50, `BudgetSpent 1000, kept false (250), ${retry}`])
      // Upkeep nobody caused is only recorded, never refused.
      expect(yield* until(null, 10)).toEqual([10, "ok"])

      // The alerts' part is one share of the day, whichever users' watches spend it.
      const fresh = UpstreamBudget.make(UpstreamBudget.memoryLedger(), 1_000, UpstreamBudget.DEFAULT_SHARES)
      let paid = 0
      for (const user of ["u1", "u2", "u3", "u4", "u5"]) {
        for (let i = 0; i < 60; i++) {
          const outcome = summary(
            yield* Effect.either(UpstreamBudget.spendingAs({ network: null, user, alerts: true })(fresh.upkeep(1, Effect.succeed("ok"))))
          )
          if (outcome === "ok") paid++
          else expect(outcome).toBe(`ShareSpent alerts 200 of 1000, ${retry}`)
        }
      }
      expect(paid).toBe(200)
    }))

  it("the limits of a reservation: anonymous clients get the day less the signed-in part; no share of an unlimited day", () => {
    const spender = (user: string | null) => Option.some({ network: "192.0.2.1", user })
    expect(UpstreamBudget.limitsFor(10_000, UpstreamBudget.DEFAULT_SHARES, spender(null))).toEqual({
      day: 7_500,
      spenders: ["network:192.0.2.1"],
      perSpender: 2_000
    })
    expect(UpstreamBudget.limitsFor(10_000, UpstreamBudget.DEFAULT_SHARES, spender("42"))).toEqual({
      day: 10_000,
      spenders: ["network:192.0.2.1", "user:42"],
      perSpender: 2_000
    })
    expect(UpstreamBudget.limitsFor(null, UpstreamBudget.DEFAULT_SHARES, spender("42"))).toEqual(UpstreamBudget.RECORDED)
    expect(UpstreamBudget.limitsFor(10_000, UpstreamBudget.UNSPLIT, spender(null))).toEqual({ day: 10_000, spenders: [], perSpender: null })
  })

  it("each refusal's detail names its limit and 00:00 UTC", () => {
    const base = { dailyUnits: 10_000, retryAfterSeconds: 60 }
    expect(UpstreamBudget.detail(new ShareSpent({ ...base, scope: "client", shareUnits: 2_000 }))).toBe(
      "This client's share of today's weather budget (2000 of 10000 cost units) is spent, so it can load no new place until " +
        "00:00 UTC; places already loaded still answer."
    )
    expect(UpstreamBudget.detail(new ShareSpent({ ...base, scope: "user", shareUnits: 2_000 }))).toBe(
      "Your share of today's weather budget (2000 of 10000 cost units) is spent, so you can load no new place until " +
        "00:00 UTC; places already loaded still answer."
    )
    expect(UpstreamBudget.detail(new ShareSpent({ ...base, scope: "alerts", shareUnits: 2_000 }))).toBe(
      "The alerts' share of today's weather budget (2000 of 10000 cost units) is spent; places already loaded still answer."
    )
    expect(UpstreamBudget.detail(new BudgetSpent({ ...base, keptForSignedIn: true, signedInUnits: 2_500 }))).toBe(
      "What is left of today's weather budget is kept for signed-in users (2500 of 10000 cost units), so no new place can be " +
        "loaded without signing in until 00:00 UTC; places already loaded still answer."
    )
    expect(UpstreamBudget.detail(new BudgetSpent({ ...base, keptForSignedIn: false, signedInUnits: 2_500 }))).toBe(
      "Today's weather budget (10000 cost units) is spent, so no new place can be loaded until 00:00 UTC; places already loaded still answer."
    )
  })
})
