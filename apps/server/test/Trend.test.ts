/**
 * The trend view (`/trend`) end to end over real HTTP on loopback, with fake Open-Meteo and
 * Nominatim servers, on PGlite and PostgreSQL: the payload, ETag, 304, gzip, the stored payload
 * replayed and the response index's fast path (read from `/metrics`' cache tiers), no upstream
 * call for a held cell, a cold cell fetched as the other views fetch it, and upstream failures
 * answered as theirs are.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http"
import { gunzipSync } from "node:zlib"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Cell, CivilDate, Views } from "@climate-grade/core"
import { backends, DayEdges, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { historyStartCosting } from "./support/History.js"
import { sampleValue } from "./support/Prometheus.js"

class Upstreams extends Context.Tag("test/TrendUpstreams")<
  Upstreams,
  { readonly weather: FakeOpenMeteo.FakeOpenMeteo; readonly geocoder: FakeNominatim.FakeNominatim }
>() {}

const world = (backend: (typeof backends)[number], env: Record<string, string> = {}) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      return Layer.mergeAll(
        testServerLayer(
          { ...FakeEnv.upstreams(weather, geocoder), HISTORY_START: "1980-01-01", TRUSTED_PROXY_HOPS: "1", ...env },
          backend.layer
        ),
        backend.layer,
        Layer.succeed(Upstreams, { weather, geocoder })
      )
    })
  )

interface Answer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

/** node:http, so the raw bytes (gzip included) and every header are seen as sent. */
const get = (url: string, headers: Record<string, string> = {}) =>
  Effect.promise(
    () =>
      new Promise<Answer>((done, fail) => {
        const req = httpRequest(url, { headers: { "x-forwarded-for": "10.0.0.1", ...headers } }, (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (c: Buffer) => chunks.push(c))
          res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
        })
        req.on("error", fail)
        req.end()
      })
  )

const json = (answer: Answer): Record<string, unknown> =>
  JSON.parse((answer.headers["content-encoding"] === "gzip" ? gunzipSync(answer.body) : answer.body).toString("utf8"))

let cellCounter = 0
/** Coordinates in a 0.25° cell no other test has touched. */
const freshCell = () => {
  cellCounter++
  return { lat: -55 + cellCounter * 2.5 + 0.1, lon: -160 + cellCounter * 4.25 }
}
const q = (cell: { lat: number; lon: number }) => `lat=${cell.lat.toFixed(2)}&lon=${cell.lon.toFixed(2)}`
const keyOf = (cell: { lat: number; lon: number }) => Cell.fromCoordinates(cell.lat, cell.lon).key

const todayBerlin = () => CivilDate.todayIn(Date.now(), "Europe/Berlin")

/** Waits (bounded) for the background write of a payload. */
const eventually = <A>(read: Effect.Effect<A, unknown>, done: (a: A) => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 100; i++) {
      const value = yield* Effect.orDie(read)
      if (done(value)) return value
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.orDie(read)
  })

/** The data answers so far by the tier that served them (`/metrics`, with the test server's METRICS_TOKEN). */
const tiers = (server: TestServer["Type"]) =>
  Effect.map(Effect.promise(() => fetch(server.url("/metrics"), { headers: server.metricsHeaders }).then((r) => r.text())), (text) => {
    const value = (tier: string) => sampleValue(text, `http_cache_answers_total{tier="${tier}"}`)
    return { built: value("built"), stored: value("stored"), index: value("index"), not_modified: value("not_modified") }
  })

const calls = (up: Upstreams["Type"]) => ({
  archive: up.weather.requests.archive.length,
  forecast: up.weather.requests.forecast.length,
  geocoder: up.geocoder.requests.length
})
const since = (up: Upstreams["Type"], before: ReturnType<typeof calls>) => {
  const now = calls(up)
  return { archive: now.archive - before.archive, forecast: now.forecast - before.forecast, geocoder: now.geocoder - before.geocoder }
}

for (const backend of backends) {
  describe(`trend view on ${backend.name}`, () => {
    layer(world(backend), { timeout: 120_000 })((it) => {
      const setup = Effect.all({ server: TestServer, up: Upstreams, sql: SqlClient.SqlClient })

      it.effect("a cold cell: one archive call and one label lookup, no forecast; the record's years and periods as the rules make them", () =>
        Effect.gen(function* () {
          const { server, up } = yield* setup
          const where = freshCell()
          const before = calls(up)
          const fetchedOn = todayBerlin()
          const answer = yield* get(server.url(`/api/v2/trend?${q(where)}`))
          expect(answer.status).toBe(200)
          expect(since(up, before)).toEqual({ archive: 1, forecast: 0, geocoder: 1 })
          expect(answer.headers.etag).toMatch(/^W\/"[0-9a-f]{32}"$/)
          expect([answer.headers["cache-control"], answer.headers.vary, answer.headers["content-type"]]).toEqual([
            "max-age=0, s-maxage=10",
            "Accept-Encoding",
            "application/json"
          ])
          const body = json(answer)
          expect(Object.keys(body)).toEqual(["view", "v", "cell", "first", "last", "baseline", "years", "periods"])
          expect(body).toMatchObject({ view: "trend", v: 1, first: "1980-01-01", baseline: { from: 1980, to: 2009 } })
          // The fake's archive holds every day up to 5 days before its today.
          const last = CivilDate.parse(body.last as string)!
          expect([fetchedOn - 5, todayBerlin() - 5]).toContain(last)
          // The same record, rebuilt here from the fake's weather, gives the same payload.
          const cell = Cell.fromCoordinates(where.lat, where.lon)
          const start = CivilDate.fromYmd({ year: 1980, month: 1, day: 1 })
          const series = (v: "tmax" | "tmin" | "precip") =>
            Float64Array.from({ length: last - start + 1 }, (_, i) => FakeOpenMeteo.weather(cell.lat, cell.lon, start + i)[v])
          const expected = Views.trend({
            cell: { lat: cell.lat, lon: cell.lon, label: "Testville, TL", timezone: "Europe/Berlin" },
            history: { start, tmax: series("tmax"), tmin: series("tmin"), precip: series("precip") }
          })
          expect(body).toEqual(JSON.parse(JSON.stringify(expected)))
          const years = body.years as Array<{ year: number; days: number }>
          expect(years[0]).toMatchObject({ year: 1980, days: 366 })
          expect(years.at(-1)!.year).toBe(CivilDate.toYmd(last).year)
          const periods = body.periods as Record<string, { from: string; to: string; variables: Record<string, { of: number; rank: number }> }>
          const { month, year } = CivilDate.toYmd(last)
          expect(periods.month!.from).toBe(CivilDate.format(CivilDate.fromYmd({ year, month, day: 1 })))
          expect(periods.year!.from).toBe(`${year}-01-01`)
          expect(periods.year!.variables.tmax!.of).toBe(year - 1980 + 1)
          expect(periods.year!.variables.tmax!.rank).toBeGreaterThanOrEqual(1)
        }))

      it.effect("a held cell costs no upstream call, and the trend is not part of the /cell bundle", () =>
        Effect.gen(function* () {
          const { server, up } = yield* setup
          const where = freshCell()
          const bundle = json(yield* get(server.url(`/api/v2/cell?${q(where)}`)))
          expect(Object.keys(bundle)).toEqual(["v", "cell", "grade", "forecast", "calendar", "day"])
          const before = calls(up)
          const answer = yield* get(server.url(`/api/v2/trend?${q(where)}`))
          expect(answer.status).toBe(200)
          expect((json(answer).cell as { label: string }).label).toBe("Testville, TL")
          expect(since(up, before)).toEqual({ archive: 0, forecast: 0, geocoder: 0 })
        }))

      it.effect("ETag and 304, gzip, the stored payload replayed, and the response index's fast path", () =>
        Effect.gen(function* () {
          const { server, sql } = yield* setup
          const where = freshCell()
          const url = server.url(`/api/v2/trend?${q(where)}`)
          let t = yield* tiers(server)
          const delta = Effect.gen(function* () {
            const now = yield* tiers(server)
            const d = {
              built: now.built - t.built,
              stored: now.stored - t.stored,
              index: now.index - t.index,
              not_modified: now.not_modified - t.not_modified
            }
            t = now
            return d
          })
          const first = yield* get(url, { "accept-encoding": "gzip" })
          expect([first.status, first.headers["content-encoding"]]).toEqual([200, "gzip"])
          expect(Number(first.headers["content-length"])).toBe(first.body.length)
          const identity = gunzipSync(first.body)
          expect(identity.length).toBeGreaterThan(1024)
          expect(yield* delta).toEqual({ built: 1, stored: 0, index: 0, not_modified: 0 })
          const etag = first.headers.etag!
          const rows = yield* eventually(
            sql<{ token: string }>`select token from payloads where cell_key = ${keyOf(where)} and view = 'trend'`,
            (r) => r.length > 0
          )
          expect(`W/"${rows[0]!.token}"`).toBe(etag)

          // The same request again: the response index, before the app, the same bytes.
          const again = yield* get(url, { "accept-encoding": "gzip" })
          expect([again.status, again.headers.etag, again.body.equals(first.body)]).toEqual([200, etag, true])
          expect(yield* delta).toEqual({ built: 0, stored: 0, index: 1, not_modified: 0 })

          // Another URL for the same view (an ignored parameter): the stored payload, replayed.
          const replayed = yield* get(`${url}&probe=1`, { "accept-encoding": "gzip;q=0" })
          expect([replayed.status, replayed.headers.etag, replayed.headers["content-encoding"]]).toEqual([200, etag, undefined])
          expect(replayed.body.equals(identity)).toBe(true)
          expect(yield* delta).toEqual({ built: 0, stored: 1, index: 0, not_modified: 0 })

          // A revalidation: 304 from the plan's ETag, then from the index; no body, no content headers.
          for (const tier of ["not_modified", "index"] as const) {
            const revalidated = yield* get(`${url}&probe=2`, { "if-none-match": etag, "accept-encoding": "gzip" })
            expect(revalidated.status).toBe(304)
            expect(revalidated.body.length).toBe(0)
            expect([revalidated.headers.etag, revalidated.headers["cache-control"], revalidated.headers.vary]).toEqual([
              etag,
              "max-age=0, s-maxage=10",
              "Accept-Encoding"
            ])
            for (const absent of ["content-type", "content-encoding", "content-length"]) expect(revalidated.headers[absent]).toBeUndefined()
            expect(yield* delta).toEqual({ built: 0, stored: 0, index: 0, not_modified: 0, [tier]: 1 })
          }
          // Another cell's ETag does not match.
          const other = yield* get(server.url(`/api/v2/trend?${q(freshCell())}`), { "if-none-match": etag })
          expect(other.status).toBe(200)
          expect(other.headers.etag).not.toBe(etag)
        }))

      it.effect("bad coordinates are 400 with a detail naming the parameter", () =>
        Effect.gen(function* () {
          const { server } = yield* setup
          for (const [path, name] of [
            ["/api/v2/trend?lon=1", /'lat' is required/],
            ["/api/v2/trend?lat=1&lon=abc", /'lon' must be a number/],
            ["/api/v2/trend?lat=91&lon=1", /'lat' must be/],
            ["/api/v2/trend?lat=1&lat=2&lon=1", /'lat' is given more than once/]
          ] as const) {
            const answer = yield* get(server.url(path))
            expect([path, answer.status]).toEqual([path, 400])
            expect(json(answer)).toEqual({ detail: expect.stringMatching(name), code: "invalid-query" })
          }
        }))
    })

    layer(world(backend), { timeout: 120_000 })((it) => {
      it.effect("upstream failures as the other views: 502, 404 for an empty history, 503 with Retry-After; a client's third new cell is 429", () =>
        Effect.gen(function* () {
          const { up, server } = yield* Effect.all({ server: TestServer, up: Upstreams })
          for (const fault of [{ status: 500 } as const, "malformed" as const, "reset" as const]) {
            up.weather.faults.archive.push(fault)
            const answer = yield* get(server.url(`/api/v2/trend?${q(freshCell())}`))
            expect([fault, answer.status]).toEqual([fault, 502])
            expect(json(answer)).toEqual({ detail: expect.any(String), code: "upstream-failed" })
          }
          const empty = freshCell()
          up.weather.empty.add(keyOf(empty))
          const none = yield* get(server.url(`/api/v2/trend?${q(empty)}`))
          expect([none.status, json(none)]).toEqual([404, { detail: "No weather history for this cell.", code: "no-history" }])

          // Two new cells loading for one client: its third is refused at once; another client's is not.
          up.weather.delayMs = 2_000
          const [a, b, c] = [freshCell(), freshCell(), freshCell()]
          const mine = yield* Effect.all(
            [a, b, c].map((cell) => get(server.url(`/api/v2/trend?${q(cell)}`), { "x-forwarded-for": "10.9.0.1" })),
            { concurrency: "unbounded" }
          )
          up.weather.delayMs = 0
          expect(mine.map((m) => m.status).sort()).toEqual([200, 200, 429])
          const refused = mine.find((m) => m.status === 429)!
          expect(refused.headers["retry-after"]).toBe("5")
          expect(json(refused).detail).toBe("This client is already loading 2 new places; try again once one of them has loaded.")

          // The archive rate-limited: 503 with its Retry-After, for this view as for the others.
          up.weather.faults.archive.push({ status: 429, retryAfter: "30" })
          const limited = yield* get(server.url(`/api/v2/trend?${q(freshCell())}`))
          expect(limited.status).toBe(503)
          expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(29)
          expect(json(limited)).toEqual({ detail: "Weather source is rate-limited; try again later.", code: "rate-limited", retry_at: expect.any(String) })
          // A held cell still answers meanwhile.
          expect((yield* get(server.url(`/api/v2/trend?${q(a)}`))).status).toBe(200)
        }))
    })

    // A new cell's history costs ~370 units (historyStartCosting): room for one, not two (the whole
    // day for any client: no shares).
    layer(
      world(backend, {
        HISTORY_START: historyStartCosting(370),
        WEATHER_DAILY_UNITS: "500",
        WEATHER_CLIENT_SHARE: "100",
        WEATHER_SIGNED_IN_SHARE: "0"
      }),
      { timeout: 120_000 }
    )((it) => {
      it.effect("past the day's budget a new cell's trend is 503 with Retry-After; a held one still answers", () =>
        Effect.gen(function* () {
          // One budget day throughout: not its last 20 seconds.
          yield* DayEdges.clearOfDateChange(DayEdges.BUDGET_ZONE, 20_000)
          const { up, server } = yield* Effect.all({ server: TestServer, up: Upstreams })
          const held = freshCell()
          expect((yield* get(server.url(`/api/v2/trend?${q(held)}`))).status).toBe(200)
          const refused = yield* get(server.url(`/api/v2/trend?${q(freshCell())}`))
          expect(refused.status).toBe(503)
          expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0)
          expect(json(refused).detail).toMatch(/^Today's weather budget \(500 cost units\) is spent/)
          expect(up.weather.requests.archive).toHaveLength(1)
          expect((yield* get(server.url(`/api/v2/trend?${q(held)}`))).status).toBe(200)
        }),
        60_000
      )
    })
  })
}
