/**
 * The spells view (`/spells`) and the forecast's normals end to end over real HTTP on loopback,
 * with fake Open-Meteo and Nominatim servers, on PGlite and PostgreSQL: the payload against the
 * rules written again apart from the core (`SpellsReference`) over the fake's record and a
 * forecast shifted hot (a coming heat wave), each forecast day's normal against the day view's
 * climatology, ETag, 304, gzip, the stored payload replayed and the response index's fast path,
 * no upstream call for a held cell, and upstream failures answered as the other views answer them.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http"
import { gunzipSync } from "node:zlib"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Cell, CivilDate } from "@climate-grade/core"
import { backends, DayEdges, FakeEnv, FakeNominatim, FakeOpenMeteo, SpellsReference } from "@climate-grade/testing"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { sampleValue } from "./support/Prometheus.js"

class Upstreams extends Context.Tag("test/SpellsUpstreams")<
  Upstreams,
  { readonly weather: FakeOpenMeteo.FakeOpenMeteo; readonly geocoder: FakeNominatim.FakeNominatim }
>() {}

const HISTORY_START = "1970-01-01"

/** Cells whose forecast the fake shifts hot: a week from the day after tomorrow at 44 °C / 30 °C. */
const hot = new Set<string>()
const HOT_FROM = 2
const HOT_DAYS = 7
const heat = { tmax: 44, tmin: 30 }

const world = (backend: (typeof backends)[number]) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      weather.forecastOverride = (lat, lon, day) => {
        const today = CivilDate.todayIn(weather.now(), DayEdges.CELL_ZONE)
        return hot.has(Cell.fromCoordinates(lat, lon).key) && day >= today + HOT_FROM && day < today + HOT_FROM + HOT_DAYS
          ? heat
          : undefined
      }
      return Layer.mergeAll(
        testServerLayer({ ...FakeEnv.upstreams(weather, geocoder), HISTORY_START, TRUSTED_PROXY_HOPS: "1" }, backend.layer),
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

// biome-ignore lint/suspicious/noExplicitAny: payloads are read field by field
const json = (answer: Answer): any =>
  JSON.parse((answer.headers["content-encoding"] === "gzip" ? gunzipSync(answer.body) : answer.body).toString("utf8"))

let cellCounter = 0
/** Coordinates in a 0.25° cell no other test has touched (northern mid-latitudes: the fake's seasons). */
const freshCell = () => {
  cellCounter++
  return { lat: 30 + cellCounter * 1.5 + 0.1, lon: -120 + cellCounter * 3.25 }
}
const q = (cell: { lat: number; lon: number }) => `lat=${cell.lat.toFixed(2)}&lon=${cell.lon.toFixed(2)}`
const keyOf = (cell: { lat: number; lon: number }) => Cell.fromCoordinates(cell.lat, cell.lon).key

const todayBerlin = () => CivilDate.todayIn(Date.now(), DayEdges.CELL_ZONE)

/** The series the server sees for a cell: the fake's archive to `recordLast`, then its forecast (shifted hot where asked) to today + 15. */
const expectedSpells = (where: { lat: number; lon: number }, recordLast: number, today: number) => {
  const cell = Cell.fromCoordinates(where.lat, where.lon)
  const start = CivilDate.parse(HISTORY_START)!
  const until = today + 15
  const day = (d: number) => {
    const base = FakeOpenMeteo.weather(cell.lat, cell.lon, d)
    return d > recordLast && hot.has(cell.key) && d >= today + HOT_FROM && d < today + HOT_FROM + HOT_DAYS ? { ...base, ...heat } : base
  }
  const values = (v: "tmax" | "tmin" | "precip") => Array.from({ length: until - start + 1 }, (_, i) => day(start + i)[v])
  return SpellsReference.spells({
    start: HISTORY_START,
    recordLast: CivilDate.format(recordLast),
    today: CivilDate.format(today),
    tmax: values("tmax"),
    tmin: values("tmin"),
    precip: values("precip")
  })
}

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

/** The data answers so far by the tier that served them (`/metrics`). */
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
  describe(`spells view on ${backend.name}`, () => {
    layer(world(backend), { timeout: 180_000 })((it) => {
      const setup = Effect.all({ server: TestServer, up: Upstreams, sql: SqlClient.SqlClient })

      it.effect("a forecast shifted hot: a coming heat wave in now, and the whole payload as the rules written again make it", () =>
        Effect.gen(function* () {
          yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 30_000)
          const { server, up } = yield* setup
          const where = freshCell()
          hot.add(keyOf(where))
          const before = calls(up)
          const answer = yield* get(server.url(`/api/v2/spells?${q(where)}`))
          expect(answer.status).toBe(200)
          expect(since(up, before)).toEqual({ archive: 1, forecast: 1, geocoder: 1 })
          expect(answer.headers.etag).toMatch(/^W\/"[0-9a-f]{32}"$/)
          expect([answer.headers["cache-control"], answer.headers.vary, answer.headers["content-type"]]).toEqual([
            "max-age=0, s-maxage=10",
            "Accept-Encoding",
            "application/json"
          ])
          const body = json(answer)
          expect(Object.keys(body)).toEqual(["view", "v", "cell", "first", "last", "until", "baseline", "thresholds", "now", "top", "years", "recent"])
          expect(body).toMatchObject({ view: "spells", v: 1, first: HISTORY_START, baseline: { from: 1970, to: 1999 } })
          const today = todayBerlin()
          const last = CivilDate.parse(body.last)!
          expect(last).toBe(today - 5)
          expect(body.until).toBe(CivilDate.format(today + 15))
          const expected = expectedSpells(where, last, today)
          expect(body.thresholds).toEqual(expected.thresholds)
          for (const kind of ["heat", "cold", "dry", "wet"]) expect([kind, body.top[kind]]).toEqual([kind, expected.top[kind]])
          expect(body.now).toEqual(expected.now)
          expect(body.years).toEqual(expected.years)
          expect(body.recent).toEqual(expected.recent)
          expect({ ...body, view: undefined, v: undefined, cell: undefined }).toEqual({ ...expected, view: undefined, v: undefined, cell: undefined })
          // The coming heat wave: on the hot week (and a window's reach before it), from the forecast, the hottest here.
          const wave = body.now.find((x: { kind: string }) => x.kind === "heat")
          expect(wave).toBeDefined()
          expect(wave.forecast).toBe(true)
          expect(wave.start <= CivilDate.format(today + HOT_FROM)).toBe(true)
          expect(wave.end >= CivilDate.format(today + HOT_FROM + HOT_DAYS - 1)).toBe(true)
          expect([wave.severity, wave.rank_peak]).toEqual(["extreme", 1])
          expect(body.top.heat[0]).toEqual(wave)
          expect(body.years.at(-1).year).toBe(CivilDate.toYmd(today + 15).year)
        }))

      it.effect("normals on the forecast: each day's p10, p50 and p90 are the day view's climatology bands", () =>
        Effect.gen(function* () {
          yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 30_000)
          const { server } = yield* setup
          const where = freshCell()
          const forecast = json(yield* get(server.url(`/api/v2/forecast?${q(where)}`)))
          expect(forecast.v).toBe(2)
          expect(forecast.days.length).toBeGreaterThanOrEqual(16)
          for (const day of [forecast.days[0], forecast.days[7], forecast.days.at(-1)]) {
            expect(Object.keys(day)).toEqual(["date", "tmax", "tmin", "precip", "normal"])
            const climate = json(yield* get(server.url(`/api/v2/day?${q(where)}&date=${day.date}`))).variables
            for (const v of ["tmax", "tmin", "precip"]) {
              const { p10, p50, p90 } = climate[v].climatology
              expect([day.date, v, day.normal[v]]).toEqual([day.date, v, { p10, p50, p90 }])
              expect(day.normal[v].p50).not.toBeNull()
            }
          }
          // The bundle's forecast slice carries them too.
          const bundle = json(yield* get(server.url(`/api/v2/cell?${q(where)}`)))
          expect(bundle.forecast.data.days[0].normal).toEqual(forecast.days[0].normal)
        }))

      it.effect("a held cell costs no upstream call; the spells are not part of the /cell bundle", () =>
        Effect.gen(function* () {
          const { server, up } = yield* setup
          const where = freshCell()
          const bundle = json(yield* get(server.url(`/api/v2/cell?${q(where)}`)))
          expect(Object.keys(bundle)).toEqual(["v", "cell", "grade", "forecast", "calendar", "day"])
          const before = calls(up)
          const answer = yield* get(server.url(`/api/v2/spells?${q(where)}`))
          expect(answer.status).toBe(200)
          expect(json(answer).cell.label).toBe("Testville, TL")
          expect(since(up, before)).toEqual({ archive: 0, forecast: 0, geocoder: 0 })
        }))

      it.effect("ETag and 304, gzip, the stored payload replayed, and the response index's fast path", () =>
        Effect.gen(function* () {
          yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 30_000)
          const { server, sql } = yield* setup
          const where = freshCell()
          const url = server.url(`/api/v2/spells?${q(where)}`)
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
            sql<{ token: string }>`select token from payloads where cell_key = ${keyOf(where)} and view = 'spells'`,
            (r) => r.length > 0
          )
          expect(`W/"${rows[0]!.token}"`).toBe(etag)

          const again = yield* get(url, { "accept-encoding": "gzip" })
          expect([again.status, again.headers.etag, again.body.equals(first.body)]).toEqual([200, etag, true])
          expect(yield* delta).toEqual({ built: 0, stored: 0, index: 1, not_modified: 0 })

          const replayed = yield* get(`${url}&probe=1`, { "accept-encoding": "gzip;q=0" })
          expect([replayed.status, replayed.headers.etag, replayed.headers["content-encoding"]]).toEqual([200, etag, undefined])
          expect(replayed.body.equals(identity)).toBe(true)
          expect(yield* delta).toEqual({ built: 0, stored: 1, index: 0, not_modified: 0 })

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
          const other = yield* get(server.url(`/api/v2/spells?${q(freshCell())}`), { "if-none-match": etag })
          expect(other.status).toBe(200)
          expect(other.headers.etag).not.toBe(etag)
        }))

      it.effect("bad coordinates are 400 with a detail naming the parameter", () =>
        Effect.gen(function* () {
          const { server } = yield* setup
          for (const [path, name] of [
            ["/api/v2/spells?lon=1", /'lat' is required/],
            ["/api/v2/spells?lat=1&lon=abc", /'lon' must be a number/],
            ["/api/v2/spells?lat=91&lon=1", /'lat' must be/],
            ["/api/v2/spells?lat=1&lat=2&lon=1", /'lat' is given more than once/]
          ] as const) {
            const answer = yield* get(server.url(path))
            expect([path, answer.status]).toEqual([path, 400])
            expect(json(answer).detail).toMatch(name)
          }
        }))

      it.effect("upstream failures as the other views: 502, 404 for an empty history, 503 with Retry-After for a rate-limited forecast", () =>
        Effect.gen(function* () {
          const { up, server } = yield* setup
          up.weather.faults.archive.push({ status: 500 })
          const broken = yield* get(server.url(`/api/v2/spells?${q(freshCell())}`))
          expect(broken.status).toBe(502)
          expect(typeof json(broken).detail).toBe("string")
          const empty = freshCell()
          up.weather.empty.add(keyOf(empty))
          const none = yield* get(server.url(`/api/v2/spells?${q(empty)}`))
          expect([none.status, json(none).detail]).toEqual([404, "No weather history for this cell."])
          up.weather.faults.forecast.push({ status: 429, retryAfter: "30" })
          const limited = yield* get(server.url(`/api/v2/spells?${q(freshCell())}`))
          expect(limited.status).toBe(503)
          expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(29)
          expect(json(limited).detail).toBe("Weather source is rate-limited; try again later.")
        }))
    })
  })
}
