/**
 * Fair use of the upstreams over real HTTP, with fake Open-Meteo and Nominatim servers, on PGlite
 * and PostgreSQL: the daily cost-unit budget and each client's and user's share of it, the part
 * kept for signed-in users, watches paid and limited like any new cell, the per-client limit on
 * new cells (across instances sharing the database), the geocoder's turns between clients, and a
 * slow geocoder that never holds a view.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it, layer } from "@effect/vitest"
import { PasswordHasher, Sessions, UpstreamBudget, type User, Users } from "@climate-grade/core"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { backends, DayEdges, FakeEnv, FakeNominatim, FakeOpenMeteo, TestDatabase } from "@climate-grade/testing"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { appConfig, describeConfigError } from "../src/AppConfig.js"
import { historyStartCosting } from "./support/History.js"

class Upstreams extends Context.Tag("test/FairUseUpstreams")<
  Upstreams,
  { readonly weather: FakeOpenMeteo.FakeOpenMeteo; readonly geocoder: FakeNominatim.FakeNominatim; readonly env: Record<string, string> }
>() {}

const world = (backend: (typeof backends)[number], env: Record<string, string>) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      const all = {
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: historyStartCosting(370),
        TRUSTED_PROXY_HOPS: "1",
        ...env
      }
      return Layer.mergeAll(testServerLayer(all, backend.layer), backend.layer, Layer.succeed(Upstreams, { weather, geocoder, env: all }))
    })
  )

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: { readonly detail?: string; readonly code?: string; readonly retry_at?: string; readonly cell?: { readonly label: string | null }; readonly places?: ReadonlyArray<unknown> }
}

const request = (url: string, client: string, init: RequestInit = {}) =>
  Effect.promise(async (): Promise<Answer> => {
    const response = await fetch(url, { ...init, headers: { "x-forwarded-for": client, ...(init.headers as Record<string, string>) } })
    return { status: response.status, headers: response.headers, body: (await response.json()) as Answer["body"] }
  })

const get = (path: string, client = "10.0.0.1", headers: Record<string, string> = {}) =>
  Effect.flatMap(TestServer, (server) => request(server.url(path), client, { headers }))

const watch = (token: string, lat: number, lon: number, client: string) =>
  Effect.flatMap(TestServer, (server) =>
    request(server.url("/api/v2/alerts/watches"), client, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ lat, lon, kinds: ["heat"] })
    })
  )

/** A signed-in user's bearer token. */
const signedIn = (email: string) =>
  Effect.gen(function* () {
    const hasher = yield* PasswordHasher
    const user: User = yield* Effect.orDie(
      (yield* Users).create({
        email,
        hashedPassword: yield* hasher.hash("a password"),
        isActive: true,
        isSuperuser: false,
        isVerified: true,
        oauthOnly: false
      })
    )
    return (yield* (yield* Sessions).issue(user.id)).token
  })

/** Retry-After of a refusal until 00:00 UTC: the seconds left of the day, give or take the time the answer took. */
const untilMidnight = (answer: Answer) =>
  Math.abs(Number(answer.headers.get("retry-after")) - UpstreamBudget.secondsUntilNextDay(Date.now())) <= 60

const readConfig = (env: Record<string, string>) =>
  Effect.either(Effect.withConfigProvider(appConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("WEATHER_DAILY_UNITS and its shares", () => {
  it.effect("10,000 by default without an API key; unlimited with one unless set; a fifth per client, a quarter kept for signed-in users; a bad value names the variable", () =>
    Effect.gen(function* () {
      const weather = (env: Record<string, string>) =>
        Effect.map(readConfig(env), Either.match({ onLeft: describeConfigError, onRight: (c) => c.weather }))
      const units = (env: Record<string, string>) => Effect.map(weather(env), (w) => (typeof w === "string" ? w : w.dailyUnits))
      expect(yield* units({})).toBe(10_000)
      expect(yield* units({ WEATHER_API_KEY: "k" })).toBeNull()
      expect(yield* units({ WEATHER_API_KEY: "k", WEATHER_DAILY_UNITS: "250000" })).toBe(250_000)
      expect(yield* units({ WEATHER_DAILY_UNITS: "unlimited" })).toBeNull()
      expect(yield* units({ WEATHER_DAILY_UNITS: "0" })).toMatch(/^Invalid configuration: WEATHER_DAILY_UNITS: /)
      expect(yield* units({ WEATHER_DAILY_UNITS: "lots" })).toMatch(/^Invalid configuration: WEATHER_DAILY_UNITS: /)
      expect(yield* units({ COLD_CELLS_PER_CLIENT: "0" })).toMatch(/^Invalid configuration: COLD_CELLS_PER_CLIENT: /)
      const shares = (env: Record<string, string>) => Effect.map(weather(env), (w) => (typeof w === "string" ? w : w.shares))
      expect(yield* shares({})).toEqual({ client: 20, signedIn: 25 })
      expect(yield* shares({ WEATHER_CLIENT_SHARE: "12.5%", WEATHER_SIGNED_IN_SHARE: "0" })).toEqual({ client: 12.5, signedIn: 0 })
      expect(yield* shares({ WEATHER_CLIENT_SHARE: "100", WEATHER_SIGNED_IN_SHARE: " 40 % " })).toEqual({ client: 100, signedIn: 40 })
      for (const [name, value] of [
        ["WEATHER_CLIENT_SHARE", "0"],
        ["WEATHER_CLIENT_SHARE", "101"],
        ["WEATHER_CLIENT_SHARE", "a fifth"],
        ["WEATHER_SIGNED_IN_SHARE", "100"],
        ["WEATHER_SIGNED_IN_SHARE", "-5"]
      ] as const) {
        expect(yield* shares({ [name]: value })).toMatch(new RegExp(`^Invalid configuration: ${name}: Expected a percentage`))
      }
    }))
})

for (const backend of backends) {
  describe(`fair use on ${backend.name}`, () => {
    // A new cell's history costs ~370 units (historyStartCosting): room for one, not two; no shares.
    layer(world(backend, { WEATHER_DAILY_UNITS: "500", WEATHER_CLIENT_SHARE: "100", WEATHER_SIGNED_IN_SHARE: "0" }), {
      timeout: 120_000
    })((it) => {
      it.effect("past the day's budget a new cell is 503 with Retry-After until 00:00 UTC; held cells still answer", () =>
        Effect.gen(function* () {
          // One budget day throughout: not its last 20 seconds.
          yield* DayEdges.clearOfDateChange(DayEdges.BUDGET_ZONE, 20_000)
          const { weather } = yield* Upstreams
          expect((yield* get("/api/v2/grade?lat=10&lon=10")).status).toBe(200)
          // The gauge: 500 less one new cell (~370) and one forecast (1).
          const left = (yield* Metric.value(UpstreamBudget.unitsLeft)).value
          expect(left).toBeGreaterThan(100)
          expect(left).toBeLessThan(150)
          const refused = yield* get("/api/v2/grade?lat=20&lon=20")
          expect(refused.status).toBe(503)
          expect(untilMidnight(refused)).toBe(true)
          // A program tells the day's budget by its code, and when it opens by retry_at: the next
          // 00:00 UTC, not before (made from the Retry-After's whole seconds, rounded up, on the
          // answer's clock, so a busy machine may put it a few seconds after).
          expect(refused.body.code).toBe("budget-spent")
          const retryAt = Date.parse(refused.body.retry_at ?? "")
          const midnight = Math.ceil(Date.now() / 86_400_000) * 86_400_000
          expect(retryAt - midnight).toBeGreaterThanOrEqual(0)
          expect(retryAt - midnight).toBeLessThanOrEqual(10_000)
          expect(refused.body.detail).toBe(
            "Today's weather budget (500 cost units) is spent, so no new place can be loaded until 00:00 UTC; places already loaded still answer."
          )
          // The refused cell cost nothing upstream; the held one answers every view.
          expect(weather.requests.archive).toHaveLength(1)
          for (const path of ["/api/v2/day?lat=10&lon=10", "/api/v2/calendar?lat=10&lon=10", "/api/v2/cell?lat=10&lon=10"]) {
            expect((yield* get(path)).status).toBe(200)
          }
        }),
        60_000
      )
    })

    // ~370 units a cell: a client's fifth (400) pays one; the anonymous part (1,500) four; the
    // signed-in quarter (500) one more.
    layer(world(backend, { WEATHER_DAILY_UNITS: "2000" }), { timeout: 120_000 })((it) => {
      it.effect("one anonymous client cannot spend more than its share, others still load new places, and the last part of the day is kept for signed-in users", () =>
        Effect.gen(function* () {
          // One budget day throughout: not its last 20 seconds.
          yield* DayEdges.clearOfDateChange(DayEdges.BUDGET_ZONE, 20_000)
          const { geocoder, weather } = yield* Upstreams
          expect((yield* get("/api/v2/cell?lat=1&lon=1", "10.10.0.1")).status).toBe(200)
          const asked = [weather.requests.forecast.length, geocoder.requests.length]
          // The same client's next new places: 429 until 00:00 UTC, nothing asked upstream (no
          // history, and no forecast or label either: a refused place costs nothing).
          for (const lat of [2, 3, 4]) {
            const refused = yield* get(`/api/v2/cell?lat=${lat}&lon=${lat}`, "10.10.0.1")
            expect(refused.status).toBe(429)
            expect(untilMidnight(refused)).toBe(true)
            expect(refused.body.code).toBe("client-share-spent")
            expect(refused.body.detail).toBe(
              "This client's share of today's weather budget (400 of 2000 cost units) is spent, so it can load no new place until " +
                "00:00 UTC; places already loaded still answer."
            )
          }
          expect(weather.requests.archive).toHaveLength(1)
          expect([weather.requests.forecast.length, geocoder.requests.length]).toEqual(asked)
          // Its place still answers; other clients load new places (an IPv6 client by its /64).
          expect((yield* get("/api/v2/day?lat=1&lon=1", "10.10.0.1")).status).toBe(200)
          for (const [client, lat] of [["10.10.0.2", 5], ["2001:db8:1::1", 6], ["10.10.0.3", 7]] as const) {
            expect((yield* get(`/api/v2/cell?lat=${lat}&lon=${lat}`, client)).status).toBe(200)
          }
          expect((yield* get("/api/v2/cell?lat=8&lon=8", "2001:db8:1::2")).status).toBe(429)
          // Four new places (~1,480 of the 1,500 anonymous units): the fifth is kept for signed-in users.
          const kept = yield* get("/api/v2/cell?lat=9&lon=9", "10.10.0.4")
          expect(kept.status).toBe(503)
          expect(untilMidnight(kept)).toBe(true)
          expect(kept.body.detail).toBe(
            "What is left of today's weather budget is kept for signed-in users (500 of 2000 cost units), so no new place can be " +
              "loaded without signing in until 00:00 UTC; places already loaded still answer."
          )
          const token = yield* signedIn("reader@example.org")
          expect((yield* get("/api/v2/cell?lat=9&lon=9", "10.10.0.4", { authorization: `Bearer ${token}` })).status).toBe(200)
          // And then the day is spent for everyone.
          const another = yield* signedIn("another@example.org")
          const spent = yield* get("/api/v2/cell?lat=11&lon=11", "10.10.0.5", { authorization: `Bearer ${another}` })
          expect([spent.status, spent.body.detail]).toEqual([
            503,
            "Today's weather budget (2000 cost units) is spent, so no new place can be loaded until 00:00 UTC; places already loaded still answer."
          ])
          expect(weather.requests.archive).toHaveLength(5)
        }),
        60_000
      )
    })

    // A tenth of the day per client and user: two new places each.
    layer(world(backend, { WEATHER_DAILY_UNITS: "8000", WEATHER_CLIENT_SHARE: "10" }), { timeout: 120_000 })((it) => {
      it.effect("a watch of a new place loads it first, paid from its user's share and in its client's slots; refused, no watch is made", () =>
        Effect.gen(function* () {
          // One budget day throughout: not its last 20 seconds.
          yield* DayEdges.clearOfDateChange(DayEdges.BUDGET_ZONE, 20_000)
          const { weather } = yield* Upstreams
          // Three new places watched at once from one address: two load, the third is refused at once.
          const token = yield* signedIn("watcher@example.org")
          weather.delayMs = 2_000
          const atOnce = yield* Effect.all(
            [20, 21, 22].map((lat) => watch(token, lat, lat, "10.20.0.1")),
            { concurrency: "unbounded" }
          )
          weather.delayMs = 0
          expect(atOnce.map((a) => a.status).sort()).toEqual([201, 201, 429])
          const limited = atOnce.find((a) => a.status === 429)!
          expect([limited.headers.get("retry-after"), limited.body.detail]).toEqual([
            "5",
            "This client is already loading 2 new places; try again once one of them has loaded."
          ])
          expect(weather.requests.archive).toHaveLength(2)

          // The user's share (800: two places) is spent, from whatever address it asks.
          const refused = yield* watch(token, 23, 23, "10.20.0.2")
          expect(refused.status).toBe(429)
          expect(untilMidnight(refused)).toBe(true)
          expect(refused.body.detail).toBe(
            "Your share of today's weather budget (800 of 8000 cost units) is spent, so you can load no new place until " +
              "00:00 UTC; places already loaded still answer."
          )
          // Watching a place already held costs nothing and is not refused.
          expect((yield* get("/api/v2/cell?lat=30&lon=30", "10.20.0.3")).status).toBe(200)
          expect((yield* watch(token, 30, 30, "10.20.0.2")).status).toBe(201)
          expect(weather.requests.archive).toHaveLength(3)
          // Only the accepted ones are watches.
          const server = yield* TestServer
          const list = yield* request(server.url("/api/v2/alerts/watches"), "10.20.0.2", { headers: { authorization: `Bearer ${token}` } })
          const cells = (list.body as unknown as { watches: Array<{ cell: string }> }).watches.map((w) => w.cell).sort()
          expect(cells).toHaveLength(3)
          expect(cells).toContain("30.00,30.00")
          expect(cells).not.toContain("23.00,23.00")
        }),
        60_000
      )
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

      it.effect("prefetch=1 of cells not held costs the client a token: past its burst every prefetch is 429 with Retry-After, held or not; another client is not held back", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const status = (lat: number, client: string) =>
            Effect.promise(async () => {
              const response = await fetch(server.url(`/api/v2/cell?lat=${lat}&lon=-${lat}&prefetch=1`), { headers: { "x-forwarded-for": client } })
              return { status: response.status, retryAfter: response.headers.get("retry-after"), text: await response.text() }
            })
          // Held cells, loaded by someone else: one prefetched before the scanner runs out, one after.
          expect((yield* get("/api/v2/cell?lat=1&lon=-1", "10.1.5.1")).status).toBe(200)
          expect((yield* get("/api/v2/cell?lat=60&lon=-60", "10.1.5.2")).status).toBe(200)
          expect((yield* status(1, "10.1.6.1")).status).toBe(200)
          // The scanner's misses: its burst of 204s, then 429.
          const misses: Array<number> = []
          for (let lat = 2; lat < 2 + 45; lat++) misses.push((yield* status(lat, "10.1.6.1")).status)
          expect(misses.filter((s) => s === 204).length).toBeGreaterThanOrEqual(40)
          expect(misses.filter((s) => s === 204).length).toBeLessThanOrEqual(42)
          expect(misses.slice(-3)).toEqual([429, 429, 429])
          // Refused, a held cell's prefetch says nothing either; the answer says when to come back.
          const held = yield* status(60, "10.1.6.1")
          expect(held.status).toBe(429)
          expect(Number(held.retryAfter)).toBeGreaterThanOrEqual(1)
          expect(JSON.parse(held.text).detail).toMatch(/^This client has asked for too many places not yet loaded with prefetch=1; try again in \d+ s\.$/)
          expect((yield* status(50, "10.1.7.1")).status).toBe(204)
        }))

      it.effect("instances on one database share a client's new-cell slots: two loading on one, the third on the other is 429", () =>
        Effect.gen(function* () {
          const { env, weather } = yield* Upstreams
          const first = yield* TestServer
          // The second instance: its own pool on a PostgreSQL server, the same client on PGlite (one process).
          const url = Context.get(yield* Effect.context<TestDatabase>(), TestDatabase).url
          const shared = yield* Effect.context<SqlClient.SqlClient>()
          const database = Option.match(url, {
            onNone: () => Layer.succeedContext(shared),
            onSome: (u) => PgClient.layer({ url: Redacted.make(u), maxConnections: 8 }).pipe(Layer.orDie)
          })
          const second = Context.get(yield* Layer.build(testServerLayer(env, database)), TestServer)
          weather.delayMs = 3_000
          const loading = yield* Effect.fork(
            Effect.all(
              [40, 41].map((lat) => request(first.url(`/api/v2/cell?lat=${lat}&lon=${lat}`), "10.30.0.1")),
              { concurrency: "unbounded" }
            )
          )
          yield* Effect.promise(async () => {
            while (weather.requests.archive.filter((r) => ["40.00", "41.00"].includes(r.query.latitude ?? "")).length < 2) {
              await new Promise((resolve) => setTimeout(resolve, 20))
            }
          })
          const refused = yield* request(second.url("/api/v2/cell?lat=42&lon=42"), "10.30.0.1")
          expect([refused.status, refused.headers.get("retry-after")]).toEqual([429, "5"])
          // Another client is not held back on either instance.
          expect((yield* request(second.url("/api/v2/cell?lat=43&lon=43"), "10.30.0.2")).status).toBe(200)
          expect((yield* Fiber.join(loading)).map((a) => a.status)).toEqual([200, 200])
          weather.delayMs = 0
          // Loaded: the slots are free, on the other instance too.
          expect((yield* request(second.url("/api/v2/cell?lat=42&lon=42"), "10.30.0.1")).status).toBe(200)
        }).pipe(Effect.scoped))

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
          // Slower than the view's wait (2 s), within the geocoder's timeout (5 s) with room for a
          // loaded machine: two new cells at once make a queue at the one-call-a-second geocoder.
          geocoder.delayMs = 3_500
          const first = yield* Effect.all(
            [
              get("/api/v2/grade?lat=50&lon=50", "10.2.0.1"),
              get("/api/v2/grade?lat=51&lon=51", "10.2.0.2")
            ],
            { concurrency: "unbounded" }
          )
          expect(first.map((a) => a.status)).toEqual([200, 200])
          expect(first.some((a) => a.body.cell?.label === null)).toBe(true)
          for (const [i, lat] of [50, 51].entries()) {
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
