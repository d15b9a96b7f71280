import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Cell, CivilDate, GeocoderPace, GeocoderQueue, RateLimited, UpstreamFailure, UpstreamTimeout } from "@climate-grade/core"
import { Metrics, Nominatim, NominatimPacer, OpenMeteo } from "@climate-grade/weather"
import { FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import { HttpClient } from "@effect/platform"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/TestClock"

const NOW = Date.parse("2026-11-22T12:00:00Z")
const berlin = Cell.fromCoordinates(52.52, 13.41)
const day = (s: string) => CivilDate.parse(s)!

const openMeteo = (fake: FakeOpenMeteo.FakeOpenMeteo, apiKey?: string) =>
  OpenMeteo.make({
    archiveUrl: fake.archiveUrl,
    forecastUrl: fake.forecastUrl,
    apiKey: apiKey === undefined ? Option.none() : Option.some(Redacted.make(apiKey)),
    archiveTimeout: "2 seconds",
    forecastTimeout: "2 seconds"
  }).pipe(Effect.provide(NodeHttpClient.layer))

const fakeOpenMeteo = Effect.tap(FakeOpenMeteo.make, (fake) => {
  fake.now = () => NOW
})

describe("Open-Meteo client", () => {
  it.scoped("asks the archive for exactly the documented parameters and decodes nulls as NaN", () =>
    Effect.gen(function* () {
      const fake = yield* fakeOpenMeteo
      const source = yield* openMeteo(fake)
      const { series, timezone } = yield* source.archive(berlin, day("2026-11-01"), day("2026-11-22"))
      expect(fake.requests.archive[0]!.query).toEqual({
        latitude: "52.50",
        longitude: "13.50",
        start_date: "2026-11-01",
        end_date: "2026-11-22",
        daily: "temperature_2m_max,temperature_2m_min,precipitation_sum",
        timezone: "auto",
        models: "era5"
      })
      expect(timezone).toBe("Europe/Berlin")
      expect(series.start).toBe(day("2026-11-01"))
      expect(series.tmax).toHaveLength(22)
      // ERA5's lag: the last five days before today are null.
      expect(Array.from(series.tmax.slice(-5)).every(Number.isNaN)).toBe(true)
      expect(series.tmax[0]).toBe(FakeOpenMeteo.weather(52.5, 13.5, day("2026-11-01")).tmax)
    }))

  it.scoped("asks the forecast for past_days=7 and forecast_days=16, and sends apikey only when set", () =>
    Effect.gen(function* () {
      const fake = yield* fakeOpenMeteo
      const { series } = yield* (yield* openMeteo(fake, "k-123")).forecast(berlin)
      expect(fake.requests.forecast[0]!.query).toEqual({
        latitude: "52.50",
        longitude: "13.50",
        daily: "temperature_2m_max,temperature_2m_min,precipitation_sum",
        timezone: "auto",
        past_days: "7",
        forecast_days: "16",
        apikey: "k-123"
      })
      expect(series.start).toBe(day("2026-11-15"))
      expect(series.tmax).toHaveLength(23)
      yield* (yield* openMeteo(fake)).forecast(berlin)
      expect(fake.requests.forecast[1]!.query.apikey).toBeUndefined()
    }))

  it.scopedLive("maps every failure: 429/503 → RateLimited with Retry-After, timeout, and the rest → UpstreamFailure", () =>
    Effect.gen(function* () {
      const fake = yield* fakeOpenMeteo
      const source = yield* openMeteo(fake)
      const failure = (fault: FakeOpenMeteo.FakeOpenMeteo["faults"]["archive"][number]) => {
        fake.faults.archive.push(fault)
        return Effect.flip(source.archive(berlin, day("2026-01-01"), day("2026-01-31")))
      }
      expect(yield* failure({ status: 429, retryAfter: "120" })).toEqual(new RateLimited({ source: "archive", retryAfterSeconds: 120 }))
      expect(yield* failure({ status: 503 })).toEqual(new RateLimited({ source: "archive", retryAfterSeconds: 60 }))
      expect(yield* failure({ status: 429, retryAfter: new Date(Date.now() + 30_000).toUTCString() })).toMatchObject({
        _tag: "RateLimited"
      })
      expect(yield* failure("hang")).toEqual(new UpstreamTimeout({ source: "archive" }))
      expect(yield* failure({ status: 500 })).toEqual(new UpstreamFailure({ source: "archive", reason: "status 500" }))
      expect(yield* failure({ status: 400, reason: "Parameter 'start_date' is out of allowed range" })).toEqual(
        new UpstreamFailure({ source: "archive", reason: "status 400: Parameter 'start_date' is out of allowed range" })
      )
      expect(yield* failure("malformed")).toEqual(new UpstreamFailure({ source: "archive", reason: "the body is not JSON" }))
      expect(yield* failure("reset")).toEqual(new UpstreamFailure({ source: "archive", reason: "it could not be reached" }))
      // A time zone no date can be read in is a malformed answer.
      fake.timezone = "Mars/Olympus_Mons"
      expect(yield* Effect.flip(source.archive(berlin, day("2026-01-01"), day("2026-01-31")))).toEqual(
        new UpstreamFailure({ source: "archive", reason: "unknown time zone: Mars/Olympus_Mons" })
      )
      fake.timezone = "Europe/Berlin"
      // The forecast has its own timeout.
      fake.faults.forecast.push("hang")
      expect(yield* Effect.flip(source.forecast(berlin))).toEqual(new UpstreamTimeout({ source: "forecast" }))
    }))

  it.scoped("counts cost units: max(1, 3/10 × days/14) per call", () =>
    Effect.gen(function* () {
      const fake = yield* fakeOpenMeteo
      const source = yield* openMeteo(fake)
      const archiveUnits = Metric.tagged(Metrics.costUnits, "endpoint", "archive")
      const before = (yield* Metric.value(archiveUnits)).count
      yield* source.archive(berlin, day("1940-01-01"), day("2025-01-01"))
      const days = day("2025-01-01") - day("1940-01-01") + 1
      const spent = (yield* Metric.value(archiveUnits)).count - before
      expect(spent).toBeCloseTo((3 / 10) * (days / 14), 9)
      // 31,048 days: 665.3 units (the "about 673" is 1940 to late 2026).
      expect(Math.round(spent)).toBe(665)
      const small = (yield* Metric.value(archiveUnits)).count
      yield* source.archive(berlin, day("2025-01-01"), day("2025-01-03"))
      expect((yield* Metric.value(archiveUnits)).count - small).toBe(1)
    }))
})

/** Runs `effect` with every log line captured as "LEVEL message {annotations}". */
const capturingLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) => {
  const lines: Array<string> = []
  const logger = Logger.make(({ annotations, logLevel, message }) => {
    const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
    lines.push(`${logLevel.label} ${text} ${JSON.stringify(Object.fromEntries(annotations))}`)
  })
  return Effect.map(Effect.provide(effect, Logger.replace(Logger.defaultLogger, logger)), (a) => ({ a, lines }))
}

describe("upstream failures are logged once with their cause; cost units only for calls answered", () => {
  it.scopedLive("a refused connection and an unresolvable host: the log names the host and error code, the reason says it in words", () =>
    Effect.gen(function* () {
      const archiveUnits = Metric.tagged(Metrics.costUnits, "endpoint", "archive")
      const before = (yield* Metric.value(archiveUnits)).count
      // A port nothing listens on: the TCP connection is refused.
      const refused = yield* OpenMeteo.make({
        archiveUrl: "http://127.0.0.1:1/v1/archive",
        forecastUrl: "http://cg-no-such-host.invalid/v1/forecast",
        apiKey: Option.none(),
        archiveTimeout: "5 seconds",
        forecastTimeout: "5 seconds"
      }).pipe(Effect.provide(NodeHttpClient.layer))
      const archive = yield* capturingLogs(Effect.flip(refused.archive(berlin, day("2026-01-01"), day("2026-01-31"))))
      // The reason reaches a client as a detail: words, no transport code.
      expect(archive.a).toEqual(new UpstreamFailure({ source: "archive", reason: "it could not be reached" }))
      expect(archive.lines.filter((l) => l.startsWith("WARN"))).toHaveLength(1)
      expect(archive.lines.join("\n")).toMatch(
        /WARN upstream archive \(127\.0\.0\.1:1\) failed: it could not be reached \(ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:1\)/
      )
      expect(archive.lines.join("\n")).not.toMatch(/cost units/)

      // DNS: ENOTFOUND where a resolver answers, EAI_AGAIN where none does; either way named.
      const forecast = yield* capturingLogs(Effect.flip(refused.forecast(berlin)))
      expect(forecast.a).toEqual(new UpstreamFailure({ source: "forecast", reason: "it could not be reached" }))
      expect(forecast.lines).toHaveLength(1)
      expect(forecast.lines[0]).toMatch(/cg-no-such-host\.invalid.*(ENOTFOUND|EAI_AGAIN).*"host":"cg-no-such-host\.invalid"/)
      // Neither call reached Open-Meteo, so neither spent a cost unit.
      expect((yield* Metric.value(archiveUnits)).count).toBe(before)
    }))

  it.scopedLive("the cost-unit line comes after an answered call, and a refused call (429, 500) costs nothing", () =>
    Effect.gen(function* () {
      const fake = yield* fakeOpenMeteo
      const source = yield* openMeteo(fake)
      const archiveUnits = Metric.tagged(Metrics.costUnits, "endpoint", "archive")
      const before = (yield* Metric.value(archiveUnits)).count
      fake.faults.archive.push({ status: 500 }, { status: 429, retryAfter: "5" })
      const failed = yield* capturingLogs(
        Effect.zip(
          Effect.flip(source.archive(berlin, day("2026-01-01"), day("2026-01-31"))),
          Effect.flip(source.archive(berlin, day("2026-01-01"), day("2026-01-31")))
        )
      )
      expect(failed.lines).toHaveLength(2)
      expect(failed.lines[0]).toMatch(/^WARN upstream archive \(127\.0\.0\.1:\d+\) failed: status 500/)
      expect(failed.lines[1]).toMatch(/failed: rate-limited, retry after 5 s/)
      expect((yield* Metric.value(archiveUnits)).count).toBe(before)
      const ok = yield* capturingLogs(source.archive(berlin, day("2026-01-01"), day("2026-01-31")))
      expect(ok.lines).toEqual([expect.stringMatching(/^INFO open-meteo archive: 31 days, 1\.00 cost units/)])
      expect((yield* Metric.value(archiveUnits)).count).toBe(before + 1)

      // An answer that came but cannot be used cost its units and is logged once, by the client.
      fake.timezone = "Mars/Olympus_Mons"
      const odd = yield* capturingLogs(Effect.flip(source.archive(berlin, day("2026-01-01"), day("2026-01-31"))))
      fake.timezone = "Europe/Berlin"
      expect(odd.lines.filter((l) => l.startsWith("WARN"))).toEqual([
        expect.stringMatching(/^WARN upstream archive \(127\.0\.0\.1:\d+\) answered unusably: unknown time zone: Mars\/Olympus_Mons/)
      ])
    }))
})

const nominatim = (fake: FakeNominatim.FakeNominatim, interval: Duration.DurationInput = "1 second") =>
  Nominatim.make({ url: fake.reverseUrl, userAgent: "climate-grade/test", interval, timeout: "300 millis" }).pipe(
    Effect.provide(NodeHttpClient.layer)
  )

describe("Nominatim client", () => {
  it.scoped("sends jsonv2, zoom=10, the cell centre and our User-Agent; labels by the first place field", () =>
    Effect.gen(function* () {
      const fake = yield* FakeNominatim.make
      const geocoder = yield* nominatim(fake, "0 millis")
      const cell = Cell.fromCoordinates(47.61, -122.33)
      const cases: ReadonlyArray<[Record<string, string>, string]> = [
        [{ city: "Seattle", county: "King County", state: "Washington", country_code: "us" }, "Seattle, US"],
        [{ town: "Bothell", county: "King County", country_code: "us" }, "Bothell, US"],
        [{ village: "Vashon", state: "Washington", country_code: "us" }, "Vashon, US"],
        [{ municipality: "Gemeinde", country_code: "at" }, "Gemeinde, AT"],
        [{ county: "King County", state: "Washington", country_code: "us" }, "King County, US"],
        [{ state: "Washington", country_code: "us" }, "Washington, US"],
        [{ city: "Nowhere" }, "Nowhere"]
      ]
      for (const [address, label] of cases) {
        fake.fallback = address
        expect(yield* geocoder.label(cell)).toBe(label)
      }
      expect(fake.requests[0]!.query).toEqual({ format: "jsonv2", zoom: "10", lat: "47.50", lon: "-122.25" })
      expect(fake.requests[0]!.headers["user-agent"]).toBe("climate-grade/test")
    }))

  it.scopedLive("'Unable to geocode' labels the cell with its coordinates; failures are errors", () =>
    Effect.gen(function* () {
      const fake = yield* FakeNominatim.make
      const geocoder = yield* nominatim(fake, "0 millis")
      fake.fallback = "unable"
      expect(yield* geocoder.label(Cell.fromCoordinates(47.25, -130))).toBe("47.25°N 130.00°W")
      expect(yield* geocoder.label(Cell.fromCoordinates(-33.9, 18.4))).toBe("34.00°S 18.50°E")
      fake.faults.push({ status: 500 })
      expect((yield* Effect.flip(geocoder.label(Cell.fromCoordinates(0, 0))))._tag).toBe("UpstreamFailure")
      fake.faults.push({ status: 429, retryAfter: "5" })
      expect(yield* Effect.flip(geocoder.label(Cell.fromCoordinates(0, 0)))).toEqual(
        new RateLimited({ source: "geocoder", retryAfterSeconds: 5 })
      )
      fake.faults.push("hang")
      expect((yield* Effect.flip(geocoder.label(Cell.fromCoordinates(0, 0))))._tag).toBe("UpstreamTimeout")
    }))

  it.scopedLive("makes at most one call per second for the process: concurrent callers queue", () =>
    Effect.gen(function* () {
      const fake = yield* FakeNominatim.make
      // Stamped by the pacer's own clock as each request leaves: the pacer releases a call a whole
      // second after the previous one ended by that clock, so these are a second apart however
      // loaded the machine (wall-clock arrival at the fake is not, and failed CI once).
      const sentAt: Array<number> = []
      const stamped = Layer.effect(
        HttpClient.HttpClient,
        Effect.map(HttpClient.HttpClient, (client) =>
          HttpClient.tapRequest(client, () => Effect.map(Clock.currentTimeMillis, (now) => void sentAt.push(now)))
        )
      ).pipe(Layer.provide(NodeHttpClient.layer))
      const geocoder = yield* Nominatim.make({ url: fake.reverseUrl, userAgent: "climate-grade/test", timeout: "5 seconds" }).pipe(
        Effect.provide(stamped)
      )
      const cells = [1, 2, 3].map((i) => Cell.fromCoordinates(i, i))
      yield* Effect.all(cells.map((c) => geocoder.label(c)), { concurrency: "unbounded" })
      expect(sentAt).toHaveLength(3)
      expect(fake.requests).toHaveLength(3)
      const gaps = sentAt.slice(1).map((t, i) => t - sentAt[i]!)
      expect(gaps.every((g) => g >= 1000), `gaps ${gaps.join(", ")} ms`).toBe(true)
    }))

  it.scoped("the pacer lets calls through one at a time, each a second after the previous one ended, by its own clock", () =>
    Effect.gen(function* () {
      const pacer = yield* NominatimPacer.make("1 second")
      let active = 0
      let most = 0
      // Each call takes 300 ms: the pacer must not start the next one before it ends either.
      const call = Effect.acquireUseRelease(
        Effect.sync(() => {
          active++
          most = Math.max(most, active)
        }),
        () => Effect.sleep("300 millis"),
        () => Effect.sync(() => void active--)
      )
      const start = yield* TestClock.currentTimeMillis
      const fibers = yield* Effect.forkAll(Array.from({ length: 4 }, () => pacer.label(call)))
      for (let i = 0; i < 60; i++) yield* TestClock.adjust("100 millis")
      yield* Fiber.join(fibers)
      const released = yield* pacer.released
      // Each call takes 300 ms; the next starts a second after it ended.
      expect(released.map((t) => t - start)).toEqual([0, 1300, 2600, 3900])
      expect(most).toBe(1)
    }))

  it.scoped("two pacers on one shared pace (two instances on one database) start their calls a second apart, not at once", () =>
    Effect.gen(function* () {
      let next: number | undefined
      const shared = GeocoderPace.GeocoderPace.of({
        claim: (gap) =>
          Effect.map(TestClock.currentTimeMillis, (now) => {
            const step = GeocoderPace.step(next, now, gap)
            next = step.next
            return step.start - now
          })
      })
      const [a, b] = yield* Effect.all([NominatimPacer.make("1 second"), NominatimPacer.make("1 second")]).pipe(
        Effect.provideService(GeocoderPace.GeocoderPace, shared)
      )
      const start = yield* TestClock.currentTimeMillis
      const call = Effect.sleep("300 millis")
      const fibers = yield* Effect.forkAll([a.label(call), b.label(call), a.label(call), b.label(call)])
      for (let i = 0; i < 60; i++) yield* TestClock.adjust("100 millis")
      yield* Fiber.join(fibers)
      const starts = [...(yield* a.released), ...(yield* b.released)].map((t) => t - start).sort((x, y) => x - y)
      // Alone, each pacer would start its two calls at 0 and 1300 ms: together, one a second at most.
      expect(starts).toEqual([0, 1000, 2000, 3000])
    }))

  it.scoped("the pacer's turns: a label before waiting searches, searches client by client; past a client's bound a search is refused at once", () =>
    Effect.gen(function* () {
      const pacer = yield* NominatimPacer.make("1 second", 3)
      const order: Array<string> = []
      const call = (name: string) => Effect.zipRight(Effect.sync(() => void order.push(name)), Effect.sleep("300 millis"))
      const start = yield* TestClock.currentTimeMillis
      // One client's burst of five: its first runs at once, two wait, two are refused.
      const burst = yield* Effect.forEach([1, 2, 3, 4, 5], (i) => Effect.fork(Effect.either(pacer.search("burst", call(`burst-${i}`)))))
      yield* Effect.yieldNow()
      const refused = yield* Effect.forEach(burst.slice(3), Fiber.join)
      // Its next search ends two turns from now (the one running, then its own): two seconds.
      expect(refused.map((r) => r._tag === "Left" && r.left)).toEqual([
        new GeocoderQueue.SearchesQueued({ limit: 3, retryAfterSeconds: 2 }),
        new GeocoderQueue.SearchesQueued({ limit: 3, retryAfterSeconds: 2 })
      ])
      // Another client's search and a new cell's label, asked after the burst; one waiting search given up.
      const other = yield* Effect.fork(pacer.search("other", call("other")))
      const label = yield* Effect.fork(pacer.label(call("label")))
      const quitter = yield* Effect.fork(pacer.search("quitter", call("quitter")))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(quitter)
      for (let i = 0; i < 60; i++) yield* TestClock.adjust("100 millis")
      yield* Fiber.join(Fiber.zip(other, label))
      for (const fiber of burst.slice(0, 3)) expect((yield* Fiber.join(fiber))._tag).toBe("Right")
      expect(order).toEqual(["burst-1", "label", "burst-2", "other", "burst-3"])
      // Still one call at a time, each a second after the previous one ended.
      expect((yield* pacer.released).map((t) => t - start)).toEqual([0, 1300, 2600, 3900, 5200])
      // The burst's searches have all ended: it may search again.
      const again = yield* Effect.fork(Effect.either(pacer.search("burst", Effect.void)))
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(again))._tag).toBe("Right")
    }))

  it.scoped("past everyone's bound of waiting searches a search is refused at once (everyone), whichever client asks", () =>
    Effect.gen(function* () {
      const pacer = yield* NominatimPacer.make("1 second", 3, 4)
      const calls: Array<string> = []
      const call = (name: string) => Effect.zipRight(Effect.sync(() => void calls.push(name)), Effect.sleep("300 millis"))
      // Five clients, one search each: the first runs, four wait, the sixth client's is refused.
      const admitted = yield* Effect.forEach([1, 2, 3, 4, 5], (i) => Effect.fork(pacer.search(`client-${i}`, call(`client-${i}`))))
      yield* Effect.yieldNow()
      const refused = yield* Effect.either(pacer.search("client-6", call("client-6")))
      expect(refused._tag === "Left" && refused.left).toEqual(
        new GeocoderQueue.SearchesQueued({ limit: 4, retryAfterSeconds: 5, everyone: true })
      )
      for (let i = 0; i < 80; i++) yield* TestClock.adjust("100 millis")
      yield* Effect.forEach(admitted, Fiber.join)
      expect(calls).toEqual(["client-1", "client-2", "client-3", "client-4", "client-5"])
    }))
})


const nominatimPorts = (fake: FakeNominatim.FakeNominatim, interval: Duration.DurationInput = "1 second") =>
  Nominatim.makePorts({
    url: fake.reverseUrl,
    searchUrl: fake.searchUrl,
    userAgent: "climate-grade/test",
    interval,
    timeout: "300 millis"
  }).pipe(Effect.provide(NodeHttpClient.layer))

describe("Nominatim place search", () => {
  it.scoped("sends /search with jsonv2, the limit, the query and our User-Agent; decodes labels and coordinates", () =>
    Effect.gen(function* () {
      const fake = yield* FakeNominatim.make
      const { placeSearch } = yield* nominatimPorts(fake, "0 millis")
      fake.searches.set("paris", [
        // As Nominatim answers with addressdetails=1: labelled as a cell is, "Paris, FR".
        {
          display_name: "Paris, Île-de-France, France",
          lat: "48.8534951",
          lon: "2.3483915",
          name: "Paris",
          address: { city: "Paris", state: "Île-de-France", country: "France", country_code: "fr" }
        },
        {
          display_name: "Paris, Lamar County, Texas, United States",
          lat: "33.6617962",
          lon: "-95.555513",
          address: { town: "Paris", county: "Lamar County", country: "United States", country_code: "us" }
        },
        // Without an address, the display name is the only name there is.
        { display_name: "Pariz, Somewhere", lat: "2", lon: "2" },
        { display_name: "  ", lat: "1", lon: "1" },
        { display_name: "Broken", lat: "north", lon: "1" },
        { display_name: "Out of range", lat: "91", lon: "1" }
      ])
      expect(yield* placeSearch.search("paris", 5, "192.0.2.1")).toEqual([
        { label: "Paris, FR", lat: 48.8534951, lon: 2.3483915 },
        { label: "Paris, US", lat: 33.6617962, lon: -95.555513 },
        { label: "Pariz, Somewhere", lat: 2, lon: 2 }
      ])
      expect(fake.requests[0]!.path).toBe("/search")
      expect(fake.requests[0]!.query).toEqual({ format: "jsonv2", addressdetails: "1", limit: "5", q: "paris" })
      expect(fake.requests[0]!.headers["user-agent"]).toBe("climate-grade/test")
      fake.searches.set("many", Array.from({ length: 9 }, (_, i) => ({ display_name: `P${i}`, lat: "1", lon: String(i) })))
      expect(yield* placeSearch.search("many", 5, "192.0.2.1")).toHaveLength(5)
      fake.searches.set("none", [])
      expect(yield* placeSearch.search("none", 5, "192.0.2.1")).toEqual([])
    }))

  it.scopedLive("faults are the core's errors: 429/503 rate-limited, 500 and malformed failures, a hang a timeout", () =>
    Effect.gen(function* () {
      const fake = yield* FakeNominatim.make
      const { placeSearch } = yield* nominatimPorts(fake, "0 millis")
      fake.faults.push({ status: 429, retryAfter: "7" })
      expect(yield* Effect.flip(placeSearch.search("x", 5, "192.0.2.1"))).toEqual(new RateLimited({ source: "geocoder", retryAfterSeconds: 7 }))
      fake.faults.push({ status: 503 })
      expect((yield* Effect.flip(placeSearch.search("x", 5, "192.0.2.1")))._tag).toBe("RateLimited")
      fake.faults.push({ status: 500 })
      expect((yield* Effect.flip(placeSearch.search("x", 5, "192.0.2.1")))._tag).toBe("UpstreamFailure")
      fake.faults.push("malformed")
      expect((yield* Effect.flip(placeSearch.search("x", 5, "192.0.2.1")))._tag).toBe("UpstreamFailure")
      fake.faults.push("hang")
      expect((yield* Effect.flip(placeSearch.search("x", 5, "192.0.2.1")))._tag).toBe("UpstreamTimeout")
    }))

  it.scopedLive("shares the reverse geocoder's pacer: a search and a label are a second apart", () =>
    Effect.gen(function* () {
      const fake = yield* FakeNominatim.make
      const { geocoder, placeSearch } = yield* nominatimPorts(fake)
      yield* Effect.all([geocoder.label(Cell.fromCoordinates(1, 1)), placeSearch.search("x", 5, "192.0.2.1"), geocoder.label(Cell.fromCoordinates(2, 2))], {
        concurrency: "unbounded"
      })
      // Exact, with no slack, however loaded the machine: the fake stamps a request (Date.now)
      // before it answers, the pacer lets the next one go a whole second after that answer
      // arrived by the same clock, and the next stamp comes later still.
      const at = fake.requests.map((r) => r.at).sort((a, b) => a - b)
      expect(fake.requests.map((r) => r.path).sort()).toEqual(["/reverse", "/reverse", "/search"])
      expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(1000)
      expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(1000)
    }), 10_000)
})
