/**
 * Serving the site over plain HTTP (docs/api.md "The site"): pages, assets, the service worker and the
 * manifest from memory with no-cache,
 * an ETag and 304, gzip at 1 KiB and more, the security headers on every answer, an HTML 404 under the site
 * while the API keeps JSON, the BASE_PATH redirect, no traversal, and a missing build said once.
 * A small site written here stands in for the real build, so these rules are tested on their own.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { type IncomingHttpHeaders, request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gunzipSync } from "node:zlib"
import { describe, expect, layer } from "@effect/vitest"
import { backends } from "@climate-grade/testing"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import * as Effect from "effect/Effect"

const MAIN = `<!doctype html><html lang="en"><head><title>Main</title><script type="module" src="assets/app-1234.js"></script></head><body><h1>Main page</h1>${"<p>padding</p>".repeat(100)}</body></html>`
/**
 * The account page as served to an asker of no language: its `<html>` says English, left to right
 * (the plain main page in English is served as built).
 */
const inEnglish = (page: string) => page.replace('<html lang="en">', '<html lang="en" dir="ltr">')
const ACCOUNT = `<!doctype html><html lang="en"><head><title>Account</title></head><body><h1>Account</h1></body></html>`
const SCRIPT = `export const x = ${JSON.stringify("x".repeat(3000))};\n`
const STYLE = "body { margin: 0 }\n"
const WORKER = `self.addEventListener("fetch", () => undefined)\n`
const MANIFEST = `{"name":"Site","start_url":"./","display":"standalone"}\n`
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(2000).fill(7)])

const fixtureSite = () => {
  const dir = mkdtempSync(join(tmpdir(), "site-"))
  mkdirSync(join(dir, "assets", "fonts"), { recursive: true })
  writeFileSync(join(dir, "index.html"), MAIN)
  writeFileSync(join(dir, "alerts.html"), ACCOUNT)
  writeFileSync(join(dir, "assets", "app-1234.js"), SCRIPT)
  writeFileSync(join(dir, "assets", "app.css"), STYLE)
  writeFileSync(join(dir, "assets", "fonts", "logo.png"), PNG)
  writeFileSync(join(dir, "sw.js"), WORKER)
  writeFileSync(join(dir, "manifest.webmanifest"), MANIFEST)
  // Files beside the pages that are not pages are not served.
  writeFileSync(join(dir, "secret.txt"), "not served")
  return dir
}

interface Raw {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

/** A request with the path exactly as given (fetch would normalise `..` away) and no decoding. */
const raw = (origin: string, path: string, headers: Record<string, string> = {}, method = "GET") =>
  Effect.promise(
    () =>
      new Promise<Raw>((done, fail) => {
        const req = request(`${origin}${path}`, { method, headers, path }, (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (c: Buffer) => chunks.push(c))
          res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
        })
        req.on("error", fail)
        req.end()
      })
  )

const expectSecurityHeaders = (headers: IncomingHttpHeaders) => {
  const csp = headers["content-security-policy"] ?? ""
  expect(csp).toMatch(/(^|;\s*)frame-ancestors 'none'(;|$)/)
  expect(csp).toMatch(/(^|;\s*)script-src 'self'(;|$)/)
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|nonce-|sha256-|sha384-|sha512-/)
  // The manifest, the service worker and the icons: the site's own files, and only those.
  expect(csp).toMatch(/(^|;\s*)manifest-src 'self'(;|$)/)
  expect(csp).toMatch(/(^|;\s*)worker-src 'self'(;|$)/)
  expect(csp).toMatch(/(^|;\s*)img-src 'self' data:(;|$)/)
  expect(headers["x-content-type-options"]).toBe("nosniff")
  expect(headers["referrer-policy"]).toBe("same-origin")
}

const backend = backends[0]!

describe("the site at the root", () => {
  layer(testServerLayer({}, backend.layer, { siteDirectory: fixtureSite() }), { timeout: 60_000 })((it) => {
    it.effect("the main page and the account page, with no-cache, an ETag, Vary and the security headers", () =>
      Effect.gen(function* () {
        const { origin } = yield* TestServer
        for (const [path, body] of [
          ["/", MAIN],
          ["/alerts", inEnglish(ACCOUNT)],
          ["/alerts?oauth=linked&provider=chat", inEnglish(ACCOUNT)]
        ] as const) {
          const response = yield* raw(origin, path)
          expect(response.status, path).toBe(200)
          expect(response.headers["content-type"]).toBe("text/html; charset=utf-8")
          expect(response.headers["cache-control"]).toBe("no-cache")
          expect(response.headers.etag).toMatch(/^(W\/)?"[^"]+"$/)
          expect(response.headers.vary).toMatch(/accept-encoding/i)
          expect(response.headers["content-encoding"]).toBeUndefined()
          // The page as built, in the asker's language: English here (no Accept-Language), left to right.
          expect(response.body.toString(), path).toBe(body)
          expectSecurityHeaders(response.headers)
        }
        const main = yield* raw(origin, "/")
        const account = yield* raw(origin, "/alerts")
        expect(main.headers.etag).not.toBe(account.headers.etag)
        // A place's address is the same page with a head of its own (SharedLinks.test.ts says what is in it).
        const place = yield* raw(origin, "/?lat=47.6&lon=-122.3&date=2024-01-05")
        expect(place.status).toBe(200)
        expectSecurityHeaders(place.headers)
        const body = place.body.toString()
        expect(body.slice(body.indexOf("<script"))).toBe(MAIN.slice(MAIN.indexOf("<script")))
        expect(body).toContain('<meta property="og:url"')
      }))

    it.effect("If-None-Match with the ETag (weakly, in a list, or *) answers an empty 304; another tag the page", () =>
      Effect.gen(function* () {
        const { origin } = yield* TestServer
        for (const path of ["/", "/alerts", "/assets/app-1234.js", "/assets/fonts/logo.png"]) {
          const { headers } = yield* raw(origin, path)
          const etag = headers.etag!
          const opaque = etag.replace(/^W\//, "")
          for (const header of [etag, opaque, `W/${opaque}`, `"other", \t${etag}`, "*"]) {
            const response = yield* raw(origin, path, { "if-none-match": header, "accept-encoding": "gzip" })
            expect(response.status, `${path} ${header}`).toBe(304)
            expect(response.body.byteLength).toBe(0)
            expect(response.headers.etag).toBe(etag)
            expect(response.headers["cache-control"]).toBe("no-cache")
            expect(response.headers.vary).toMatch(/accept-encoding/i)
            expect(response.headers["content-type"]).toBeUndefined()
            expect(response.headers["content-encoding"]).toBeUndefined()
            expectSecurityHeaders(response.headers)
          }
          for (const header of ['"other"', "not-a-tag", `${etag}, unquoted`]) {
            expect((yield* raw(origin, path, { "if-none-match": header })).status, header).toBe(200)
          }
        }
      }))

    it.effect("gzip: bodies of 1 KiB and more when admitted, identity when refused, small ones never", () =>
      Effect.gen(function* () {
        const { origin } = yield* TestServer
        const gz = yield* raw(origin, "/assets/app-1234.js", { "accept-encoding": "br, gzip" })
        expect(gz.headers["content-encoding"]).toBe("gzip")
        expect(gz.headers["content-type"]).toBe("text/javascript; charset=utf-8")
        expect(gunzipSync(gz.body).toString()).toBe(SCRIPT)
        const main = yield* raw(origin, "/", { "accept-encoding": "x-gzip" })
        expect(main.headers["content-encoding"]).toBe("gzip")
        expect(gunzipSync(main.body).toString()).toBe(MAIN)
        for (const refusal of ["gzip;q=0", "identity", ""]) {
          const plain = yield* raw(origin, "/assets/app-1234.js", { "accept-encoding": refusal })
          expect(plain.headers["content-encoding"], refusal).toBeUndefined()
          expect(plain.body.toString()).toBe(SCRIPT)
        }
        // One representation's ETag revalidates the other's: it names the content.
        expect((yield* raw(origin, "/assets/app-1234.js", { "if-none-match": gz.headers.etag! })).status).toBe(304)
        const css = yield* raw(origin, "/assets/app.css", { "accept-encoding": "gzip" })
        expect(css.headers["content-encoding"]).toBeUndefined()
        expect(css.headers["content-type"]).toBe("text/css; charset=utf-8")
        expect(css.body.toString()).toBe(STYLE)
        const png = yield* raw(origin, "/assets/fonts/logo.png", { "accept-encoding": "gzip" })
        expect(png.headers["content-type"]).toBe("image/png")
        expect(png.headers["content-encoding"]).toBeUndefined()
        expect(new Uint8Array(png.body)).toEqual(PNG)
        expectSecurityHeaders(png.headers)
      }))

    it.effect("the service worker and the manifest at the site's root, with no-cache and an ETag, and 304", () =>
      Effect.gen(function* () {
        const { origin } = yield* TestServer
        for (const [path, type, body] of [
          ["/sw.js", "text/javascript; charset=utf-8", WORKER],
          ["/manifest.webmanifest", "application/manifest+json", MANIFEST]
        ] as const) {
          const response = yield* raw(origin, path)
          expect(response.status, path).toBe(200)
          expect(response.headers["content-type"]).toBe(type)
          expect(response.headers["cache-control"]).toBe("no-cache")
          expect(response.body.toString()).toBe(body)
          expectSecurityHeaders(response.headers)
          expect((yield* raw(origin, path, { "if-none-match": response.headers.etag! })).status).toBe(304)
        }
      }))

    it.effect("HEAD answers the headers alone", () =>
      Effect.gen(function* () {
        const { origin } = yield* TestServer
        const head = yield* raw(origin, "/", {}, "HEAD")
        expect(head.status).toBe(200)
        expect(head.body.byteLength).toBe(0)
        expect(head.headers.etag).toBe((yield* raw(origin, "/")).headers.etag)
      }))

    it.effect("a path under the site that names no page is a small HTML 404; traversal finds nothing", () =>
      Effect.gen(function* () {
        const { origin } = yield* TestServer
        for (const path of [
          "/nope",
          "/index.html",
          "/alerts.html",
          "/alerts/",
          "/secret.txt",
          "/assets",
          "/assets/",
          "/assets/missing.js",
          "/assets/../secret.txt",
          "/assets/..%2fsecret.txt",
          "/assets/%2e%2e/secret.txt",
          "/assets/fonts/../../secret.txt",
          "/..%2f..%2fetc%2fpasswd",
          "//etc/passwd"
        ]) {
          const response = yield* raw(origin, path)
          expect(response.status, path).toBe(404)
          expect(response.headers["content-type"]).toBe("text/html; charset=utf-8")
          expect(response.body.toString()).toMatch(/<h1>Page not found<\/h1>/)
          expect(response.body.toString()).toMatch(/<a href="\/">/)
          expect(response.body.toString()).not.toMatch(/<script|not served/)
          expectSecurityHeaders(response.headers)
        }
      }))

    it.effect("the API keeps its JSON errors, for /api/v2 and any other version", () =>
      Effect.gen(function* () {
        const { origin } = yield* TestServer
        for (const path of ["/api/v2/nope", "/api/v2", "/api", "/api/v3/health"]) {
          const response = yield* raw(origin, path)
          expect(response.status, path).toBe(404)
          expect(JSON.parse(response.body.toString())).toEqual({ detail: "Not Found", code: "not-found" })
        }
        expect((yield* raw(origin, "/api/v2/health")).status).toBe(200)
      }))

    it.effect("other methods on site paths answer 405 naming GET and HEAD", () =>
      Effect.gen(function* () {
        const { origin } = yield* TestServer
        const response = yield* raw(origin, "/", { "content-type": "application/json" }, "POST")
        expect(response.status).toBe(405)
        expect(response.headers.allow).toBe("GET, HEAD")
        expect(JSON.parse(response.body.toString()).detail).toMatch(/GET and HEAD/)
      }))
  })
})

describe("the site under BASE_PATH", () => {
  layer(testServerLayer({ BASE_PATH: "/climate" }, backend.layer, { siteDirectory: fixtureSite() }), { timeout: 60_000 })(
    (it) => {
      it.effect("serves the pages and assets under the prefix, and redirects the bare prefix to its slash", () =>
        Effect.gen(function* () {
          const { origin } = yield* TestServer
          expect((yield* raw(origin, "/climate/")).body.toString()).toBe(MAIN)
          expect((yield* raw(origin, "/climate/alerts?oauth=linked")).body.toString()).toBe(inEnglish(ACCOUNT))
          expect((yield* raw(origin, "/climate/assets/app-1234.js")).body.toString()).toBe(SCRIPT)
          expect((yield* raw(origin, "/climate/sw.js")).body.toString()).toBe(WORKER)
          expect((yield* raw(origin, "/climate/manifest.webmanifest")).body.toString()).toBe(MANIFEST)
          for (const [path, location] of [
            ["/climate", "/climate/"],
            ["/climate?lat=1&lon=2", "/climate/?lat=1&lon=2"]
          ] as const) {
            const response = yield* raw(origin, path)
            expect(response.status).toBe(308)
            expect(response.headers.location).toBe(location)
          }
          const notFound = yield* raw(origin, "/climate/nope")
          expect(notFound.status).toBe(404)
          expect(notFound.body.toString()).toMatch(/<a href="\/climate\/">/)
          expectSecurityHeaders(notFound.headers)
          // The API under the prefix keeps JSON; outside the prefix nothing is served.
          expect(JSON.parse((yield* raw(origin, "/climate/api/v2/nope")).body.toString())).toEqual({ detail: "Not Found", code: "not-found" })
          expect((yield* raw(origin, "/climate/api/v2/health")).status).toBe(200)
          for (const path of ["/", "/alerts", "/climatex/", "/assets/app-1234.js", "/sw.js"]) {
            expect((yield* raw(origin, path)).status, path).toBe(404)
          }
        }))
    }
  )
})

describe("a server started without the site built", () => {
  const logs: Array<string> = []
  layer(testServerLayer({}, backend.layer, { siteDirectory: join(tmpdir(), "no-such-site-build"), logs }), { timeout: 60_000 })(
    (it) => {
      it.effect("says so once at start-up; site paths answer 503 with a page; the API answers", () =>
        Effect.gen(function* () {
          const { origin } = yield* TestServer
          const said = logs.filter((l) => l.includes("The site is not built"))
          expect(said).toHaveLength(1)
          expect(said[0]).toMatch(/no-such-site-build does not exist/)
          for (const path of ["/", "/alerts", "/assets/app.js"]) {
            const response = yield* raw(origin, path)
            expect(response.status).toBe(503)
            expect(response.body.toString()).toMatch(/The site is not built/)
            expectSecurityHeaders(response.headers)
          }
          expect((yield* raw(origin, "/api/v2/health")).status).toBe(200)
          expect(logs.filter((l) => l.includes("The site is not built"))).toHaveLength(1)
        }))
    }
  )
})
