/**
 * The data API end to end over real HTTP on loopback, with fake Open-Meteo and Nominatim
 * servers, on PGlite and PostgreSQL.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http"
import { gunzipSync } from "node:zlib"
import { SqlClient } from "@effect/sql"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, layer } from "@effect/vitest"
import { CivilDate } from "@climate-grade/core"
import { backends, DayEdges, FakeEnv, FakeNominatim, FakeOpenMeteo, TestDatabase } from "@climate-grade/testing"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

class Upstreams extends Context.Tag("test/Upstreams")<
  Upstreams,
  { readonly weather: FakeOpenMeteo.FakeOpenMeteo; readonly geocoder: FakeNominatim.FakeNominatim; readonly env: Record<string, string> }
>() {}

const world = (backend: (typeof backends)[number]) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      const env = {
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: "1980-01-01"
      }
      // backend.layer appears twice; a layer is built once per build, so this is one database.
      return Layer.mergeAll(
        testServerLayer(env, backend.layer),
        backend.layer,
        Layer.succeed(Upstreams, { weather, geocoder, env })
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
        const req = httpRequest(url, { headers }, (res) => {
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
/** A cell no other test has touched: lat/lon that snap to a fresh 0.25° cell. */
const freshCell = () => {
  cellCounter++
  return { lat: (-60 + ((cellCounter * 7) % 120) + 0.1).toFixed(2), lon: (-170 + cellCounter * 3.25).toFixed(2) }
}
const q = (cell: { lat: string; lon: string }, extra = "") => `lat=${cell.lat}&lon=${cell.lon}${extra}`

/** Payloads are written in the background after the answer; wait (bounded) for the write to land. */
const eventually = <A>(read: Effect.Effect<A, unknown>, done: (a: A) => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 100; i++) {
      const value = yield* Effect.orDie(read)
      if (done(value)) return value
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
    }
    return yield* Effect.orDie(read)
  })

/** The cell key of a point, as the service and the fakes see it. */
const keyOf = (cell: { lat: string; lon: string }) =>
  `${(Math.round(Number(cell.lat) * 4) / 4).toFixed(2)},${(Math.round(Number(cell.lon) * 4) / 4).toFixed(2)}`

const todayBerlin = () => CivilDate.todayIn(Date.now(), "Europe/Berlin")

for (const backend of backends) {
  describe(`data API on ${backend.name}`, () => {
    layer(world(backend), { timeout: 120_000 })((it) => {
      const setup = Effect.all({ server: TestServer, up: Upstreams, sql: SqlClient.SqlClient })

      it.effect("grade: today's values graded; weak ETag, max-age=0 with s-maxage, Vary; a cold cell costs one call of each kind", () =>
        Effect.gen(function* () {
          // Today is the fake's Berlin date, read before and after the requests: the same throughout.
          yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 15_000)
          const { server, up } = yield* setup
          const cell = freshCell()
          const before = { a: up.weather.requests.archive.length, f: up.weather.requests.forecast.length, g: up.geocoder.requests.length }
          const answer = yield* get(server.url(`/api/v2/grade?${q(cell)}`))
          expect(answer.status).toBe(200)
          expect(answer.headers.etag).toMatch(/^W\/"[0-9a-f]{32}"$/)
          expect(answer.headers["cache-control"]).toBe("max-age=0, s-maxage=10")
          expect(answer.headers.vary).toBe("Accept-Encoding")
          expect(answer.headers["content-type"]).toBe("application/json")
          const body = json(answer)
          expect(body).toMatchObject({
            view: "grade",
            v: 1,
            cell: { lat: Number(cell.lat) === 0 ? 0 : expect.any(Number), lon: expect.any(Number), label: "Testville, TL", timezone: "Europe/Berlin" },
            date: CivilDate.format(todayBerlin()),
            issued: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/)
          })
          const variables = body.variables as Record<string, Record<string, unknown>>
          expect(Object.keys(variables)).toEqual(["tmax", "tmin", "precip"])
          expect(variables.tmax).toEqual({
            value: expect.any(Number),
            unit: "°C",
            percentile: expect.any(Number),
            label: expect.any(String),
            n: expect.any(Number)
          })
          expect(variables.precip!.unit).toBe("mm")
          expect(up.weather.requests.archive.length - before.a).toBe(1)
          expect(up.weather.requests.forecast.length - before.f).toBe(1)
          expect(up.geocoder.requests.length - before.g).toBe(1)
          expect(up.weather.requests.archive.at(-1)!.query.start_date).toBe("1980-01-01")
          // Warm: the same cell again costs nothing upstream, on every view.
          for (const route of ["grade", "forecast", "calendar", "day", "cell"]) yield* get(server.url(`/api/v2/${route}?${q(cell)}`))
          expect(up.weather.requests.archive.length - before.a).toBe(1)
          expect(up.weather.requests.forecast.length - before.f).toBe(1)
          expect(up.geocoder.requests.length - before.g).toBe(1)
        }))

      it.effect("a forecast that never answers is 504 after its 10 s timeout", () =>
        Effect.gen(function* () {
          const { server, up } = yield* setup
          const cell = freshCell()
          yield* get(server.url(`/api/v2/calendar?${q(cell)}`))
          up.weather.faults.forecast.push("hang")
          const answer = yield* get(server.url(`/api/v2/grade?${q(cell)}`))
          expect(answer.status).toBe(504)
          expect(json(answer)).toEqual({ detail: "The forecast did not answer in time.", code: "upstream-timeout" })
        }), 30_000)

      it.effect("If-None-Match: weak comparison over lists with spaces and tabs, '*', and nothing for malformed values", () =>
        Effect.gen(function* () {
          // One forecast throughout: its days start at the cell's today.
          yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 15_000)
          const { server } = yield* setup
          const cell = freshCell()
          const url = server.url(`/api/v2/forecast?${q(cell)}`)
          const first = yield* get(url)
          const etag = first.headers.etag!
          const opaque = etag.slice(2)
          // Each vector twice at a URL of its own (an ignored extra parameter): first answered by
          // the app, then by the response index in front of it.
          let probe = 0
          const twice = (header: string, extra: Record<string, string> = {}) =>
            Effect.gen(function* () {
              const probed = `${url}&probe=${++probe}`
              return [yield* get(probed, { "if-none-match": header, ...extra }), yield* get(probed, { "if-none-match": header, ...extra })]
            })
          for (const header of [etag, opaque, `"nope", ${etag}`, `"a",\t${etag} , "b"`, `\t${etag}\t`, "*"]) {
            for (const answer of yield* twice(header, { "accept-encoding": "gzip" })) {
              expect([header, answer.status]).toEqual([header, 304])
              expect(answer.body.length).toBe(0)
              expect(answer.headers.etag).toBe(etag)
              expect(answer.headers["cache-control"]).toBe("max-age=0, s-maxage=10")
              expect(answer.headers.vary).toBe("Accept-Encoding")
              for (const absent of ["content-type", "content-encoding", "content-length"]) expect(answer.headers[absent]).toBeUndefined()
            }
          }
          for (const header of [opaque.slice(1, -1), `W/${opaque.slice(1, -1)}`, `"other"`, `${etag} junk`, ""]) {
            for (const answer of yield* twice(header)) {
              expect([header, answer.status, answer.headers.etag]).toEqual([header, 200, etag])
            }
          }
        }))

      it.effect("gzip when Accept-Encoding admits it, identity otherwise; the same bytes either way", () =>
        Effect.gen(function* () {
          const { server } = yield* setup
          const cell = freshCell()
          const url = server.url(`/api/v2/calendar?${q(cell)}`)
          const identity = yield* get(url)
          expect(identity.headers["content-encoding"]).toBeUndefined()
          expect(identity.body.length).toBeGreaterThan(1024)
          // Each header twice at a URL of its own: first answered by the app, then by the response index.
          let probe = 0
          const twice = (header: string) =>
            Effect.gen(function* () {
              const probed = `${url}&probe=${++probe}`
              return [yield* get(probed, { "accept-encoding": header }), yield* get(probed, { "accept-encoding": header })]
            })
          for (const header of ["gzip", "x-gzip", "deflate, gzip;q=0.5", "*", "GZIP", "gzip;q=0.001", "identity;q=0, gzip"]) {
            for (const answer of yield* twice(header)) {
              expect([header, answer.headers["content-encoding"]]).toEqual([header, "gzip"])
              expect(gunzipSync(answer.body).equals(identity.body)).toBe(true)
              expect(Number(answer.headers["content-length"])).toBe(answer.body.length)
              expect(answer.headers.vary).toBe("Accept-Encoding")
            }
          }
          for (const header of ["gzip;q=0", "identity", "deflate", "*;q=0", "x-gzip;q=0, *", "gzip;q=0, *", "identity;q=0"]) {
            for (const answer of yield* twice(header)) {
              expect([header, answer.headers["content-encoding"]]).toEqual([header, undefined])
              expect(answer.body.equals(identity.body)).toBe(true)
            }
          }
          // Under 1024 bytes nothing is compressed.
          const small = yield* get(server.url("/api/v2/health"), { "accept-encoding": "gzip" })
          expect(small.headers["content-encoding"]).toBeUndefined()
        }))

      it.effect("payloads are stored and replayed while their token holds", () =>
        Effect.gen(function* () {
          // One day view throughout: by default the cell's today.
          yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 15_000)
          const { server, sql } = yield* setup
          const cell = freshCell()
          const first = yield* get(server.url(`/api/v2/day?${q(cell)}`), { "accept-encoding": "gzip" })
          const rows = yield* eventually(sql<{ view: string }>`select view from payloads where cell_key = ${keyOf(cell)}`, (r) => r.length > 0)
          expect(rows.map((r) => r.view)).toContain("day")
          const again = yield* get(server.url(`/api/v2/day?${q(cell)}`), { "accept-encoding": "gzip" })
          expect(again.headers.etag).toBe(first.headers.etag)
          expect(again.body.equals(first.body)).toBe(true)
        }))

      it.effect("forecast: every day from today to the last forecast day", () =>
        Effect.gen(function* () {
          // Today is the fake's Berlin date, read before and after the requests: the same throughout.
          yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 15_000)
          const { server } = yield* setup
          const body = json(yield* get(server.url(`/api/v2/forecast?${q(freshCell())}`)))
          const days = body.days as Array<{ date: string; tmax: { unit: string } }>
          expect(days[0]!.date).toBe(CivilDate.format(todayBerlin()))
          expect(days.at(-1)!.date).toBe(CivilDate.format(todayBerlin() + 15))
          expect(days).toHaveLength(16)
          expect(days[0]!.tmax.unit).toBe("°C")
        }))

      it.effect("calendar: the range clamp in its order, and the series", () =>
        Effect.gen(function* () {
          // Today is the fake's Berlin date, read before and after the requests: the same throughout.
          yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 15_000)
          const { server } = yield* setup
          const cell = freshCell()
          const end = CivilDate.format(todayBerlin() - 5)
          const calendar = (extra: string) => Effect.map(get(server.url(`/api/v2/calendar?${q(cell, extra)}`)), json)
          const dflt = yield* calendar("")
          expect(dflt.end).toBe(end)
          expect(dflt.start).toBe(CivilDate.format(CivilDate.addMonths(todayBerlin() - 5, -12) + 1))
          const dates = dflt.dates as Array<string>
          expect(dates[0]).toBe(dflt.start)
          expect(dates.at(-1)).toBe(end)
          const series = dflt.series as Record<string, { values: Array<number | null>; percentiles: Array<number | null> }>
          expect(series.tmax!.values).toHaveLength(dates.length)
          expect(series.precip!.percentiles).toHaveLength(dates.length)
          expect(dflt.view).toBe("calendar")
          expect((yield* calendar("&start=2020-03-01&end=2020-02-01")).start).toBe("2020-02-01")
          expect((yield* calendar("&start=1900-01-01&end=1981-01-31")).start).toBe("1980-01-01")
          const capped = yield* calendar("&start=1990-01-01&end=2000-12-31")
          expect([capped.start, capped.end]).toEqual(["1999-01-01", "2000-12-31"])
          expect((yield* calendar("&end=2024-03-31&months=1")).start).toBe("2024-03-01")
          // Every month count has a meaning: 0 is the end day alone, more than 24 is capped.
          expect([(yield* calendar("&months=0")).start, (yield* calendar("&months=0")).end]).toEqual([end, end])
          expect((yield* calendar("&end=2024-03-31&months=36")).start).toBe("2022-04-01")
          expect((yield* calendar("&end=2024-02-29&months=12")).start).toBe("2023-03-01")
        }))

      it.effect("day: history, forecast, climatology alone; dates outside the range are 400", () =>
        Effect.gen(function* () {
          // Today is the fake's Berlin date, read before and after the requests: the same throughout.
          yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 15_000)
          const { server, up } = yield* setup
          const cell = freshCell()
          const day = (extra: string) => get(server.url(`/api/v2/day?${q(cell, extra)}`))
          const today = json(yield* day(""))
          expect(today).toMatchObject({ view: "day", date: CivilDate.format(todayBerlin()), source: "forecast" })
          const variables = today.variables as Record<string, Record<string, unknown>>
          expect(variables.tmax).toMatchObject({ unit: "°C", climatology: { n: expect.any(Number), p50: expect.any(Number) } })
          expect((variables.tmax!.climatology as { min: { date: string } }).min.date).toMatch(/^\d{4}-\d{2}-\d{2}$/)
          expect(json(yield* day("&date=2001-07-04"))).toMatchObject({ date: "2001-07-04", source: "history" })
          const last = CivilDate.format(todayBerlin() + 15)
          expect((yield* day(`&date=${last}`)).status).toBe(200)
          for (const bad of [CivilDate.format(todayBerlin() + 16), "1979-12-31"]) {
            const answer = yield* day(`&date=${bad}`)
            expect(answer.status).toBe(400)
            expect(json(answer).detail).toMatch(/'date' must be between 1980-01-01 and/)
          }
          // A cold cell whose forecast fails: the day view is climatology alone.
          const other = freshCell()
          up.weather.faults.forecast.push({ status: 500 })
          const alone = yield* get(server.url(`/api/v2/day?${q(other)}`))
          expect(alone.status).toBe(200)
          const body = json(alone)
          expect(body.source).toBe("none")
          expect((body.variables as Record<string, Record<string, unknown>>).tmax).toMatchObject({
            value: null,
            percentile: null,
            climatology: { p50: expect.any(Number) }
          })
        }))

      it.effect("bad query values are 400 with a detail naming the parameter, on every route", () =>
        Effect.gen(function* () {
          const { server } = yield* setup
          const cases: ReadonlyArray<[string, RegExp]> = [
            ["/api/v2/grade?lon=1", /'lat'/],
            ["/api/v2/forecast?lat=1&lon=abc", /'lon'/],
            ["/api/v2/day?lat=91&lon=1", /'lat'/],
            ["/api/v2/cell?lat=1&lon=181", /'lon'/],
            ["/api/v2/calendar?lat=1&lon=1&start=2024-02-30", /'start'/],
            ["/api/v2/calendar?lat=1&lon=1&end=2024-1-5", /'end'/],
            ["/api/v2/calendar?lat=1&lon=1&months=-1", /'months'/],
            ["/api/v2/calendar?lat=1&lon=1&months=1.5", /'months'/],
            ["/api/v2/grade?lat=1&lat=2&lon=1", /'lat' is given more than once/],
            ["/api/v2/calendar?lat=1&lon=1&start=2020-01-01&start=2020-02-01", /'start' is given more than once/],
            ["/api/v2/cell?lat=1&lon=1&prefetch=1&prefetch=1", /'prefetch' is given more than once/],
            ["/api/v2/day?lat=1&lon=1&date=2024-01-05T00:00:00Z", /'date'/],
            ["/api/v2/cell?lat=1&lon=1&prefetch=yes", /'prefetch'/]
          ]
          for (const [path, names] of cases) {
            const answer = yield* get(server.url(path))
            expect([path, answer.status]).toEqual([path, 400])
            expect(json(answer)).toEqual({ detail: expect.stringMatching(names), code: "invalid-query" })
          }
        }))

      it.effect("a calendar without a place label is served but not stored", () =>
        Effect.gen(function* () {
          const { server, sql, up } = yield* setup
          const cell = freshCell()
          up.geocoder.failing.add(keyOf(cell))
          const answer = yield* get(server.url(`/api/v2/calendar?${q(cell)}`))
          expect(answer.status).toBe(200)
          expect((json(answer).cell as { label: unknown }).label).toBeNull()
          const key = keyOf(cell)
          // Give a (wrong) background write every chance to land before checking there is none.
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 200)))
          expect(yield* sql`select view from payloads where cell_key = ${key} and view = 'calendar'`).toEqual([])
          // Labeled on the next request, then stored.
          up.geocoder.failing.delete(keyOf(cell))
          yield* get(server.url(`/api/v2/calendar?${q(cell)}`))
          const stored = yield* eventually(sql`select view from payloads where cell_key = ${key} and view = 'calendar'`, (r) => r.length > 0)
          expect(stored).toHaveLength(1)
        }))

      it.effect("a label that arrives after the answer: the next answers carry it with new ETags, stored, with no new history fetch", () =>
        Effect.gen(function* () {
          // One grade throughout, the cell's today's: the labeled answer grades the same day as the unlabeled one.
          yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 30_000)
          const { server, sql, up } = yield* setup
          const [blocker, late] = [freshCell(), freshCell()]
          // Both cells' weather held first, unlabeled (their lookups fail).
          for (const cell of [blocker, late]) {
            up.geocoder.failing.add(keyOf(cell))
            const first = yield* get(server.url(`/api/v2/grade?${q(cell)}`))
            expect(first.status).toBe(200)
            expect((json(first).cell as { label: unknown }).label).toBeNull()
          }
          const archive = up.weather.requests.archive.length
          const lookups = () => up.geocoder.requests.filter((r) => r.path.startsWith("/reverse")).length
          for (const cell of [blocker, late]) up.geocoder.failing.delete(keyOf(cell))
          up.geocoder.delayMs = 4_000
          try {
            // One lookup under way (the blocker's), so the late cell's queues behind it and its
            // answer does not wait for it: served without a label, the lookup going on.
            const before = lookups()
            const blocked = Effect.runPromise(Effect.orDie(get(server.url(`/api/v2/grade?${q(blocker)}`))))
            while (lookups() === before) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
            const unlabeled = yield* get(server.url(`/api/v2/grade?${q(late)}`))
            expect((json(unlabeled).cell as { label: unknown }).label).toBeNull()
            const unlabeledCard = yield* get(server.url(`/api/v2/card.png?${q(late)}`))
            yield* Effect.promise(() => blocked)
            // The label arrives in the background; the next answer carries it.
            let labeled = unlabeled
            for (let i = 0; i < 40 && (json(labeled).cell as { label: unknown }).label === null; i++) {
              yield* Effect.promise(() => new Promise((r) => setTimeout(r, 250)))
              labeled = yield* get(server.url(`/api/v2/grade?${q(late)}`))
            }
            expect((json(labeled).cell as { label: unknown }).label).toBe("Testville, TL")
            expect(labeled.headers.etag).not.toBe(unlabeled.headers.etag)
            expect(json(labeled).variables).toEqual(json(unlabeled).variables)
            // The held grade a shared link's card is drawn from names the place too.
            const labeledCard = yield* get(server.url(`/api/v2/card.png?${q(late)}`))
            expect([unlabeledCard.status, labeledCard.status]).toEqual([200, 200])
            expect(labeledCard.headers.etag).not.toBe(unlabeledCard.headers.etag)
            const calendar = yield* get(server.url(`/api/v2/calendar?${q(late)}`))
            expect((json(calendar).cell as { label: unknown }).label).toBe("Testville, TL")
            const stored = yield* eventually(
              sql<{ json: Uint8Array }>`select json from payloads where cell_key = ${keyOf(late)} and view = 'calendar'`,
              (r) => r.length > 0
            )
            expect((JSON.parse(Buffer.from(stored[0]!.json).toString("utf8")) as { cell: { label: unknown } }).cell.label).toBe("Testville, TL")
            // Built again from the history held: the archive was not asked again.
            expect(up.weather.requests.archive.length).toBe(archive)
          } finally {
            up.geocoder.delayMs = 0
          }
        }),
        // Up to half a minute waiting out the cell's midnight, then the test.
        60_000
      )

      it.effect("bundle: four slices, each with the ETag its own endpoint sends; its own ETag and 304", () =>
        Effect.gen(function* () {
          // One today throughout: the grade, forecast and day slices are the cell's today's.
          yield* DayEdges.clearOfDateChange(DayEdges.CELL_ZONE, 15_000)
          const { server } = yield* setup
          const cell = freshCell()
          const answer = yield* get(server.url(`/api/v2/cell?${q(cell)}`), { "accept-encoding": "gzip" })
          expect(answer.status).toBe(200)
          expect(answer.headers["content-encoding"]).toBe("gzip")
          const body = json(answer) as Record<string, { etag: string; data: Record<string, unknown> }> & { v: number; cell: unknown }
          expect(Object.keys(body)).toEqual(["v", "cell", "grade", "forecast", "calendar", "day"])
          expect(body.cell).toMatchObject({ label: "Testville, TL", timezone: "Europe/Berlin" })
          const endpoints = {
            grade: `/api/v2/grade?${q(cell)}`,
            forecast: `/api/v2/forecast?${q(cell)}`,
            calendar: `/api/v2/calendar?${q(cell, "&months=24")}`,
            day: `/api/v2/day?${q(cell)}`
          }
          for (const [slice, path] of Object.entries(endpoints)) {
            const own = yield* get(server.url(path))
            expect([slice, own.headers.etag]).toEqual([slice, body[slice]!.etag])
            expect(json(own)).toEqual(body[slice]!.data)
            expect((yield* get(server.url(path), { "if-none-match": body[slice]!.etag })).status).toBe(304)
          }
          const bundleEtag = answer.headers.etag!
          expect(Object.values(endpoints).length).toBe(4)
          expect(bundleEtag).not.toBe(body.grade!.etag)
          const revalidated = yield* get(server.url(`/api/v2/cell?${q(cell)}`), { "if-none-match": bundleEtag })
          expect(revalidated.status).toBe(304)
          expect(revalidated.body.length).toBe(0)
        }))

      it.effect("prefetch=1: 204 for a cold cell; else calendar and the record's last day, no weather call", () =>
        Effect.gen(function* () {
          const { server, up } = yield* setup
          const count = () => up.weather.requests.archive.length + up.weather.requests.forecast.length
          const cold = freshCell()
          const before = count()
          const geocodes = up.geocoder.requests.length
          const none = yield* get(server.url(`/api/v2/cell?${q(cold, "&prefetch=1")}`))
          expect(none.status).toBe(204)
          expect(none.body.length).toBe(0)
          expect([none.headers["cache-control"], none.headers.vary]).toEqual(["no-cache", "Accept-Encoding"])
          expect(none.body.length).toBe(0)
          expect(count()).toBe(before)
          expect(up.geocoder.requests.length).toBe(geocodes)

          // History held but never labeled (the lookup failed): one geocoder call, then none.
          const warm = freshCell()
          up.geocoder.failing.add(keyOf(warm))
          // The record ends 5 days before the fake's today when the history is fetched; a run
          // across Berlin's midnight sees that day from either side of it.
          const fetchedOn = todayBerlin()
          yield* get(server.url(`/api/v2/calendar?${q(warm)}`))
          up.geocoder.failing.delete(keyOf(warm))
          const calls = count()
          const geocodesBefore = up.geocoder.requests.length
          const answer = yield* get(server.url(`/api/v2/cell?${q(warm, "&prefetch=1")}`))
          expect(answer.status).toBe(200)
          const body = json(answer) as Record<string, { etag: string; data: Record<string, unknown> } | null>
          expect(body.grade).toBeNull()
          expect(body.forecast).toBeNull()
          const lastDay = body.day!.data.date as string
          expect([fetchedOn - 5, todayBerlin() - 5].map(CivilDate.format)).toContain(lastDay)
          expect(body.day!.data.source).toBe("history")
          expect(up.geocoder.requests.length - geocodesBefore).toBe(1)
          yield* get(server.url(`/api/v2/cell?${q(warm, "&prefetch=1")}`))
          expect(up.geocoder.requests.length - geocodesBefore).toBe(1)
          expect(count()).toBe(calls)
          for (const [slice, path] of [
            ["calendar", `/api/v2/calendar?${q(warm, "&months=24")}`],
            ["day", `/api/v2/day?${q(warm, `&date=${lastDay}`)}`]
          ] as const) {
            expect((yield* get(server.url(path), { "if-none-match": body[slice]!.etag })).status).toBe(304)
          }
        }))

      it.effect("ten concurrent bundles for a cold cell: one archive, one forecast, one geocoder call", () =>
        Effect.gen(function* () {
          const { server, up } = yield* setup
          const cell = freshCell()
          const before = { a: up.weather.requests.archive.length, f: up.weather.requests.forecast.length, g: up.geocoder.requests.length }
          up.weather.delayMs = 50
          const answers = yield* Effect.all(
            Array.from({ length: 10 }, () => get(server.url(`/api/v2/cell?${q(cell)}`))),
            { concurrency: "unbounded" }
          )
          up.weather.delayMs = 0
          expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 10 }, () => 200))
          expect(new Set(answers.map((a) => a.headers.etag)).size).toBe(1)
          expect(up.weather.requests.archive.length - before.a).toBe(1)
          expect(up.weather.requests.forecast.length - before.f).toBe(1)
          expect(up.geocoder.requests.length - before.g).toBe(1)
        }))

      it.effect.skipIf(backend.name !== "postgres")("two server processes on one PostgreSQL fetch a cold cell's history once", () =>
        Effect.scoped(Effect.gen(function* () {
          const { server, up } = yield* setup
          const url = Option.getOrThrow((yield* TestDatabase).url)
          // A second service on the same database and upstreams: another process, as far as the
          // database and the upstreams can tell (its own pool, caches and in-flight calls).
          const second = yield* Layer.build(
            testServerLayer(up.env, PgClient.layer({ url: Redacted.make(url), maxConnections: 8 }).pipe(Layer.orDie))
          )
          const other = Context.get(second, TestServer)
          const cell = freshCell()
          const before = up.weather.requests.archive.length
          up.weather.delayMs = 100
          const answers = yield* Effect.all(
            [server, other, server, other].map((s) => get(s.url(`/api/v2/calendar?${q(cell)}`))),
            { concurrency: "unbounded" }
          )
          up.weather.delayMs = 0
          expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200])
          expect(up.weather.requests.archive.length - before).toBe(1)
        })))
    })
  })
}

/** Upstream failures, on a server of their own: a rate limit makes the whole process wait. */
for (const backend of backends) {
  describe(`data API upstream failures on ${backend.name}`, () => {
    layer(world(backend), { timeout: 120_000 })((it) => {
      it.effect("502 for other failures, 404 for an empty history; rate limits are 503 with Retry-After on all five routes, and wait", () =>
        Effect.gen(function* () {
          const { server, up } = yield* Effect.all({ server: TestServer, up: Upstreams })
          for (const fault of [{ status: 500 } as const, "malformed" as const, { status: 400, reason: "bad" } as const, "reset" as const]) {
            up.weather.faults.archive.push(fault)
            const answer = yield* get(server.url(`/api/v2/calendar?${q(freshCell())}`))
            expect([fault, answer.status]).toEqual([fault, 502])
            expect(typeof json(answer).detail).toBe("string")
          }
          const empty = freshCell()
          up.weather.empty.add(keyOf(empty))
          for (const route of ["grade", "forecast", "calendar", "day", "cell"]) {
            const none = yield* get(server.url(`/api/v2/${route}?${q(empty)}`))
            expect([route, none.status]).toEqual([route, 404])
            expect(json(none)).toEqual({ detail: "No weather history for this cell.", code: "no-history" })
          }

          // A warm cell whose forecast is rate-limited: 503 for the forecast views.
          const warm = freshCell()
          yield* get(server.url(`/api/v2/calendar?${q(warm)}`))
          up.weather.faults.forecast.push({ status: 429, retryAfter: "1" })
          const limited = yield* get(server.url(`/api/v2/grade?${q(warm)}`))
          expect([limited.status, limited.headers["retry-after"]]).toEqual([503, "1"])
          // The day view never fails because of the forecast.
          expect((yield* get(server.url(`/api/v2/day?${q(warm)}`))).status).toBe(200)
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 1_100)))
          expect((yield* get(server.url(`/api/v2/grade?${q(warm)}`))).status).toBe(200)

          // The archive answers 503 with no Retry-After: a minute's wait, for every cell, with no call.
          const archiveCalls = up.weather.requests.archive.length
          up.weather.faults.archive.push({ status: 503 })
          for (const route of ["grade", "forecast", "calendar", "day", "cell"]) {
            const answer = yield* get(server.url(`/api/v2/${route}?${q(freshCell())}`))
            expect([route, answer.status]).toEqual([route, 503])
            expect(Number(answer.headers["retry-after"])).toBeGreaterThanOrEqual(route === "grade" ? 60 : 58)
            expect(Number(answer.headers["retry-after"])).toBeLessThanOrEqual(60)
            expect(json(answer)).toEqual({ detail: "Weather source is rate-limited; try again later.", code: "rate-limited", retry_at: expect.any(String) })
          }
          expect(up.weather.requests.archive.length).toBe(archiveCalls + 1)
          // The warm cell's views do not need the archive.
          expect((yield* get(server.url(`/api/v2/calendar?${q(warm)}`))).status).toBe(200)
        }))
    })
  })
}
