/**
 * Fair use of the upstreams over real HTTP, with fake Open-Meteo and Nominatim servers, on PGlite
 * and PostgreSQL: the daily cost-unit budget, the per-client limit on new cells, the geocoder's
 * turns between clients, and a slow geocoder that never holds a view.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { UpstreamBudget } from "@climate-grade/core"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { backends, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import { appConfig, describeConfigError } from "../src/AppConfig.js"

class Upstreams extends Context.Tag("test/FairUseUpstreams")<
  Upstreams,
  { readonly weather: FakeOpenMeteo.FakeOpenMeteo; readonly geocoder: FakeNominatim.FakeNominatim }
>() {}

const world = (backend: (typeof backends)[number], env: Record<string, string>) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      return Layer.merge(
        testServerLayer(
          {
            ...FakeEnv.upstreams(weather, geocoder),
            HISTORY_START: "1980-01-01",
            TRUSTED_PROXY_HOPS: "1",
            ...env
          },
          backend.layer
        ),
        Layer.succeed(Upstreams, { weather, geocoder })
      )
    })
  )

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: { readonly detail?: string; readonly cell?: { readonly label: string | null } }
}

const get = (path: string, client = "10.0.0.1") =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const response = yield* Effect.promise(() => fetch(server.url(path), { headers: { "x-forwarded-for": client } }))
    const body = (yield* Effect.promise(() => response.json())) as Answer["body"]
    return { status: response.status, headers: response.headers, body } satisfies Answer
  })

const readConfig = (env: Record<string, string>) =>
  Effect.either(Effect.withConfigProvider(appConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("WEATHER_DAILY_UNITS", () => {
  it.effect("10,000 by default without an API key; unlimited with one unless set; a bad value names the variable", () =>
    Effect.gen(function* () {
      const units = (env: Record<string, string>) =>
        Effect.map(readConfig(env), Either.match({ onLeft: describeConfigError, onRight: (c) => c.weather.dailyUnits }))
      expect(yield* units({})).toBe(10_000)
      expect(yield* units({ WEATHER_API_KEY: "k" })).toBeNull()
      expect(yield* units({ WEATHER_API_KEY: "k", WEATHER_DAILY_UNITS: "250000" })).toBe(250_000)
      expect(yield* units({ WEATHER_DAILY_UNITS: "unlimited" })).toBeNull()
      expect(yield* units({ WEATHER_DAILY_UNITS: "0" })).toMatch(/^Invalid configuration: WEATHER_DAILY_UNITS: /)
      expect(yield* units({ WEATHER_DAILY_UNITS: "lots" })).toMatch(/^Invalid configuration: WEATHER_DAILY_UNITS: /)
      expect(yield* units({ COLD_CELLS_PER_CLIENT: "0" })).toMatch(/^Invalid configuration: COLD_CELLS_PER_CLIENT: /)
    }))
})

for (const backend of backends) {
  describe(`fair use on ${backend.name}`, () => {
    // A new cell's history (1980 until today) costs ~370 units: room for one, not two.
    layer(world(backend, { WEATHER_DAILY_UNITS: "500" }), { timeout: 120_000 })((it) => {
      it.effect("past the day's budget a new cell is 503 with Retry-After until 00:00 UTC; held cells still answer", () =>
        Effect.gen(function* () {
          const { weather } = yield* Upstreams
          expect((yield* get("/api/v2/grade?lat=10&lon=10")).status).toBe(200)
          // The gauge: 500 less one new cell (~370) and one forecast (1).
          const left = (yield* Metric.value(UpstreamBudget.unitsLeft)).value
          expect(left).toBeGreaterThan(100)
          expect(left).toBeLessThan(150)
          const refused = yield* get("/api/v2/grade?lat=20&lon=20")
          const untilMidnight = UpstreamBudget.secondsUntilNextDay(Date.now())
          expect(refused.status).toBe(503)
          expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(untilMidnight - 60)
          expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(untilMidnight + 1)
          expect(refused.body.detail).toBe(
            "Today's weather budget (500 cost units) is spent, so no new place can be loaded until 00:00 UTC; places already loaded still answer."
          )
          // The refused cell cost nothing upstream; the held one answers every view.
          expect(weather.requests.archive).toHaveLength(1)
          for (const path of ["/api/v2/day?lat=10&lon=10", "/api/v2/calendar?lat=10&lon=10", "/api/v2/cell?lat=10&lon=10"]) {
            expect((yield* get(path)).status).toBe(200)
          }
        }))
    })

    layer(world(backend, {}), { timeout: 120_000 })((it) => {
      it.effect("one client gets two new cells loading at once; a third is 429 with Retry-After; other clients and held cells are not held back", () =>
        Effect.gen(function* () {
          const { weather } = yield* Upstreams
          weather.delayMs = 3_000
          const mine = yield* Effect.all(
            [30, 31, 32].map((lat) => get(`/api/v2/cell?lat=${lat}&lon=${lat}`, "10.1.0.1")),
            { concurrency: "unbounded" }
          )
          const other = yield* Effect.fork(get("/api/v2/cell?lat=33&lon=33", "10.1.0.2"))
          expect(mine.map((a) => a.status).sort()).toEqual([200, 200, 429])
          const refused = mine.find((a) => a.status === 429)!
          expect(refused.headers.get("retry-after")).toBe("5")
          expect(refused.body.detail).toBe("This client is already loading 2 new places; try again once one of them has loaded.")
          expect((yield* Effect.fromFiber(other)).status).toBe(200)
          weather.delayMs = 0

          // Cells already held take no slot: many at once from one client all answer.
          const held = yield* Effect.all(
            [30, 31, 33, 30, 31].map((lat) => get(`/api/v2/day?lat=${lat}&lon=${lat}`, "10.1.0.1")),
            { concurrency: "unbounded" }
          )
          expect(held.map((a) => a.status)).toEqual([200, 200, 200, 200, 200])
          // The refused one loads once asked again.
          expect((yield* get("/api/v2/cell?lat=32&lon=32", "10.1.0.1")).status).toBe(200)
        }))

      it.effect("one client's thirty searches at once: its bound queues, the rest are 429; another client's search and a new cell's label go before its queue", () =>
        Effect.gen(function* () {
          const { geocoder } = yield* Upstreams
          // Each call takes a second, and a second passes between calls.
          geocoder.delayMs = 1_000
          const before = geocoder.requests.length
          let answered = 0
          const burst = yield* Effect.fork(
            Effect.all(
              Array.from({ length: 30 }, (_, i) => Effect.tap(get(`/api/v2/places?q=burst+${i}`, "10.40.0.1"), () => Effect.sync(() => void answered++))),
              { concurrency: "unbounded" }
            )
          )
          // The refusals are at once (within ten seconds however loaded the machine, where thirty
          // searches in turn would take a minute); the three queued wait their turns.
          yield* Effect.promise(async () => {
            const start = Date.now()
            while (answered < 20 && Date.now() - start < 10_000) await new Promise((resolve) => setTimeout(resolve, 20))
          })
          expect(answered).toBeGreaterThanOrEqual(20)
          const other = yield* Effect.fork(get("/api/v2/places?q=elsewhere", "10.40.0.2"))
          const fresh = yield* Effect.fork(get("/api/v2/grade?lat=-40&lon=-40", "10.40.0.3"))
          const answers = yield* Fiber.join(burst)
          expect((yield* Fiber.join(other)).status).toBe(200)
          expect((yield* Fiber.join(fresh)).status).toBe(200)
          geocoder.delayMs = 0

          // Three at a time: on a loaded machine a late request may find one of the first done already.
          const served = answers.filter((a) => a.status === 200)
          const refused = answers.filter((a) => a.status === 429)
          expect(served.length).toBeGreaterThanOrEqual(3)
          expect(refused.length).toBeGreaterThanOrEqual(20)
          expect(served.length + refused.length).toBe(30)
          for (const answer of refused) {
            expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
            expect(answer.body.detail).toMatch(/^This client already has 3 place searches waiting for the geocoder; try again in \d+ seconds?\.$/)
          }
          // What reached Nominatim, in order: the other client's search and the label each before the burst's last.
          const sent = geocoder.requests.slice(before).map((r) => (r.path === "/reverse" ? "label" : (r.query.q ?? "")))
          expect(sent.filter((q) => q.startsWith("burst"))).toHaveLength(served.length)
          const lastOfBurst = sent.length - 1 - [...sent].reverse().findIndex((q) => q.startsWith("burst"))
          expect(sent.indexOf("elsewhere")).toBeLessThan(lastOfBurst)
          expect(sent.indexOf("label")).toBeLessThan(lastOfBurst)
        }))

      it.effect("a geocoder queue does not hold views: a label queued behind another is served null, then labeled", () =>
        Effect.gen(function* () {
          const { geocoder } = yield* Upstreams
          // Slower than the view's wait (2 s), within the geocoder's timeout (5 s): two new cells
          // at once make a queue at the one-call-a-second geocoder.
          geocoder.delayMs = 4_500
          const first = yield* Effect.all(
            [
              get("/api/v2/grade?lat=40&lon=40", "10.2.0.1"),
              get("/api/v2/grade?lat=41&lon=41", "10.2.0.2")
            ],
            { concurrency: "unbounded" }
          )
          expect(first.map((a) => a.status)).toEqual([200, 200])
          expect(first.some((a) => a.body.cell?.label === null)).toBe(true)
          for (const [i, lat] of [40, 41].entries()) {
            let labeled: Answer | undefined
            for (let n = 0; n < 60 && labeled === undefined; n++) {
              const again = yield* get(`/api/v2/grade?lat=${lat}&lon=${lat}`, "10.2.0.1")
              if (again.body.cell?.label !== null) labeled = again
              else yield* Effect.sleep("250 millis")
            }
            expect(labeled?.body.cell?.label).toBe("Testville, TL")
            // A payload served without its label is rebuilt for it: a new ETag.
            if (first[i]!.body.cell?.label === null) expect(labeled?.headers.get("etag")).not.toBe(first[i]!.headers.get("etag"))
            expect(geocoder.requests.filter((r) => r.query.lat === `${lat}.00`)).toHaveLength(1)
          }
          geocoder.delayMs = 0
        }))
    })
  })
}
