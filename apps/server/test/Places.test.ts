/**
 * `GET /api/v2/places` end to end (docs/api.md "Place search") over real HTTP, with a fake Nominatim, on
 * PGlite and PostgreSQL: the answer's shape, the call Nominatim sees, answers kept 30 days by
 * normalised query, the 400s, and upstream faults as for weather data.
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { backends, FakeNominatim } from "@climate-grade/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"

class Geocoder extends Context.Tag("test/Geocoder")<Geocoder, FakeNominatim.FakeNominatim>() {}

const world = (backend: (typeof backends)[number]) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const geocoder = yield* FakeNominatim.make
      const env = {
        GEOCODER_URL: geocoder.reverseUrl,
        GEOCODER_SEARCH_URL: geocoder.searchUrl,
        GEOCODER_USER_AGENT: "climate-grade/places-test"
      }
      return Layer.mergeAll(testServerLayer(env, backend.layer), backend.layer, Layer.succeed(Geocoder, geocoder))
    })
  )

const places = (q: string | ReadonlyArray<string> | undefined) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const url = new URL(server.url("/api/v2/places"))
    for (const value of q === undefined ? [] : typeof q === "string" ? [q] : q) url.searchParams.append("q", value)
    const response = yield* Effect.promise(() => fetch(url))
    return { status: response.status, headers: response.headers, body: (yield* Effect.promise(() => response.json())) as unknown }
  })

const searches = (fake: FakeNominatim.FakeNominatim) => fake.requests.filter((r) => r.path === "/search")

for (const backend of backends) {
  describe(`place search on ${backend.name}`, () => {
    layer(world(backend), { timeout: 60_000 })((it) => {
      it.effect("answers at most five places with label, lat and lon, from one paced Nominatim call", () =>
        Effect.gen(function* () {
          const fake = yield* Geocoder
          fake.searches.set(
            "springfield",
            Array.from({ length: 8 }, (_, i) => ({
              display_name: `Springfield ${i}, United States`,
              lat: String(37 + i / 10),
              lon: String(-93 - i / 10)
            }))
          )
          const before = searches(fake).length
          const answer = yield* places("Springfield")
          expect(answer.status).toBe(200)
          expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
          const body = answer.body as { places: Array<{ label: string; lat: number; lon: number }> }
          expect(body.places).toHaveLength(5)
          expect(body.places[0]).toEqual({ label: "Springfield 0, United States", lat: 37, lon: -93 })
          expect(Object.keys(body)).toEqual(["places"])
          const sent = searches(fake).slice(before)
          expect(sent).toHaveLength(1)
          expect(sent[0]!.query).toEqual({ format: "jsonv2", addressdetails: "1", limit: "5", q: "springfield" })
          expect(sent[0]!.headers["user-agent"]).toBe("climate-grade/places-test")
        }))

      it.effect("a search whose request closed while it waited leaves the queue: the geocoder never sees it", () =>
        Effect.gen(function* () {
          const fake = yield* Geocoder
          const server = yield* TestServer
          fake.delayMs = 1_500
          try {
            // One search holds the geocoder's turn; three more wait behind it and are given up.
            const holding = yield* Effect.fork(places("holding the turn"))
            while (!searches(fake).some((r) => r.query.q === "holding the turn")) yield* Effect.sleep("20 millis")
            const abandoned = ["given up 1", "given up 2", "given up 3"].map((q) =>
              fetch(`${server.url("/api/v2/places")}?q=${encodeURIComponent(q)}`, { signal: AbortSignal.timeout(300) }).then(
                () => "answered",
                () => "closed"
              )
            )
            expect(yield* Effect.promise(() => Promise.all(abandoned))).toEqual(["closed", "closed", "closed"])
            expect((yield* Fiber.join(holding)).status).toBe(200)
            // Past the turns they would have had: none was sent.
            yield* Effect.sleep("3500 millis")
            const sent = searches(fake).map((r) => r.query.q)
            expect(sent).toContain("holding the turn")
            expect(sent.filter((q) => q?.startsWith("given up"))).toEqual([])
          } finally {
            fake.delayMs = 0
          }
        }))

      it.effect("a repeated query, however cased or spaced, costs no call; another query does", () =>
        Effect.gen(function* () {
          const fake = yield* Geocoder
          fake.searches.set("new york", [{ display_name: "New York, United States", lat: "40.7127281", lon: "-74.0060152" }])
          const before = searches(fake).length
          const first = yield* places("New York")
          for (const q of ["new york", "  NEW   YORK ", "New\tYork"]) {
            const again = yield* places(q)
            expect(again.status).toBe(200)
            expect(again.body).toEqual(first.body)
          }
          expect(searches(fake).length - before).toBe(1)
          fake.searches.set("nowhere at all", [])
          expect((yield* places("Nowhere at all")).body).toEqual({ places: [] })
          // An empty answer is kept too.
          expect((yield* places("nowhere at all")).body).toEqual({ places: [] })
          expect(searches(fake).length - before).toBe(2)
        }))

      it.effect("an answer older than 30 days is asked again", () =>
        Effect.gen(function* () {
          const fake = yield* Geocoder
          const sql = yield* SqlClient.SqlClient
          fake.searches.set("lyon", [{ display_name: "Lyon, France", lat: "45.76", lon: "4.83" }])
          yield* places("Lyon")
          const before = searches(fake).length
          yield* sql`update place_searches set fetched_at = now() - interval '29 days' where query = 'lyon'`
          yield* places("Lyon")
          expect(searches(fake).length).toBe(before)
          yield* sql`update place_searches set fetched_at = now() - interval '31 days' where query = 'lyon'`
          fake.searches.set("lyon", [{ display_name: "Lyon, Auvergne-Rhône-Alpes, France", lat: "45.76", lon: "4.83" }])
          expect((yield* places("Lyon")).body).toEqual({ places: [{ label: "Lyon, Auvergne-Rhône-Alpes, France", lat: 45.76, lon: 4.83 }] })
          expect(searches(fake).length).toBe(before + 1)
        }))

      it.effect("a missing, empty, blank, repeated or over-long q is a 400 that says so, and costs no call", () =>
        Effect.gen(function* () {
          const fake = yield* Geocoder
          const before = searches(fake).length
          const cases: ReadonlyArray<[string | ReadonlyArray<string> | undefined, RegExp]> = [
            [undefined, /'q' is required/],
            ["", /'q' must not be empty/],
            ["   \t ", /'q' must not be empty/],
            [["a", "b"], /'q' is given more than once/],
            ["x".repeat(201), /'q' must be at most 200 characters, got 201/],
            ["é".repeat(150) + "😀".repeat(51), /at most 200 characters, got 201/]
          ]
          for (const [q, detail] of cases) {
            const answer = yield* places(q)
            expect(answer.status, String(q)).toBe(400)
            expect(answer.body).toEqual({ detail: expect.stringMatching(detail), code: "invalid-query" })
          }
          expect(searches(fake).length).toBe(before)
          expect((yield* places(`  ${"y".repeat(200)}  `)).status).toBe(200)
        }))

      it.effect("upstream faults: 429/503 → 503 with Retry-After, 500 or malformed → 502; a failure keeps nothing", () =>
        Effect.gen(function* () {
          const fake = yield* Geocoder
          fake.faults.push({ status: 429, retryAfter: "12" })
          const limited = yield* places("Faulty town")
          expect(limited.status).toBe(503)
          expect(limited.headers.get("retry-after")).toBe("12")
          expect(limited.body).toEqual({ detail: "Weather source is rate-limited; try again later.", code: "rate-limited", retry_at: expect.any(String) })
          fake.faults.push({ status: 503 })
          expect((yield* places("Faulty town")).status).toBe(503)
          fake.faults.push({ status: 500 })
          const failed = yield* places("Faulty town")
          expect(failed.status).toBe(502)
          expect(failed.body).toEqual({ detail: expect.stringMatching(/geocoder failed/), code: "upstream-failed" })
          fake.faults.push("malformed")
          expect((yield* places("Faulty town")).status).toBe(502)
          const before = searches(fake).length
          const ok = yield* places("Faulty town")
          expect(ok.status).toBe(200)
          expect(searches(fake).length).toBe(before + 1)
        }))

      it.effect("the OpenAPI document describes the route, its query and its answers", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const doc = (yield* Effect.promise(() => fetch(server.url("/api/v2/openapi.json")).then((r) => r.json()))) as {
            paths: Record<string, { get?: { description?: string; parameters?: Array<{ name: string }>; responses: Record<string, unknown> } }>
          }
          const route = doc.paths["/api/v2/places"]?.get
          expect(route?.description).toMatch(/Nominatim/)
          expect(route?.parameters?.map((p) => p.name)).toEqual(["q"])
          expect(Object.keys(route?.responses ?? {})).toEqual(expect.arrayContaining(["200", "400", "502", "503", "504"]))
        }))
    })

    // A geocoder nothing answers at (a port nothing listens on): the detail in words, the code in the log.
    const logs: Array<string> = []
    const unreachable = testServerLayer(
      { GEOCODER_URL: "http://127.0.0.1:1/reverse", GEOCODER_SEARCH_URL: "http://127.0.0.1:1/search", GEOCODER_USER_AGENT: "climate-grade/places-test" },
      backend.layer,
      { logs }
    )
    layer(unreachable, { timeout: 60_000 })((it) => {
      it.effect("an unreachable geocoder is a 502 whose detail says so in words; the transport's code is in the log only", () =>
        Effect.gen(function* () {
          const answer = yield* places("Unreachable town")
          expect(answer.status).toBe(502)
          expect(answer.body).toEqual({ detail: "The geocoder failed: it could not be reached.", code: "upstream-failed" })
          expect(JSON.stringify(answer.body)).not.toMatch(/E[A-Z]{3,}|127\.0\.0\.1/)
          expect(logs.filter((l) => l.includes("upstream geocoder")).join("\n")).toMatch(/it could not be reached \(ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:1\)/)
        }))
    })
  })
}
