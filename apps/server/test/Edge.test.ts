/**
 * The HTTP edge: the one front door, bounded requests, Node's parser errors as
 * JSON, the security headers on every answer (the response index's fast path included),
 * undecodable requests in plain words, the access log and `/metrics` — over real HTTP and raw
 * sockets on loopback, on PGlite and PostgreSQL.
 */
import { createHash } from "node:crypto"
import { request as httpRequest, type IncomingHttpHeaders } from "node:http"
import { connect } from "node:net"
import { describe, expect, layer } from "@effect/vitest"
import { PasswordHasher, Users } from "@climate-grade/core"
import { backends, Chromium, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { sampleValue } from "./support/Prometheus.js"

const world = (backend: (typeof backends)[number], extraEnv: Record<string, string> = {}, logs?: Array<string>) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      const env = {
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: "1980-01-01",
        ...extraEnv
      }
      return Layer.merge(testServerLayer(env, backend.layer, logs === undefined ? {} : { logs }), backend.layer)
    })
  )

interface Answer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly text: string
}

/** node:http, so every header is seen as sent and a body can be streamed without a length. */
const send = (
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Array<string> } = {}
) =>
  Effect.promise(
    () =>
      new Promise<Answer>((done, fail) => {
        const req = httpRequest(url, { method: options.method ?? "GET", headers: options.headers ?? {} }, (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (c: Buffer) => chunks.push(c))
          res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }))
        })
        req.on("error", fail)
        const body = options.body
        if (Array.isArray(body)) for (const chunk of body) req.write(chunk)
        else if (body !== undefined) req.write(body)
        req.end()
      })
  )

/** Raw bytes to the server, everything it answers until it closes the connection. */
const raw = (origin: string, bytes: string) =>
  Effect.promise(
    () =>
      new Promise<{ status: number; head: string; body: string }>((done, fail) => {
        const { hostname, port } = new URL(origin)
        const socket = connect(Number(port), hostname, () => socket.write(bytes))
        const chunks: Array<Buffer> = []
        socket.on("data", (c: Buffer) => chunks.push(c))
        socket.on("error", fail)
        socket.on("close", () => {
          const text = Buffer.concat(chunks).toString()
          const split = text.indexOf("\r\n\r\n")
          const head = split < 0 ? text : text.slice(0, split)
          done({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), head, body: split < 0 ? "" : text.slice(split + 4) })
        })
      })
  )

const detailOf = (answer: { readonly text?: string; readonly body?: string }) =>
  (JSON.parse(answer.text ?? answer.body ?? "") as { detail: unknown }).detail

const expectSecurityHeaders = (label: string, headers: IncomingHttpHeaders) => {
  expect([label, headers["x-content-type-options"]]).toEqual([label, "nosniff"])
  expect([label, headers["referrer-policy"]]).toEqual([label, "same-origin"])
  expect([label, headers["content-security-policy"]]).toEqual([label, expect.stringContaining("frame-ancestors 'none'")])
}

/** A data answer's 304: its caching headers and the request id, nothing about security or the body. */
const expectBareNotModified = (label: string, headers: IncomingHttpHeaders) => {
  const { connection, date, "keep-alive": keepAlive, ...rest } = headers
  expect([label, Object.keys(rest).sort()]).toEqual([label, ["cache-control", "etag", "vary", "x-request-id"]])
}

const createUser = (email: string, password: string) =>
  Effect.gen(function* () {
    const users = yield* Users
    const hasher = yield* PasswordHasher
    return yield* users.create({
      email,
      hashedPassword: yield* hasher.hash(password),
      isActive: true,
      isSuperuser: false,
      isVerified: true,
      oauthOnly: false
    })
  })

const json = { "content-type": "application/json" }

let cells = 0
const freshCell = () => {
  cells++
  return `lat=${(-50 + cells * 1.5 + 0.1).toFixed(2)}&lon=${(100 + cells * 2.25).toFixed(2)}`
}

for (const backend of backends) {
  describe(`HTTP edge on ${backend.name}`, () => {
    layer(world(backend), { timeout: 120_000 })((it) => {
      it.effect("every answer carries nosniff, Referrer-Policy and a CSP: API, errors, docs, and the response index's fast path; a data answer's 304 none", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          for (const path of ["/api/v2/health", "/api/v2/nope", "/api/v2/users/me", "/api/v2/openapi.json", "/api/v2/docs"]) {
            expectSecurityHeaders(path, (yield* send(server.url(path))).headers)
          }
          const url = server.url(`/api/v2/grade?${freshCell()}`)
          const metricsBefore = (yield* send(server.url("/metrics"), { headers: { ...server.metricsHeaders } })).text
          const built = yield* send(url)
          expect(built.status).toBe(200)
          expectSecurityHeaders("built", built.headers)
          // The same request again, and a revalidation: both answered by the index, before the app.
          const replay = yield* send(url)
          const revalidated = yield* send(url, { headers: { "if-none-match": String(built.headers.etag) } })
          expect([replay.status, revalidated.status]).toEqual([200, 304])
          expectSecurityHeaders("replay from the index", replay.headers)
          // A 304 of a data answer says only that the stored answer holds (RFC 9110 §15.4.5), from the index or the app.
          expectBareNotModified("304 from the index", revalidated.headers)
          const [lat, lon] = url.split("?")[1]!.split("&")
          const fromApp = yield* send(server.url(`/api/v2/grade?${lon}&${lat}`), { headers: { "if-none-match": String(built.headers.etag) } })
          expect(fromApp.status).toBe(304)
          expectBareNotModified("304 from the app", fromApp.headers)
          const metricsAfter = (yield* send(server.url("/metrics"), { headers: { ...server.metricsHeaders } })).text
          const indexHits = (text: string) => sampleValue(text, 'http_cache_answers_total{tier="index"}')
          expect(indexHits(metricsAfter) - indexHits(metricsBefore)).toBe(2)
        }))

      it.effect("the docs page's CSP admits its own inline script and style sheet by hash; nothing else has an inline allowance", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const docs = yield* send(server.url("/api/v2/docs"))
          const policy = String(docs.headers["content-security-policy"])
          const directive = (name: string) => policy.split(";").map((d) => d.trim()).find((d) => d.startsWith(`${name} `))!
          const hash = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`
          const inline = (tag: string) => [...docs.text.matchAll(new RegExp(`<${tag}(\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, "g"))]
          expect(inline("script").length).toBeGreaterThan(0)
          expect(inline("style").length).toBe(1)
          expect(directive("script-src")).toBe(`script-src 'self' ${inline("script").map((m) => hash(m[2]!)).join(" ")}`)
          expect(directive("style-src")).toBe(`style-src 'self' ${hash(inline("style")[0]![2]!)}`)
          expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/)
          // Its 304 restates the policy (a browser updates the stored page's headers from it).
          const again = yield* send(server.url("/api/v2/docs"), { headers: { "if-none-match": String(docs.headers.etag) } })
          expect(again.status).toBe(304)
          expect(again.headers["content-security-policy"]).toBe(policy)
          // Every other answer gets the site's policy: scripts from files only.
          const health = yield* send(server.url("/api/v2/health"))
          expect(health.headers["content-security-policy"]).toMatch(/script-src 'self';/)
          expect(health.headers["content-security-policy"]).not.toMatch(/unsafe-inline|nonce-|sha256-/)
        }))

      it.effect("auth answers and /users/me are Cache-Control: no-store; data answers revalidate in browsers, shared caches may hold them 10 s", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* createUser("nostore@example.org", "correct horse")
          const login = yield* send(server.url("/api/v2/auth/login"), {
            method: "POST",
            headers: json,
            body: JSON.stringify({ email: "nostore@example.org", password: "correct horse" })
          })
          expect(login.status).toBe(204)
          const cookie = String(login.headers["set-cookie"]).split(";")[0]!
          const answers: Array<[string, Answer]> = [
            ["login", login],
            ["bad login", yield* send(server.url("/api/v2/auth/login"), { method: "POST", headers: json, body: "{}" })],
            ["me", yield* send(server.url("/api/v2/users/me"), { headers: { cookie } })],
            ["me 401", yield* send(server.url("/api/v2/users/me"))],
            ["oauth config", yield* send(server.url("/api/v2/oauth/config"))],
            ["login start", yield* send(server.url("/api/v2/oauth/chat/login/start"))],
            ["callback", yield* send(server.url("/api/v2/oauth/chat/callback?code=x&state=y"))],
            ["unlink", yield* send(server.url("/api/v2/oauth/idp/unlink"), { method: "POST", headers: { cookie } })],
            ["dm", yield* send(server.url("/api/v2/chat/dm"), { method: "POST", headers: { cookie } })],
            ["logout", yield* send(server.url("/api/v2/auth/logout"), { method: "POST", headers: { cookie } })]
          ]
          for (const [label, answer] of answers) expect([label, answer.headers["cache-control"]]).toEqual([label, "no-store"])
          expect((yield* send(server.url(`/api/v2/grade?${freshCell()}`))).headers["cache-control"]).toBe("max-age=0, s-maxage=10")
        }))

      it.effect("every authenticated route of the OpenAPI document answers Cache-Control: no-store, signed in or not", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* createUser("walker@example.org", "correct horse")
          const login = yield* send(server.url("/api/v2/auth/login"), {
            method: "POST",
            headers: json,
            body: JSON.stringify({ email: "walker@example.org", password: "correct horse" })
          })
          const cookie = String(login.headers["set-cookie"]).split(";")[0]!
          const document = JSON.parse((yield* send(server.url("/api/v2/openapi.json"))).text) as {
            paths: Record<string, Record<string, { security?: ReadonlyArray<unknown> }>>
          }
          const walked: Array<string> = []
          for (const [path, item] of Object.entries(document.paths)) {
            for (const [method, operation] of Object.entries(item)) {
              if ((operation.security ?? []).length === 0) continue
              const url = server.url(path.replace(/\{[^}]+\}/g, "00000000-0000-0000-0000-000000000000"))
              for (const headers of [{ cookie, ...json }, json]) {
                const answer = yield* send(url, { method: method.toUpperCase(), headers, ...(method === "post" ? { body: "{}" } : {}) })
                const label = `${method} ${path} ${"cookie" in headers ? "signed in" : "anonymous"} → ${answer.status}`
                expect([label, answer.headers["cache-control"]]).toEqual([label, "no-store"])
              }
              walked.push(`${method} ${path}`)
            }
          }
          // The walk reached the account's and the alerts' routes, not an empty list.
          expect(walked).toEqual(
            expect.arrayContaining(["get /api/v2/users/me", "get /api/v2/alerts/watches", "get /api/v2/alerts/sent", "delete /api/v2/alerts/watches/{id}"])
          )
        }))

      it.effect("Strict-Transport-Security only when the request came over https: a client's X-Forwarded-Proto does not say so", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          expect((yield* send(server.url("/api/v2/health"))).headers["strict-transport-security"]).toBeUndefined()
          // No trusted proxy here (TRUSTED_PROXY_HOPS=0): behind one, SignIn.test shows HSTS sent.
          const forged = yield* send(server.url("/api/v2/health"), { headers: { "x-forwarded-proto": "https" } })
          expect(forged.headers["strict-transport-security"]).toBeUndefined()
        }))

      it.effect("JSON bodies over 64 KB are 413, by Content-Length before reading and by count when streamed", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const big = JSON.stringify({ email: "a@b.c", password: "x".repeat(70 * 1024) })
          const declared = yield* send(server.url("/api/v2/auth/login"), { method: "POST", headers: json, body: big })
          expect(declared.status).toBe(413)
          expect(detailOf(declared)).toMatch(/larger than 65536 bytes/)
          // Chunked: no length up front, counted as it arrives.
          const chunks = Array.from({ length: 40 }, () => "x".repeat(2048))
          const streamed = yield* send(server.url("/api/v2/chat/dm"), {
            method: "POST",
            headers: { ...json, "transfer-encoding": "chunked" },
            body: ['{"pad":"', ...chunks, '"}']
          })
          expect(streamed.status).toBe(413)
          expect(detailOf(streamed)).toMatch(/larger than 65536 bytes/)
          // Just under the limit is read and decoded as usual.
          const under = yield* send(server.url("/api/v2/auth/login"), {
            method: "POST",
            headers: json,
            body: JSON.stringify({ email: "a@b.c", password: "x".repeat(60 * 1024) })
          })
          expect(under.status).toBe(400)
          expect(detailOf(under)).toBe("LOGIN_BAD_CREDENTIALS")
        }))

      it.effect("only application/json bodies: forms, multipart (well-formed or not) and text are 415, nothing parsed", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const cases: ReadonlyArray<[string, string]> = [
            ["application/x-www-form-urlencoded", "email=a%40b.c&password=x"],
            ["multipart/form-data; boundary=xx", '--xx\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.c\r\n--xx--\r\n'],
            ["multipart/form-data; boundary=xx", "garbage that is no multipart at all"],
            ["multipart/form-data", "--"],
            ["text/plain", '{"email":"a@b.c","password":"x"}']
          ]
          for (const [type, body] of cases) {
            const answer = yield* send(server.url("/api/v2/auth/login"), { method: "POST", headers: { "content-type": type }, body })
            expect([type, answer.status]).toEqual([type, 415])
            expect(detailOf(answer)).toMatch(/must be JSON/)
          }
          const untyped = yield* send(server.url("/api/v2/chat/dm"), { method: "POST", body: '{"enabled":true}' })
          expect(untyped.status).toBe(415)
          // A charset parameter is still JSON.
          const charset = yield* send(server.url("/api/v2/auth/login"), {
            method: "POST",
            headers: { "content-type": "application/json; charset=utf-8" },
            body: JSON.stringify({ email: "a@b.c", password: "x" })
          })
          expect(charset.status).toBe(400)
          expect(detailOf(charset)).toBe("LOGIN_BAD_CREDENTIALS")
        }))

      it.effect("deep nesting (10 KB of '[') and broken JSON are 400 with a detail, never 500", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          for (const [label, body] of [
            ["valid, 5,000 deep", `${"[".repeat(5000)}${"]".repeat(5000)}`],
            ["10 KB of [", "[".repeat(10 * 1024)],
            ["objects 5,000 deep", `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`],
            ["broken", '{"email": '],
            ["an array", "[1,2,3]"]
          ] as const) {
            for (const path of ["/api/v2/auth/login", "/api/v2/chat/dm"]) {
              const answer = yield* send(server.url(path), { method: "POST", headers: json, body })
              const expected = path.endsWith("/dm") && label === "an array" ? 401 : 400
              expect([label, path, answer.status]).toEqual([label, path, expected])
              expect(typeof detailOf(answer)).toBe("string")
            }
          }
        }))

      it.effect("undecodable requests name the field in plain words", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const cases: ReadonlyArray<[unknown, string]> = [
            [{}, "email: is missing"],
            [{ email: "a@b.c" }, "password: is missing"],
            [{ email: 5, password: "x" }, "email: expected a string, got 5"],
            [[1, 2], "body: expected an object, got [1,2]"]
          ]
          for (const [body, detail] of cases) {
            const answer = yield* send(server.url("/api/v2/auth/login"), { method: "POST", headers: json, body: JSON.stringify(body) })
            expect(answer.status).toBe(400)
            expect(JSON.parse(answer.text)).toEqual({ detail, code: "invalid-body" })
          }
        }))

      it.effect("Node's parser errors and CONNECT are answered with a JSON {detail}", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const cases: ReadonlyArray<[string, string, number]> = [
            ["bad request line", "GARBAGE\r\n\r\n", 400],
            ["bad version", "GET / HTTP/9.9\r\nHost: x\r\n\r\n", 400],
            ["headers over the limit", `GET /api/v2/health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 431],
            ["bad content-length", "POST /api/v2/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400],
            ["CONNECT", "CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n", 405]
          ]
          for (const [label, bytes, status] of cases) {
            const answer = yield* raw(server.origin, bytes)
            expect([label, answer.status]).toEqual([label, status])
            expect([label, answer.head]).toEqual([label, expect.stringMatching(/content-type: application\/json/i)])
            expect([label, answer.head]).toEqual([label, expect.stringMatching(/x-content-type-options: nosniff/i)])
            expect(typeof detailOf(answer)).toBe("string")
          }
        }))

      it.effect("/metrics: Prometheus text of every Effect metric — requests, latency, cache tiers, upstream calls", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* send(server.url("/api/v2/health"))
          const cell = freshCell()
          yield* send(server.url(`/api/v2/grade?${cell}`))
          const answer = yield* send(server.url("/metrics"), { headers: { ...server.metricsHeaders } })
          expect(answer.status).toBe(200)
          expect(answer.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/)
          const text = answer.text
          expect(text).toContain("# TYPE http_requests_total counter")
          expect(sampleValue(text, 'http_requests_total{method="GET",route="/api/v2/health",status="200"}')).toBeGreaterThan(0)
          expect(text).toContain("# TYPE http_request_duration_seconds histogram")
          expect(text).toMatch(/^http_request_duration_seconds_bucket\{le="\+Inf",route="\/api\/v2\/grade"\} \d+$/m)
          expect(sampleValue(text, 'http_cache_answers_total{tier="built"}')).toBeGreaterThan(0)
          // packages/weather's own metrics, with no wiring here.
          expect(text).toMatch(/^weather_upstream_calls\S* \d+/m)
          // Every in-process cache, in bytes (within its bound) and entries: the grade just built
          // left a record, a grading and an answer held.
          for (const cache of ["records", "gradings", "payloads", "responses"]) {
            const bytes = sampleValue(text, `cache_bytes{cache="${cache}"}`)
            expect([cache, bytes <= sampleValue(text, `cache_max_bytes{cache="${cache}"}`)]).toEqual([cache, true])
            expect([cache, sampleValue(text, `cache_entries{cache="${cache}"}`) >= 0]).toEqual([cache, true])
          }
          for (const cache of ["records", "gradings", "responses"]) {
            expect([cache, sampleValue(text, `cache_bytes{cache="${cache}"}`)]).toEqual([cache, expect.any(Number)])
            expect(sampleValue(text, `cache_bytes{cache="${cache}"}`)).toBeGreaterThan(0)
          }
          // Only to a bearer of the token, whoever seems to ask: a direct loopback client without it is refused.
          const bare = yield* send(server.url("/metrics"))
          expect(bare.status).toBe(401)
          expect(bare.headers["www-authenticate"]).toBe('Bearer realm="metrics"')
          expect(detailOf(bare)).toMatch(/METRICS_TOKEN/)
        }))
    })
  })

  describe(`an https deployment under BASE_PATH on ${backend.name}`, () => {
    layer(world(backend, { PUBLIC_ORIGIN: "https://grades.example.org", BASE_PATH: "/grades" }), {
      timeout: 120_000
    })((it) => {
      it.effect("cookies are Secure and HSTS is sent whatever the client's headers say; /metrics sits under BASE_PATH", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          yield* createUser("https@example.org", "correct horse")
          for (const headers of [{}, { "x-forwarded-proto": "http" }]) {
            const login = yield* send(server.url("/grades/api/v2/auth/login"), {
              method: "POST",
              headers: { ...json, ...headers },
              body: JSON.stringify({ email: "https@example.org", password: "correct horse" })
            })
            expect(login.status).toBe(204)
            expect(String(login.headers["set-cookie"])).toMatch(/; Secure/)
            expect(login.headers["strict-transport-security"]).toMatch(/^max-age=/)
            expect(login.headers["cache-control"]).toBe("no-store")
          }
          const start = yield* send(server.url("/grades/api/v2/oauth/chat/login/start"))
          expect(start.headers["cache-control"]).toBe("no-store")
          const metrics = yield* send(server.url("/grades/metrics"), {
            headers: { "x-forwarded-for": "203.0.113.9", ...server.metricsHeaders }
          })
          expect(metrics.status).toBe(200)
          expect(metrics.text).toContain("http_requests_total")
        }))
    })
  })
}

interface AccessLine {
  readonly access: true
  readonly method: string
  readonly path: string
  readonly status: number
  readonly duration_ms: number
  readonly client: string
  readonly request_id: string
  readonly instance: string
}

/** The access lines written since `from` (JSON), once the event loop had a turn to finish the answers. */
const accessLines = (logs: Array<string>, from: number) =>
  Effect.promise(() => new Promise((r) => setTimeout(r, 50))).pipe(
    Effect.as(
      logs
        .slice(from)
        .filter((l) => l.startsWith("{") && l.includes(`"access":true`))
        .map((l) => JSON.parse(l) as AccessLine)
    )
  )

describe("the access log", () => {
  const pglite = backends.find((b) => b.name === "pglite")!
  const logs: Array<string> = []
  layer(world(pglite, { LOG_FORMAT: "json", INSTANCE_ID: "edge-1" }, logs), { timeout: 120_000 })((it) => {
    it.effect("one line per request: method, path without secrets, status, duration, client, request id, instance", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const from = logs.length
        const health = yield* send(server.url("/api/v2/health?probe=1"))
        yield* send(server.url("/api/v2/oauth/chat/callback?code=SECRETCODE&state=SECRETSTATE&lat=1"))
        yield* send(server.url("/api/v2/auth/login"), { method: "POST", headers: { "content-type": "text/plain" }, body: "x" })
        const lines = yield* accessLines(logs, from)
        expect(lines).toHaveLength(3)
        expect(lines[0]).toMatchObject({ method: "GET", status: 200, path: "/api/v2/health?probe=[redacted]" })
        expect(lines[0]!.duration_ms).toBeGreaterThanOrEqual(0)
        expect(lines[0]!.client).toBe("127.0.0.1")
        expect(lines[0]!.instance).toBe("edge-1")
        // The id the line carries is the one the answer echoed.
        expect(health.headers["x-request-id"]).toMatch(/^[A-Za-z0-9_-]{8}-[0-9a-z]+$/)
        expect(lines[0]!.request_id).toBe(health.headers["x-request-id"])
        expect(lines[1]!.path).toContain("lat=1")
        expect(lines[1]!.path).toContain("code=[redacted]")
        expect(lines[1]!.path).toContain("state=[redacted]")
        expect(JSON.stringify(lines)).not.toMatch(/SECRETCODE|SECRETSTATE/)
        expect(lines[2]).toMatchObject({ method: "POST", status: 415 })
        expect(new Set(lines.map((l) => l.request_id)).size).toBe(3)
      }))

    it.effect("answers from the response index are logged and carry their id too", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const url = server.url("/api/v2/grade?lat=52.52&lon=13.41")
        const first = yield* send(url)
        expect(first.status).toBe(200)
        const from = logs.length
        const again = yield* send(url, { headers: { "if-none-match": String(first.headers.etag) } })
        expect(again.status).toBe(304)
        const [line] = yield* accessLines(logs, from)
        expect(line).toMatchObject({ method: "GET", status: 304, path: "/api/v2/grade?lat=52.52&lon=13.41", client: "127.0.0.1" })
        expect(line!.request_id).toBe(again.headers["x-request-id"])
        expect(again.headers["x-request-id"]).not.toBe(first.headers["x-request-id"])
      }))

    it.effect("a client's own X-Request-Id is not trusted (no trusted proxy): replaced, in the answer and the line", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const from = logs.length
        const forged = yield* send(server.url("/api/v2/health"), { headers: { "x-request-id": "forged-by-client" } })
        expect(forged.headers["x-request-id"]).not.toBe("forged-by-client")
        const [line] = yield* accessLines(logs, from)
        expect(line!.request_id).toBe(forged.headers["x-request-id"])
      }))
  })
})

describe("the access log behind a trusted proxy", () => {
  const pglite = backends.find((b) => b.name === "pglite")!
  const logs: Array<string> = []
  layer(world(pglite, { LOG_FORMAT: "json", TRUSTED_PROXY_HOPS: "1" }, logs), { timeout: 120_000 })((it) => {
    it.effect("the proxy's X-Request-Id is kept and echoed when well-formed, replaced when not; the client is the proxy's", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const from = logs.length
        const headers = { "x-forwarded-for": "198.51.100.4, 203.0.113.7" }
        const kept = yield* send(server.url("/api/v2/health"), { headers: { ...headers, "x-request-id": "3f9c2a7e-41b2.proxy:1" } })
        const long = yield* send(server.url("/api/v2/health"), { headers: { ...headers, "x-request-id": "a".repeat(129) } })
        const unsafe = yield* send(server.url("/api/v2/health"), { headers: { ...headers, "x-request-id": `a" b` } })
        expect(kept.headers["x-request-id"]).toBe("3f9c2a7e-41b2.proxy:1")
        expect(long.headers["x-request-id"]).not.toBe("a".repeat(129))
        expect(unsafe.headers["x-request-id"]).not.toBe(`a" b`)
        const lines = yield* accessLines(logs, from)
        expect(lines.map((l) => l.request_id)).toEqual([kept, long, unsafe].map((a) => a.headers["x-request-id"]))
        // The entry the one trusted proxy appended, not the one the client wrote.
        expect(lines.map((l) => l.client)).toEqual(["203.0.113.7", "203.0.113.7", "203.0.113.7"])
      }))
  })
})

describe("ACCESS_LOG=off", () => {
  const pglite = backends.find((b) => b.name === "pglite")!
  const logs: Array<string> = []
  layer(world(pglite, { LOG_FORMAT: "json", ACCESS_LOG: "off" }, logs), { timeout: 120_000 })((it) => {
    it.effect("writes no access line, and still echoes a request id", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const from = logs.length
        const answer = yield* send(server.url("/api/v2/health"))
        expect(answer.status).toBe(200)
        expect(answer.headers["x-request-id"]).toBeDefined()
        // Other log lines still arrive (the capture works); no access line among them.
        yield* send(server.url("/api/v2/oauth/chat/login/start"))
        expect(yield* accessLines(logs, from)).toEqual([])
        expect(logs.length).toBeGreaterThan(0)
      }))
  })
})

describe.skipIf(!Chromium.available())("the docs page in Chromium", () => {
  const pglite = backends.find((b) => b.name === "pglite")!
  layer(Layer.merge(world(pglite), Chromium.layer), { timeout: 120_000 })((it) => {
    it.effect("renders the API reference under its CSP, with no violation", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const browser = yield* Chromium.Chromium
        const { context, log, page } = yield* Effect.promise(() => Chromium.openPage(browser))
        yield* Effect.promise(async () => {
          await page.goto(server.url("/api/v2/docs"), { waitUntil: "load" })
          // The reference is the page itself: the operations, and a link to each from the list.
          await page.getByText("/api/v2/grade").first().waitFor({ timeout: 60_000 })
          await page.getByRole("link", { name: "GET /api/v2/grade" }).click()
          expect(await page.evaluate(() => location.hash)).toBe("#op-data-grade")
          // Its one script: the filter over the operations.
          await page.getByLabel("Filter operations").fill("calendar")
          expect(await page.locator("#op-data-grade").isVisible()).toBe(false)
          expect(await page.locator("#op-data-calendar").isVisible()).toBe(true)
          expect(await page.locator("#tag-auth").isVisible()).toBe(false)
          await page.getByLabel("Filter operations").fill("")
          expect(await page.locator("#op-data-grade").isVisible()).toBe(true)
        })
        expect(Chromium.cspViolations(log)).toEqual([])
        yield* Effect.promise(() => context.close())
      }), 90_000)
  })
})
