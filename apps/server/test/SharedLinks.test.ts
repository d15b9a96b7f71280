/**
 * Shared links (CONTRACT.md §8 "Shared links preview") end to end over real HTTP, with the fakes,
 * on PGlite and PostgreSQL: the card picture of a place's today (`/api/v2/card.png`: a 1200 × 630
 * PNG, ETag and 304, 404 for a cell not held, 400s), and the head of a place's page (title,
 * description, Open Graph and Twitter tags from the held grade, generic text for a cell not held,
 * every value escaped, ETag following the head). Neither ever calls an upstream.
 */
import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inflateSync } from "node:zlib"
import { describe, expect, layer } from "@effect/vitest"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { backends, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

class World extends Context.Tag("test/SharedLinksWorld")<
  World,
  { readonly weather: FakeOpenMeteo.FakeOpenMeteo; readonly geocoder: FakeNominatim.FakeNominatim }
>() {}

const TITLE = "Climate grade — how unusual is today's weather?"
const DESCRIPTION = "Any place on Earth, today and the coming 16 days graded against 85 years of its own weather history."

/** A main page shaped like the real build's: its own title and description, a module script, no inline script. */
export const fixtureSite = () => {
  const dir = mkdtempSync(join(tmpdir(), "shared-site-"))
  mkdirSync(join(dir, "assets"))
  writeFileSync(
    join(dir, "index.html"),
    `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${TITLE}</title>\n<meta name="description" content="${DESCRIPTION}">\n<script type="module" src="assets/main-1.js"></script>\n</head>\n<body><div id="app"></div></body>\n</html>\n`
  )
  writeFileSync(join(dir, "alerts.html"), "<!doctype html><title>Account</title>")
  writeFileSync(join(dir, "assets", "main-1.js"), "export {}\n")
  return dir
}

const world = (backend: (typeof backends)[number]) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      geocoder.addresses.set("38.75,-9.25", { city: "Lisboa", country: "Portugal", country_code: "pt" })
      const env = { ...FakeEnv.upstreams(weather, geocoder), HISTORY_START: "1980-01-01" }
      return Layer.merge(
        testServerLayer(env, backend.layer, { siteDirectory: fixtureSite() }),
        Layer.succeed(World, { weather, geocoder })
      )
    })
  )

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly bytes: Uint8Array
}

const get = (path: string, headers: Record<string, string> = {}) =>
  Effect.flatMap(TestServer, (server) =>
    Effect.promise(async (): Promise<Answer> => {
      const response = await fetch(server.url(path), { headers })
      return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
    })
  )

/** Every upstream call made so far (weather and geocoder). */
const upstreamCalls = Effect.map(World, ({ weather, geocoder }) => weather.requests.archive.length + weather.requests.forecast.length + geocoder.requests.length)

/** A PNG's size from its IHDR, after checking the signature and that its image data inflates to exactly that many RGBA rows. */
export const decodePng = (bytes: Uint8Array) => {
  const data = Buffer.from(bytes)
  expect([...data.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  let at = 8
  let width = 0
  let height = 0
  let channels = 0
  const idat: Array<Buffer> = []
  while (at < data.length) {
    const length = data.readUInt32BE(at)
    const type = data.toString("latin1", at + 4, at + 8)
    const chunk = data.subarray(at + 8, at + 8 + length)
    if (type === "IHDR") {
      width = chunk.readUInt32BE(0)
      height = chunk.readUInt32BE(4)
      expect(chunk[8]).toBe(8) // bit depth
      channels = { 2: 3, 6: 4 }[chunk[9]!] ?? 0
    }
    if (type === "IDAT") idat.push(chunk)
    at += 12 + length
  }
  // One filter byte per row, then the row's pixels.
  expect(inflateSync(Buffer.concat(idat)).length).toBe(height * (1 + width * channels))
  return { width, height }
}

const lisbon = "lat=38.72&lon=-9.14"

for (const backend of backends) {
  describe(`shared links on ${backend.name}`, () => {
    layer(world(backend), { timeout: 120_000 })((it) => {
      it.effect("card.png of a cell not held is 404 with a detail and calls no upstream; bad values are 400s", () =>
        Effect.gen(function* () {
          const before = yield* upstreamCalls
          const missing = yield* get("/api/v2/card.png?lat=-12.5&lon=130.75")
          expect(missing.status).toBe(404)
          expect(JSON.parse(new TextDecoder().decode(missing.bytes))).toEqual({ detail: expect.stringMatching(/No grades are held/) })
          for (const [path, parameter] of [
            ["/api/v2/card.png?lat=abc&lon=1", "lat"],
            ["/api/v2/card.png?lat=1", "lon"],
            ["/api/v2/card.png?lat=91&lon=1", "lat"],
            [`/api/v2/card.png?${lisbon}&units=kelvin`, "units"]
          ] as const) {
            const bad = yield* get(path)
            expect(bad.status, path).toBe(400)
            expect((JSON.parse(new TextDecoder().decode(bad.bytes)) as { detail: string }).detail).toContain(`'${parameter}'`)
          }
          expect(yield* upstreamCalls).toBe(before)
        }))

      it.effect("card.png of a held cell: a 1200 × 630 PNG with an ETag and no-cache, 304 on a match, no upstream call", () =>
        Effect.gen(function* () {
          // The place is loaded as the site loads it: one bundle.
          expect((yield* get(`/api/v2/cell?${lisbon}`)).status).toBe(200)
          const before = yield* upstreamCalls
          const card = yield* get(`/api/v2/card.png?${lisbon}`, { "accept-encoding": "gzip" })
          expect(card.status).toBe(200)
          expect(card.headers.get("content-type")).toBe("image/png")
          expect(card.headers.get("content-encoding")).toBeNull()
          expect(card.headers.get("cache-control")).toBe("no-cache")
          expect(decodePng(card.bytes)).toEqual({ width: 1200, height: 630 })
          const etag = card.headers.get("etag")!
          expect(etag).toMatch(/^W\/"[0-9a-f]{32}"$/)
          // Any point of the cell is the same card.
          const again = yield* get("/api/v2/card.png?lat=38.80&lon=-9.20")
          expect(again.headers.get("etag")).toBe(etag)
          expect(again.bytes).toEqual(card.bytes)
          for (const header of [etag, etag.slice(2), `"other", ${etag}`, "*"]) {
            const revalidated = yield* get(`/api/v2/card.png?${lisbon}`, { "if-none-match": header })
            expect(revalidated.status, header).toBe(304)
            expect(revalidated.bytes.byteLength).toBe(0)
            expect(revalidated.headers.get("etag")).toBe(etag)
            expect(revalidated.headers.get("cache-control")).toBe("no-cache")
            expect(revalidated.headers.get("content-type")).toBeNull()
          }
          const imperial = yield* get(`/api/v2/card.png?${lisbon}&units=imperial`)
          expect(imperial.status).toBe(200)
          expect(imperial.headers.get("etag")).not.toBe(etag)
          expect(decodePng(imperial.bytes)).toEqual({ width: 1200, height: 630 })
          expect(yield* upstreamCalls).toBe(before)
        }))
    })
  })
}
