/**
 * Shared links (docs/api.md "Shared links") end to end over real HTTP, with the fakes,
 * on PGlite and PostgreSQL: the card picture of a place's today (`/api/v2/card.png`: a 1200 × 630
 * PNG, ETag and 304, 404 for a cell not held, 400s), and the head of a place's page (title,
 * description, Open Graph and Twitter tags from the held grade, generic text for a cell not held,
 * every value escaped, ETag following the head). Neither ever calls an upstream.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inflateSync } from "node:zlib"
import { describe, expect, it, layer } from "@effect/vitest"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { backends, Chromium, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

class World extends Context.Tag("test/SharedLinksWorld")<
  World,
  { readonly weather: FakeOpenMeteo.FakeOpenMeteo; readonly geocoder: FakeNominatim.FakeNominatim }
>() {}

const TITLE = "Climate grade — how unusual is today's weather?"
const DESCRIPTION = "Any place on Earth, today and the coming 16 days graded against its own weather history since 1940."

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

/** The fixture site for the life of the layer, removed after. */
const scopedSite = Effect.acquireRelease(Effect.sync(fixtureSite), (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))

const world = (backend: (typeof backends)[number]) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      geocoder.addresses.set("38.75,-9.25", { city: "Lisboa", country: "Portugal", country_code: "pt" })
      const env = { ...FakeEnv.upstreams(weather, geocoder), HISTORY_START: "1980-01-01" }
      return Layer.mergeAll(
        testServerLayer(env, backend.layer, { siteDirectory: yield* scopedSite }),
        Layer.succeed(World, { weather, geocoder }),
        Chromium.layer
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

const text = (answer: Answer) => new TextDecoder().decode(answer.bytes)

const unescapeHtml = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!)

/** The head's title and meta values, read back from the HTML (values unescaped). */
const headOf = (html: string) => {
  const head = html.slice(0, html.indexOf("</head>"))
  const metas: Record<string, string> = {}
  for (const m of head.matchAll(/<meta (name|property)="([^"]+)" content="([^"]*)">/g)) metas[m[2]!] = unescapeHtml(m[3]!)
  return { title: unescapeHtml(/<title>([^<]*)<\/title>/.exec(head)?.[1] ?? ""), titles: head.split("<title>").length - 1, metas }
}

/** The Content-Security-Policy: scripts only from files, whatever the head holds. */
const expectStrictPage = (answer: Answer) => {
  const csp = answer.headers.get("content-security-policy") ?? ""
  expect(csp).toMatch(/(^|;\s*)script-src 'self'(;|$)/)
  expect(csp).not.toMatch(/unsafe-inline|nonce-|sha256-/)
  for (const tag of text(answer).matchAll(/<script\b[^>]*>/g)) expect(tag[0]).toMatch(/\ssrc="/)
}

for (const backend of backends) {
  describe(`shared links on ${backend.name}`, () => {
    layer(world(backend), { timeout: 120_000 })((it) => {
      it.effect("card.png of a cell not held is 404 with a detail and calls no upstream; bad values are 400s", () =>
        Effect.gen(function* () {
          const before = yield* upstreamCalls
          const missing = yield* get("/api/v2/card.png?lat=-12.5&lon=130.75")
          expect(missing.status).toBe(404)
          expect(JSON.parse(new TextDecoder().decode(missing.bytes))).toEqual({ detail: expect.stringMatching(/No grades are held/), code: "not-held" })
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
          // One card per language, by lang= or else Accept-Language; lang= wins.
          expect(card.headers.get("vary")).toMatch(/accept-language/i)
          const byLang = new Map<string, Answer>()
          for (const lang of ["en", "de", "fr", "es", "pt", "ja", "ar"]) {
            const drawn = yield* get(`/api/v2/card.png?${lisbon}&lang=${lang}`, { "accept-language": "de" })
            expect(drawn.status).toBe(200)
            expect(decodePng(drawn.bytes)).toEqual({ width: 1200, height: 630 })
            byLang.set(lang, drawn)
          }
          expect(byLang.get("en")!.headers.get("etag")).toBe(etag)
          expect(new Set([...byLang.values()].map((a) => a.headers.get("etag"))).size).toBe(7)
          expect(new Set([...byLang.values()].map((a) => Buffer.from(a.bytes).toString("base64"))).size).toBe(7)
          const asked = yield* get(`/api/v2/card.png?${lisbon}`, { "accept-language": "ja-JP, en;q=0.5" })
          expect(asked.headers.get("etag")).toBe(byLang.get("ja")!.headers.get("etag"))
          expect((yield* get(`/api/v2/card.png?${lisbon}&lang=xx`)).status).toBe(400)
        }))

      it.effect("a place page for a cell not held: the page's generic title and description, og tags without an image, no upstream call", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const before = yield* upstreamCalls
          const page = yield* get("/?lat=-33.86&lon=151.21&name=Sydney")
          expect(page.status).toBe(200)
          expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
          expectStrictPage(page)
          const { title, titles, metas } = headOf(text(page))
          expect(titles).toBe(1)
          expect(title).toBe(TITLE)
          expect(metas).toEqual({
            description: DESCRIPTION,
            "og:type": "website",
            "og:site_name": "Climate grade",
            "og:title": TITLE,
            "og:description": DESCRIPTION,
            "og:url": server.url("/?lat=-33.86&lon=151.21&name=Sydney"),
            "og:locale": "en_US",
            "og:locale:alternate": "ar_AR",
            "twitter:card": "summary"
          })
          // Not a place at all: the same words, the site's own address.
          const nowhere = headOf(text(yield* get("/?lat=999&lon=1")))
          expect(nowhere.metas["og:url"]).toBe(server.url("/"))
          expect(nowhere.title).toBe(TITLE)
          expect(yield* upstreamCalls).toBe(before)
        }))

      it.effect("a place page for a held cell names the place and today's grades; og:image is its card, absolute", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          expect((yield* get(`/api/v2/cell?${lisbon}`)).status).toBe(200)
          const grade = JSON.parse(text(yield* get(`/api/v2/grade?${lisbon}`))) as {
            date: string
            variables: Record<"tmax" | "tmin" | "precip", { value: number; percentile: number }>
          }
          const before = yield* upstreamCalls
          const page = yield* get(`/?${lisbon}&units=metric&date=${grade.date}`)
          expect(page.status).toBe(200)
          expectStrictPage(page)
          const { title, metas } = headOf(text(page))
          expect(title).toMatch(/^Lisboa, PT today: .+ — Climate grade$/)
          const high = `${grade.variables.tmax.value.toFixed(1).replace("-", "−")} °C`
          const low = `${grade.variables.tmin.value.toFixed(1).replace("-", "−")} °C`
          for (const value of [`high ${high}`, `low ${low}`, "precipitation ", " percentile, ", "Lisboa, PT"]) {
            expect(metas.description).toContain(value)
          }
          expect(metas["og:description"]).toBe(metas.description)
          expect(metas["og:title"]).toBe(title.replace(" — Climate grade", ""))
          expect(metas["og:url"]).toBe(server.url(`/?lat=38.72&lon=-9.14&date=${grade.date}&units=metric`))
          expect(metas["og:image"]).toBe(server.url("/api/v2/card.png?lat=38.75&lon=-9.25&lang=en"))
          expect(metas["og:image:width"]).toBe("1200")
          expect(metas["og:image:height"]).toBe("630")
          expect(metas["og:image:type"]).toBe("image/png")
          expect(metas["og:image:alt"]).toMatch(/^Lisboa, PT, .+: High .+ °C/)
          expect(metas["twitter:card"]).toBe("summary_large_image")
          expect(metas["og:site_name"]).toBe("Climate grade")
          const card = yield* get(new URL(metas["og:image"]!).pathname + new URL(metas["og:image"]!).search)
          expect(card.status).toBe(200)
          expect(decodePng(card.bytes)).toEqual({ width: 1200, height: 630 })
          // In imperial units when the address asks for them, and so is the card.
          const imperial = headOf(text(yield* get(`/?${lisbon}&units=imperial`)))
          expect(imperial.metas.description).toContain("°F")
          expect(imperial.metas["og:image"]).toBe(server.url("/api/v2/card.png?lat=38.75&lon=-9.25&units=imperial&lang=en"))
          expect(yield* upstreamCalls).toBe(before)
        }))

      it.effect("a place page in each language: by lang= over Accept-Language, with lang, dir, og:locale, hreflang alternates, Vary and an ETag per language", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          expect((yield* get(`/api/v2/cell?${lisbon}`)).status).toBe(200)
          const expected = {
            en: { dir: "ltr", locale: "en_US", word: "today", decimal: "." },
            de: { dir: "ltr", locale: "de_DE", word: "heute", decimal: "," },
            fr: { dir: "ltr", locale: "fr_FR", word: "aujourd'hui", decimal: "," },
            es: { dir: "ltr", locale: "es_ES", word: "hoy", decimal: "," },
            pt: { dir: "ltr", locale: "pt_PT", word: "hoje", decimal: "," },
            ja: { dir: "ltr", locale: "ja_JP", word: "今日", decimal: "." },
            ar: { dir: "rtl", locale: "ar_AR", word: "اليوم", decimal: "." }
          } as const
          const etags = new Set<string>()
          for (const [lang, want] of Object.entries(expected)) {
            const region = lang === "pt" ? "pt-BR" : lang
            for (const [i, page] of [
              yield* get(`/?${lisbon}`, { "accept-language": `nl;q=1, ${region};q=0.9, en;q=0.5` }),
              yield* get(`/?${lisbon}&lang=${lang}`, { "accept-language": lang === "de" ? "fr" : "de" })
            ].entries()) {
              const html = text(page)
              expect(html).toMatch(new RegExp(`^<!doctype html>\\s*<html lang="${lang}" dir="${want.dir}">`))
              const { title, metas } = headOf(html)
              expect(title).toContain(want.word)
              expect(metas["og:locale"]).toBe(want.locale)
              expect(metas.description).toMatch(new RegExp(`\\d\\${want.decimal}\\d °C`))
              expect(new URL(metas["og:image"]!).searchParams.get("lang")).toBe(lang)
              expect(page.headers.get("vary")).toMatch(/accept-language/i)
              const alternates = [...html.matchAll(/<link rel="alternate" hreflang="([a-z]+)" href="([^"]+)">/g)]
              expect(alternates.map((m) => m[1])).toEqual(Object.keys(expected))
              for (const m of alternates) expect(unescapeHtml(m[2]!)).toBe(server.url(`/?lat=38.72&lon=-9.14&lang=${m[1]}`))
              if (i === 0) etags.add(page.headers.get("etag")!)
            }
          }
          // One address, asked in seven languages: seven ETags.
          expect(etags.size).toBe(7)
          // A language not offered is English.
          expect(text(yield* get(`/?${lisbon}&lang=xx`, { "accept-language": "nl" }))).toMatch(/<html lang="en" dir="ltr">/)
        }))

      it.effect("the page's ETag follows its head: 304 on a match, another for another head, and a new one when the place is labeled", () =>
        Effect.gen(function* () {
          const { geocoder } = yield* World
          const plain = yield* get("/")
          const held = yield* get(`/?${lisbon}`)
          const named = yield* get(`/?${lisbon}&name=Lisbon`)
          const etags = [plain, held, named].map((a) => a.headers.get("etag"))
          expect(new Set(etags).size).toBe(3)
          expect((yield* get(`/?${lisbon}`)).headers.get("etag")).toBe(etags[1])
          for (const header of [etags[1]!, `"x", ${etags[1]}`]) {
            const revalidated = yield* get(`/?${lisbon}`, { "if-none-match": header })
            expect(revalidated.status).toBe(304)
            expect(revalidated.bytes.byteLength).toBe(0)
            expect(revalidated.headers.get("etag")).toBe(etags[1])
          }
          expect((yield* get(`/?${lisbon}&name=Lisbon`, { "if-none-match": etags[1]! })).status).toBe(200)
          // A cell loaded while the geocoder fails shows its coordinates; labeled later, its head changes.
          geocoder.failing.add("52.50,13.50")
          expect((yield* get("/api/v2/grade?lat=52.52&lon=13.40")).status).toBe(200)
          const unlabeled = yield* get("/?lat=52.52&lon=13.40")
          expect(headOf(text(unlabeled)).title).toMatch(/^52\.50°N 13\.50°E today: /)
          geocoder.failing.delete("52.50,13.50")
          geocoder.addresses.set("52.50,13.50", { city: "Berlin", country_code: "de" })
          for (let i = 0; i < 50 && !/"Berlin, DE"/.test(text(yield* get("/api/v2/grade?lat=52.52&lon=13.40"))); i++) {
            yield* Effect.sleep("100 millis")
          }
          const labeled = yield* get("/?lat=52.52&lon=13.40", { "if-none-match": unlabeled.headers.get("etag")! })
          expect(labeled.status).toBe(200)
          expect(headOf(text(labeled)).title).toMatch(/^Berlin, DE today: /)
          expect(labeled.headers.get("etag")).not.toBe(unlabeled.headers.get("etag"))
        }))

      it.effect("a hostile name is text: escaped in every value, read back whole by a browser, nothing injected", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const browser = yield* Chromium.Chromium
          const hostile = `</title><script>alert(1)</script>"><img src=x onerror=alert(2)>&amp; 'Lisbon'`
          const url = `/?${lisbon}&name=${encodeURIComponent(hostile)}`
          const page = yield* get(url)
          const html = text(page)
          expect(html).not.toContain("<script>alert")
          expect(html).not.toContain("<img")
          const { title, titles, metas } = headOf(html)
          expect(titles).toBe(1)
          expect(title.startsWith(`${hostile} today: `)).toBe(true)
          expect(metas["og:title"]!.startsWith(`${hostile} today: `)).toBe(true)
          expect(metas.description).toContain(`${hostile} (Lisboa, PT)`)
          expect(new URL(metas["og:url"]!).searchParams.get("name")).toBe(hostile)
          const { page: tab, log } = yield* Chromium.scopedPage(browser)
          const seen = yield* Effect.promise(async () => {
            const dialogs: Array<string> = []
            tab.on("dialog", (d) => {
              dialogs.push(d.message())
              void d.dismiss()
            })
            await tab.goto(server.url(url))
            return {
              dialogs,
              title: await tab.title(),
              ogTitle: await tab.locator('meta[property="og:title"]').getAttribute("content"),
              scripts: await tab.locator("script").count(),
              images: await tab.locator("img").count()
            }
          })
          expect(seen.dialogs).toEqual([])
          expect(seen.title).toBe(title)
          expect(seen.ogTitle).toBe(metas["og:title"])
          expect(seen.scripts).toBe(1)
          expect(seen.images).toBe(0)
          // The page ran its own script only (its one 404 is the browser's favicon.ico).
          expect(log.errors.filter((e) => !e.includes("404"))).toEqual([])
        }).pipe(Effect.scoped))
    })
  })
}

describe("shared links behind a public origin and a base path", () => {
  layer(
    Layer.unwrapScoped(
      Effect.gen(function* () {
        const weather = yield* FakeOpenMeteo.make
        const geocoder = yield* FakeNominatim.make
        const env = {
          ...FakeEnv.upstreams(weather, geocoder),
          HISTORY_START: "1980-01-01",
          PUBLIC_ORIGIN: "https://grades.example.org",
          BASE_PATH: "/climate"
        }
        return testServerLayer(env, backends[0]!.layer, { siteDirectory: yield* scopedSite })
      })
    ),
    { timeout: 120_000 }
  )((it) => {
    it.effect("og:url and og:image are made from PUBLIC_ORIGIN and BASE_PATH, whatever Host the client sends", () =>
      Effect.gen(function* () {
        expect((yield* get(`/climate/api/v2/cell?${lisbon}`)).status).toBe(200)
        const { metas } = headOf(text(yield* get(`/climate/?${lisbon}`, { host: "evil.example" })))
        expect(metas["og:url"]).toBe("https://grades.example.org/climate/?lat=38.72&lon=-9.14")
        expect(metas["og:image"]).toBe("https://grades.example.org/climate/api/v2/card.png?lat=38.75&lon=-9.25&lang=en")
        expect((yield* get("/climate/api/v2/card.png?lat=38.75&lon=-9.25")).status).toBe(200)
      }))
  })
})

for (const backend of backends) {
  describe(`a demo's card on ${backend.name}`, () => {
    it.effect(
      "a demo server's card.png is stamped: another picture and another ETag than a real server's for the same weather",
      () =>
        Effect.gen(function* () {
          const weather = yield* FakeOpenMeteo.make
          const geocoder = yield* FakeNominatim.make
          geocoder.addresses.set("38.75,-9.25", { city: "Lisboa", country: "Portugal", country_code: "pt" })
          const env = { ...FakeEnv.upstreams(weather, geocoder), HISTORY_START: "1980-01-01" }
          const siteDirectory = yield* scopedSite
          // Two services over the same fake weather, each on a database of its own: one a demo.
          const serverOf = (extra: Record<string, string>) =>
            Effect.map(Layer.build(testServerLayer({ ...env, ...extra }, backend.layer, { siteDirectory })), Context.get(TestServer))
          const [real, demo] = [yield* serverOf({}), yield* serverOf({ DEMO_DATA: "on" })]
          const fetchFrom = (server: Context.Tag.Service<TestServer>, path: string, headers: Record<string, string> = {}) =>
            Effect.promise(async (): Promise<Answer> => {
              const response = await fetch(server.url(path), { headers })
              return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
            })
          const cells = [yield* fetchFrom(real, `/api/v2/cell?${lisbon}`), yield* fetchFrom(demo, `/api/v2/cell?${lisbon}`)]
          expect(cells.map((c) => c.status)).toEqual([200, 200])
          // The same grades on both: whatever differs in the card is the demo's doing.
          const grades = [yield* fetchFrom(real, `/api/v2/grade?${lisbon}`), yield* fetchFrom(demo, `/api/v2/grade?${lisbon}`)].map(
            (answer) => JSON.parse(text(answer)) as { date: string; cell: unknown; variables: unknown }
          )
          expect([grades[1]!.date, grades[1]!.cell, grades[1]!.variables]).toEqual([grades[0]!.date, grades[0]!.cell, grades[0]!.variables])
          const realCard = yield* fetchFrom(real, `/api/v2/card.png?${lisbon}`)
          const demoCard = yield* fetchFrom(demo, `/api/v2/card.png?${lisbon}`)
          expect([realCard.status, demoCard.status]).toEqual([200, 200])
          expect(decodePng(demoCard.bytes)).toEqual({ width: 1200, height: 630 })
          expect(Buffer.from(demoCard.bytes).equals(Buffer.from(realCard.bytes))).toBe(false)
          const etag = demoCard.headers.get("etag")!
          expect(etag).not.toBe(realCard.headers.get("etag"))
          expect((yield* fetchFrom(demo, `/api/v2/card.png?${lisbon}`, { "if-none-match": etag })).status).toBe(304)
          // A real card's tag does not revalidate the demo's picture.
          expect((yield* fetchFrom(demo, `/api/v2/card.png?${lisbon}`, { "if-none-match": realCard.headers.get("etag")! })).status).toBe(200)
          // The shared head points at that card and says it is a demo before anyone opens it.
          const { title, metas } = headOf(text(yield* fetchFrom(demo, `/?${lisbon}`)))
          expect(title).toMatch(/^Demo data, not real weather — /)
          expect(metas["og:image"]).toBe(demo.url("/api/v2/card.png?lat=38.75&lon=-9.25&lang=en"))
        }).pipe(Effect.scoped),
      120_000
    )
  })
}
