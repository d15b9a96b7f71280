/**
 * The budget's ledger in the database (PGlite and PostgreSQL): the core's rule (UpstreamBudget's
 * shares and the day) applied by SQL, step for step as the core's memory ledger applies it, and
 * kept across instances: several processes racing for one client's share or the day's last units.
 */
import { describe, expect, layer } from "@effect/vitest"
import { CellData, CivilDate, type DailySeries, Geocoder, UpstreamBudget, WeatherSource, Cell } from "@climate-grade/core"
import { BudgetLedgerRepo, CellStoreRepo } from "@climate-grade/postgres"
import { backends } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"

const NETWORKS = ["192.0.2.1", "198.51.100.0", "2001:db8:0:1::/64"] as const
const USERS = ["u1", "u2"] as const
const DAYS = [20_000, 20_001] as Array<CivilDate.EpochDay>

type Step =
  | { readonly _tag: "Reserve"; readonly day: number; readonly units: number; readonly network: number | null; readonly user: number | null }
  | { readonly _tag: "Record"; readonly day: number; readonly units: number }
  | { readonly _tag: "Refund"; readonly which: number }

const stepArb: FastCheck.Arbitrary<Step> = FastCheck.oneof(
  {
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("Reserve" as const),
      day: FastCheck.nat({ max: DAYS.length - 1 }),
      units: FastCheck.oneof(FastCheck.integer({ min: 1, max: 900 }), FastCheck.double({ min: 0.5, max: 400, noNaN: true })),
      network: FastCheck.option(FastCheck.nat({ max: NETWORKS.length - 1 }), { nil: null, freq: 6 }),
      user: FastCheck.option(FastCheck.nat({ max: USERS.length - 1 }), { nil: null })
    }),
    weight: 6
  },
  {
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("Record" as const),
      day: FastCheck.nat({ max: DAYS.length - 1 }),
      units: FastCheck.integer({ min: 1, max: 300 })
    }),
    weight: 2
  },
  { arbitrary: FastCheck.record({ _tag: FastCheck.constant("Refund" as const), which: FastCheck.nat() }), weight: 1 }
)

const configArb = FastCheck.record({
  dailyUnits: FastCheck.integer({ min: 500, max: 4_000 }),
  shares: FastCheck.record({ client: FastCheck.integer({ min: 10, max: 100 }), signedIn: FastCheck.integer({ min: 0, max: 60 }) })
})

const NOW = Date.parse("2026-11-22T12:00:00Z")
const HISTORY_START = CivilDate.fromYmd({ year: 1940, month: 1, day: 1 })
const TODAY = CivilDate.todayIn(NOW, "UTC")
/** The fake source's prices: a unit per 50 days asked (any price does; the budget adds up what the source says). */
const PRICES = { archive: (start: number, end: number) => Math.max(1, (end - start + 1) / 50), forecast: 1 }
const COLD_COST = PRICES.archive(HISTORY_START, TODAY)

const series = (start: number, end: number): DailySeries.DailySeries => {
  const n = end - start + 1
  return { start, tmax: new Float64Array(n).fill(20), tmin: new Float64Array(n).fill(10), precip: new Float64Array(n).fill(1) }
}

/** An instance's weather data over the shared stores, with a counting upstream. */
const instance = (calls: { archive: number }, dailyUnits: number, shares: UpstreamBudget.Shares) =>
  CellData.make({ historyStart: HISTORY_START, dailyUnits, shares }).pipe(
    Effect.provide(
      Layer.mergeAll(
        Layer.succeed(
          WeatherSource,
          WeatherSource.of({
            cost: PRICES,
            forecastReach: 15,
            archive: (_cell, start, end) =>
              Effect.sync(() => {
                calls.archive++
                return { timezone: "UTC", series: series(start, Math.min(end, TODAY - 5)) }
              }),
            forecast: () => Effect.succeed({ timezone: "UTC", series: series(TODAY - 7, TODAY + 15) })
          })
        ),
        Layer.succeed(Geocoder, Geocoder.of({ label: (cell) => Effect.succeed(cell.key) }))
      )
    )
  )

for (const backend of backends) {
  describe(`the budget's ledger on ${backend.name}`, () => {
    layer(Layer.mergeAll(BudgetLedgerRepo.layer, CellStoreRepo.layer).pipe(Layer.provideMerge(backend.layer)), { timeout: 180_000 })(
      (it) => {
        it.scoped("answers every reservation, refusal and refund as the core's rule does (the memory ledger, step for step)", () =>
          Effect.gen(function* () {
            const ledger = yield* UpstreamBudget.BudgetLedger
            const seen = { reserved: 0, refusedByShare: 0, refusedByDay: 0, refunded: 0 }
            const runs = FastCheck.sample(FastCheck.tuple(configArb, FastCheck.array(stepArb, { minLength: 10, maxLength: 30, size: "max" })), {
              numRuns: 25
            })
            for (const [run, [{ dailyUnits, shares }, steps]] of runs.entries()) {
              const model = UpstreamBudget.memoryLedger()
              // Each run its own days, so runs do not see each other's rows.
              const days = DAYS.map((d) => (d + run * 10) as CivilDate.EpochDay)
              const reserved: Array<{ readonly day: CivilDate.EpochDay; readonly units: number; readonly spenders: ReadonlyArray<string> }> = []
              // Days only go forward (a day's shares are forgotten once the next one is reserved in).
              let today = 0
              for (const step of steps) {
                if (step._tag === "Refund") {
                  if (reserved.length === 0) continue
                  const { day, spenders, units } = reserved.splice(step.which % reserved.length, 1)[0]!
                  yield* ledger.refund(day, units, spenders)
                  yield* model.refund(day, units, spenders)
                  seen.refunded++
                  continue
                }
                today = Math.max(today, step.day)
                const day = days[today]!
                const limits =
                  step._tag === "Record"
                    ? UpstreamBudget.RECORDED
                    : UpstreamBudget.limitsFor(
                        dailyUnits,
                        shares,
                        step.network === null
                          ? Option.none()
                          : Option.some({ network: NETWORKS[step.network]!, user: step.user === null ? null : USERS[step.user]! })
                      )
                const [stored, expected] = [yield* ledger.reserve(day, step.units, limits), yield* model.reserve(day, step.units, limits)]
                // The totals are sums of doubles in another order: equal to a billionth.
                const rounded = (r: UpstreamBudget.Reservation) =>
                  r._tag === "Reserved" ? { ...r, dayTotal: r.dayTotal.toFixed(6) } : { ...r, spent: r.spent.toFixed(6) }
                expect(rounded(stored)).toEqual(rounded(expected))
                if (stored._tag === "Reserved") {
                  if (step._tag === "Reserve") seen.reserved++
                  reserved.push({ day, units: step.units, spenders: limits.spenders })
                } else if (stored.key === null) seen.refusedByDay++
                else seen.refusedByShare++
              }
            }
            // Expected over 25 runs of up to 30 steps: ~200 reserved, ~75 refused by a share, ~55 by the day, ~50 refunds.
            expect(seen.reserved).toBeGreaterThan(80)
            expect(seen.refusedByShare).toBeGreaterThan(15)
            expect(seen.refusedByDay).toBeGreaterThan(15)
            expect(seen.refunded).toBeGreaterThan(15)
          }), 180_000)

        it.scoped("instances racing for one client's share: one new cell gets it, the rest are refused by the share, another client still loads", () =>
          Effect.gen(function* () {
            yield* TestClock.setTime(NOW)
            const calls = { archive: 0 }
            // One cell and a half per client, and a day of forty.
            const shares = { client: 100 / 40 * 1.5, signedIn: 0 }
            const instances = yield* Effect.all(Array.from({ length: 4 }, () => instance(calls, Math.ceil(COLD_COST * 40), shares)))
            const outcomes = yield* Effect.all(
              instances.map((data, i) =>
                Effect.either(UpstreamBudget.spendingAs({ network: "203.0.113.5", user: null })(data.history(Cell.fromCoordinates(40 + i, 40))))
              ),
              { concurrency: "unbounded" }
            )
            expect(outcomes.filter((o) => o._tag === "Right")).toHaveLength(1)
            expect(outcomes.filter((o) => o._tag === "Left" && o.left._tag === "ShareSpent")).toHaveLength(3)
            const other = UpstreamBudget.spendingAs({ network: "203.0.113.6", user: null })(instances[0]!.history(Cell.fromCoordinates(50, 50)))
            yield* other
            expect(calls.archive).toBe(2)
          }))
      }
    )
  })
}
