/**
 * The OpenAPI document held to the real answers: for every operation it lists,
 * real requests provoke every status the route answers, and the statuses seen are compared with
 * the statuses listed, both ways: nothing answered goes undocumented, nothing documented is
 * never answered.
 *
 * What counts as a route's answer: its handler's, its middleware's (the session, 401; a browser
 * request from another site, 403; the database unreachable, 503 with Retry-After; the database
 * refusing a statement for a reason that is no outage, a damaged table for one, 500; text no query
 * can store in the URL or body, 400) and, for every POST and DELETE, the request-body refusals
 * made before any handler runs (413 over 64 KB, 415 not JSON, 400 not JSON text). Not a route's:
 * what Node's HTTP parser answers on the connection (a malformed request line or header, 400;
 * headers too large, 431; too slow, 408; CONNECT, 405) and unknown paths (404). Nothing a client
 * sends produces the 500.
 *
 * One service on PGlite, with the fakes, whose database a switch can take down: every statement
 * then fails as on a lost server (an `SqlError` without a SQLSTATE), which AppMiddleware answers
 * with 503; or as on a damaged table (SQLSTATE XX001, as PGlite and PostgreSQL report a bad
 * page), which it answers with 500.
 * (DatabaseOutage.test.ts shows the same 503 from a real PostgreSQL behind a failing network.)
 * The slowest answers are the upstream timeouts (archive 30 s, forecast 10 s, geocoder 5 s:
 * docs/api.md "Common rules"), so those requests run in the background while the rest are made.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, layer } from "@effect/vitest"
import { Cell, OAuthLink, PasswordHasher, Sessions, type User, Users, OAuthAccounts, Watches } from "@climate-grade/core"
import { PgliteClient } from "@climate-grade/postgres"
import { backends, FakeChatProvider, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

interface Switch {
  /** `down`: unreachable; `damaged`: every statement refused as a damaged page would be. */
  fault: "down" | "damaged" | undefined
}

/** What PGlite and node-postgres report for a page that fails its checks. */
const damagedPage = () =>
  new SqlError({
    message: "Failed to execute statement",
    cause: Object.assign(new Error('invalid page in block 0 of relation "base/5/16385"'), { code: "XX001", severity: "ERROR" })
  })

class World extends Context.Tag("test/World")<
  World,
  {
    readonly weather: FakeOpenMeteo.FakeOpenMeteo
    readonly geocoder: FakeNominatim.FakeNominatim
    readonly database: Switch
  }
>() {}

/**
 * `database`'s client behind a switch: while down, every statement fails before it reaches the
 * database. A PGlite client stays known as one (the cell store asks: one process, no locks).
 */
const switchable = (database: Layer.Layer<SqlClient.SqlClient>, state: Switch) =>
  Layer.effectContext(
    Effect.gen(function* () {
      const inner = yield* SqlClient.SqlClient
      const embedded = yield* Effect.serviceOption(PgliteClient.PgliteClient)
      const acquirer = Effect.zipRight(
        Effect.suspend(() =>
          state.fault === "down"
            ? Effect.fail(new SqlError({ message: "The database is down (test switch)." }))
            : state.fault === "damaged"
              ? Effect.fail(damagedPage())
              : Effect.void
        ),
        inner.reserve
      )
      const client = yield* SqlClient.make({
        acquirer,
        transactionAcquirer: acquirer,
        compiler: PgClient.makeCompiler(),
        spanAttributes: []
      })
      const context = Context.make(SqlClient.SqlClient, client)
      return Option.match(embedded, {
        onNone: () => context,
        onSome: ({ backup, pglite }) => Context.add(context, PgliteClient.PgliteClient, Object.assign(client, { backup, pglite }))
      })
    })
  ).pipe(Layer.provide(Reactivity.layer), Layer.provide(database))

const pglite = backends.find((b) => b.name === "pglite")!

const world = Layer.unwrapScoped(
  Effect.gen(function* () {
    const weather = yield* FakeOpenMeteo.make
    const geocoder = yield* FakeNominatim.make
    const chat = yield* FakeChatProvider.make()
    const database: Switch = { fault: undefined }
    const env = {
      ...FakeEnv.upstreams(weather, geocoder),
      ...FakeEnv.provider("CHAT", chat),
      CHAT_LABEL: "ChatApp",
      HISTORY_START: "1980-01-01",
      // Clients are told apart by x-forwarded-for (cold-cell slots, login attempts).
      TRUSTED_PROXY_HOPS: "1",
      LOGIN_ACCOUNT_FAILURES: "2"
    }
    // The logs are kept, not printed: the database fault is logged at error level by design.
    return Layer.merge(
      testServerLayer(env, switchable(pglite.layer, database), { logs: [] }),
      Layer.succeed(World, { weather, geocoder, database })
    )
  })
)

interface JsonSchema {
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly $ref?: string
  readonly properties?: { readonly code?: { readonly enum?: ReadonlyArray<string> } }
}
interface Response {
  readonly content?: { readonly "application/json"?: { readonly schema: JsonSchema } }
}
interface Document {
  readonly paths: Record<string, Record<string, { readonly responses: Record<string, Response> }>>
  readonly components: { readonly schemas: Record<string, JsonSchema> }
}

/** The codes an error response's schema lists (every member of a union, references followed). */
const codesListed = (document: Document, schema: JsonSchema | undefined): Array<string> => {
  if (schema === undefined) return []
  if (schema.$ref !== undefined) return codesListed(document, document.components.schemas[schema.$ref.split("/").pop()!])
  if (schema.anyOf !== undefined) return schema.anyOf.flatMap((member) => codesListed(document, member))
  return [...(schema.properties?.code?.enum ?? [])]
}

/** "METHOD /template" of every operation, with a matcher for concrete paths. */
const operationsOf = (document: Document) =>
  Object.entries(document.paths).flatMap(([template, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      key: `${method.toUpperCase()} ${template}`,
      method: method.toUpperCase(),
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
      statuses: Object.keys(operation.responses).map(Number),
      responses: operation.responses
    }))
  )

interface Request {
  readonly method?: string
  readonly headers?: Record<string, string>
  readonly body?: string
  /** The client, as the trusted proxy names it. */
  readonly client?: string
}

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** Waits (bounded) until `done` holds. */
const until = (done: () => boolean, what: string) =>
  Effect.promise(async () => {
    const start = Date.now()
    while (!done()) {
      if (Date.now() - start > 10_000) throw new Error(`timed out waiting for ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })

let cellCounter = 0
/** Coordinates in a 0.25° cell no other request has touched. */
const freshCoordinates = () => {
  cellCounter++
  return { lat: -50 + cellCounter * 0.5, lon: -150 + cellCounter * 1.25 }
}
const fresh = () => {
  const { lat, lon } = freshCoordinates()
  return `lat=${lat.toFixed(2)}&lon=${lon.toFixed(2)}`
}

const VIEWS = ["grade", "forecast", "calendar", "day", "cell", "trend", "spells"] as const

describe("the OpenAPI document against the real answers", () => {
  layer(world, { timeout: 180_000 })((it) => {
    it.effect("every operation answers exactly the statuses it lists", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const { weather, geocoder, database } = yield* World
        const document = (yield* Effect.promise(() =>
          fetch(server.url("/api/v2/openapi.json")).then((r) => r.json())
        )) as Document
        const operations = operationsOf(document)
        const observed = new Map<string, Set<number>>(operations.map((o) => [o.key, new Set()]))
        // Answers that break the common rules on the way: an error body that is not {"detail", "code"}
        // (and "retry_at" exactly when Retry-After is sent), a code the operation's document does not
        // list for that status, a 429 or 503 without Retry-After (/health's 503 has none: it is a
        // probe, not a refusal).
        const misfits: Array<string> = []
        const codesSeen = new Set<string>()

        const call = (path: string, request: Request = {}) =>
          Effect.promise(async () => {
            const method = request.method ?? "GET"
            const url = `/api/v2${path}`
            const response = await fetch(server.url(url), {
              method,
              redirect: "manual",
              signal: AbortSignal.timeout(45_000),
              headers: { "x-forwarded-for": request.client ?? "10.0.0.1", ...request.headers },
              ...(request.body === undefined ? {} : { body: request.body })
            })
            const text = await response.text()
            const pathname = new URL(url, "http://x").pathname
            const operation = operations.find((o) => o.method === method && o.pattern.test(pathname))
            if (operation === undefined) throw new Error(`${method} ${pathname} is no operation of the document`)
            observed.get(operation.key)!.add(response.status)
            const at = `${operation.key} ${response.status}`
            if (response.status >= 400) {
              const body: unknown = JSON.parse(text)
              const keys = typeof body === "object" && body !== null ? Object.keys(body) : []
              const { detail, code, retry_at } = body as { detail?: unknown; code?: unknown; retry_at?: unknown }
              const retryAfter = response.headers.get("retry-after")
              const wanted = retryAfter === null ? "detail,code" : "detail,code,retry_at"
              if (keys.join() !== wanted || typeof detail !== "string" || typeof code !== "string") {
                misfits.push(`${at}: body ${text.slice(0, 120)}`)
              } else {
                codesSeen.add(code)
                const listed = codesListed(document, operation.responses[String(response.status)]?.content?.["application/json"]?.schema)
                if (!listed.includes(code)) misfits.push(`${at}: code ${code} not among ${listed.join(", ")}`)
                if (retryAfter !== null) {
                  // retry_at is RFC 3339 and says the moment Retry-After counts to (within its rounding up).
                  const at_ = typeof retry_at === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(retry_at) ? Date.parse(retry_at) : Number.NaN
                  const moment = Date.now() + Number(retryAfter) * 1000
                  if (!(Math.abs(at_ - moment) <= 3_000)) misfits.push(`${at}: retry_at ${String(retry_at)} against Retry-After ${retryAfter}`)
                }
              }
            }
            const refusal = response.status === 429 || (response.status === 503 && operation.key !== "GET /api/v2/health")
            if (refusal && !/^\d+$/.test(response.headers.get("retry-after") ?? "")) misfits.push(`${at}: no Retry-After`)
            return { status: response.status, headers: response.headers, text }
          })
        const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
        const json = { "content-type": "application/json" }
        const watch = (token: string, body: unknown, client?: string) =>
          call("/alerts/watches", {
            method: "POST",
            headers: { ...bearer(token), ...json },
            body: JSON.stringify(body),
            ...(client === undefined ? {} : { client })
          })
        /** The refusals every POST and DELETE gets before its handler: 403, 413, 415, and 400 for a body that is not JSON. */
        const refusals = (path: string, method: "POST" | "DELETE" | "PATCH") =>
          Effect.all([
            call(path, { method, headers: { origin: "https://evil.example" } }),
            call(path, { method, headers: json, body: `{"pad": "${"x".repeat(70_000)}"}` }),
            call(path, { method, headers: { "content-type": "text/plain" }, body: "hello" }),
            call(path, { method, headers: json, body: "{" })
          ])

        // People: a password user, an oauth-only one whose only link is chat, one at the watch limit.
        const users = yield* Users
        const sessions = yield* Sessions
        const hasher = yield* PasswordHasher
        const person = (email: string, oauthOnly = false): Effect.Effect<User> =>
          Effect.flatMap(hasher.hash("a password"), (hashedPassword) =>
            Effect.orDie(users.create({ email, hashedPassword, isActive: true, isSuperuser: false, isVerified: true, oauthOnly }))
          )
        const tokenOf = (user: User) => Effect.map(sessions.issue(user.id), (s) => s.token)
        const alice = yield* person("alice@example.org")
        const olive = yield* person("olive@example.org", true)
        const wendy = yield* person("wendy@example.org")
        yield* Effect.orDie((yield* OAuthAccounts).insert(new OAuthLink({ userId: olive.id, provider: "chat", subject: "olive-chat", email: null })))
        const watches = yield* Watches
        for (let i = 0; i < 20; i++) {
          const [lat, lon] = [10 + i, 20]
          yield* Effect.orDie(watches.upsert(wendy.id, { lat, lon, cell: Cell.fromCoordinates(lat, lon), kinds: ["heat"] }, 20))
        }
        const [aliceToken, oliveToken, wendyToken] = yield* Effect.all([tokenOf(alice), tokenOf(olive), tokenOf(wendy)])

        // Place search first, while nothing else calls the geocoder (its faults are one queue).
        yield* call("/places?q=Berlin")
        yield* call("/places")
        geocoder.faults.push({ status: 500 })
        yield* call("/places?q=failing")
        geocoder.faults.push({ status: 429, retryAfter: "1" })
        yield* call("/places?q=limited")
        yield* sleep(1_100)
        geocoder.faults.push("hang")
        const searches = geocoder.requests.length
        const slowSearch = yield* Effect.fork(call("/places?q=silent"))
        yield* until(() => geocoder.requests.length > searches, "the silent search to reach the geocoder")
        // 429: behind the silent search, one client's three searches wait their turns and a fourth is refused.
        const queuedSearches = yield* Effect.fork(
          Effect.all(
            [1, 2, 3, 4].map((i) => call(`/places?q=queued+${i}`, { client: "10.8.0.1" })),
            { concurrency: "unbounded" }
          )
        )

        // The data views: 200 and 304, 204, 400, 404, 502.
        const held = "lat=48.10&lon=11.60"
        for (const view of VIEWS) {
          const answer = yield* call(`/${view}?${held}`)
          yield* call(`/${view}?${held}`, { headers: { "if-none-match": answer.headers.get("etag") ?? "" } })
          yield* call(`/${view}?lat=abc&lon=1`)
        }
        yield* call(`/cell?${fresh()}&prefetch=1`)
        // The card of the held cell (200, 304), a bad value (400), a cell not held (404).
        const card = yield* call(`/card.png?${held}`)
        yield* call(`/card.png?${held}`, { headers: { "if-none-match": card.headers.get("etag") ?? "" } })
        yield* call("/card.png?lat=abc&lon=1")
        yield* call(`/card.png?${fresh()}`)
        // One client's drawings under way past its limit (two): 429.
        yield* Effect.all(
          [1, 2, 3, 4, 5, 6].map(() => call(`/card.png?${held}&units=imperial`, { client: "10.8.0.2" })),
          { concurrency: "unbounded" }
        )
        const empty = "lat=-33.00&lon=-70.00"
        weather.empty.add("-33.00,-70.00")
        for (const view of VIEWS) yield* call(`/${view}?${empty}`)
        for (const view of VIEWS) {
          weather.faults.archive.push({ status: 500 })
          yield* call(`/${view}?${fresh()}`)
        }

        // 504: a forecast that never answers (a held cell, its forecast not yet fetched) for the
        // views that need it, an archive that never answers for the others. The two cold cells
        // hold both of client 10.3.0.1's slots meanwhile, so its next new cell is 429.
        const warm = fresh()
        yield* call(`/calendar?${warm}`)
        weather.faults.forecast.push("hang")
        const forecasts = weather.requests.forecast.length
        const slowForecast = yield* Effect.fork(
          Effect.all([call(`/grade?${warm}`), call(`/forecast?${warm}`), call(`/spells?${warm}`), call(`/cell?${warm}`)], {
            concurrency: "unbounded"
          })
        )
        yield* until(() => weather.requests.forecast.length > forecasts, "the silent forecast call")
        // A watch of a new place loads it first, so a silent archive is 504 there too.
        weather.faults.archive.push("hang", "hang", "hang")
        const archives = weather.requests.archive.length
        const [cold1, cold2] = [fresh(), fresh()]
        const slowArchive = yield* Effect.fork(
          Effect.all(
            [
              call(`/calendar?${cold1}`, { client: "10.3.0.1" }),
              call(`/day?${cold1}`, { client: "10.3.0.1" }),
              call(`/trend?${cold1}`, { client: "10.3.0.1" }),
              call(`/cell?${cold2}`, { client: "10.3.0.1" }),
              watch(aliceToken, { ...freshCoordinates(), kinds: ["heat"] }, "10.3.0.2")
            ],
            { concurrency: "unbounded" }
          )
        )
        yield* until(() => weather.requests.archive.length >= archives + 3, "the three silent archive calls")
        for (const view of VIEWS) yield* call(`/${view}?${fresh()}`, { client: "10.3.0.1" })
        // A watch of a new place takes a slot like any new place: none left (429).
        yield* watch(aliceToken, { ...freshCoordinates(), kinds: ["heat"] }, "10.3.0.1")
        // A new place's failures (502, 404 without history) are the watch's too.
        weather.faults.archive.push({ status: 500 })
        yield* watch(aliceToken, { ...freshCoordinates(), kinds: ["heat"] }, "10.3.0.3")
        yield* watch(aliceToken, { lat: -33, lon: -70, kinds: ["heat"] }, "10.3.0.3")

        // 503 from the weather source: rate-limited, then waited out by every view (and a new place's watch) for 2 s.
        weather.faults.archive.push({ status: 429, retryAfter: "2" })
        for (const view of VIEWS) yield* call(`/${view}?${fresh()}`, { client: "10.4.0.1" })
        yield* watch(aliceToken, { ...freshCoordinates(), kinds: ["heat"] }, "10.4.0.1")

        // Health and accounts.
        yield* call("/health")
        yield* call("/users/me")
        yield* call("/users/me", { headers: bearer(aliceToken) })
        // How direct messages speak: the units and language kept on the account.
        yield* call("/users/me", { method: "PATCH", headers: json, body: '{"units": "imperial"}' })
        yield* refusals("/users/me", "PATCH")
        yield* call("/users/me", { method: "PATCH", headers: { ...json, ...bearer(aliceToken) }, body: '{"units": "imperial", "lang": "de"}' })
        yield* call("/users/me", { method: "PATCH", headers: { ...json, ...bearer(aliceToken) }, body: '{"units": "kelvin"}' })
        // Leaving: the export, and a deletion (of an account made for it).
        yield* call("/users/me/export")
        yield* call("/users/me/export", { headers: bearer(aliceToken) })
        yield* call("/users/me", { method: "DELETE" })
        yield* refusals("/users/me", "DELETE")
        yield* call("/users/me", { method: "DELETE", headers: bearer(yield* tokenOf(yield* person("leaver@example.org"))) })
        const login = (email: string, password: string, client = "10.5.0.1") =>
          call("/auth/login", { method: "POST", headers: json, body: JSON.stringify({ email, password }), client })
        yield* login("alice@example.org", "a password")
        yield* login("alice@example.org", "wrong")
        yield* login("alice@example.org", "wrong")
        yield* login("alice@example.org", "wrong")
        yield* refusals("/auth/login", "POST")
        yield* call("/auth/logout", { method: "POST", headers: bearer(yield* tokenOf(alice)) })
        yield* refusals("/auth/logout", "POST")

        // Sign-in and linking: the chat provider is configured, idp is not, "nope" is no provider.
        yield* call("/oauth/config")
        for (const start of ["/oauth/chat/link/start", "/chat/link/start"]) {
          yield* call(start)
          yield* call(start, { headers: bearer(aliceToken) })
        }
        yield* call("/oauth/nope/link/start", { headers: bearer(aliceToken) })
        yield* call("/oauth/chat/login/start")
        yield* call("/oauth/nope/login/start")
        yield* call("/chat/login/start")
        yield* call("/oauth/chat/callback")
        yield* call("/oauth/nope/callback")
        yield* call("/chat/link/callback")
        for (const unlink of ["/oauth/chat/unlink", "/chat/unlink"]) {
          yield* call(unlink, { method: "POST" })
          yield* call(unlink, { method: "POST", headers: bearer(aliceToken) })
          yield* call(unlink, { method: "POST", headers: bearer(oliveToken) })
          yield* refusals(unlink, "POST")
        }
        yield* call("/oauth/nope/unlink", { method: "POST", headers: bearer(aliceToken) })
        yield* call("/chat/dm", { method: "POST" })
        yield* call("/chat/dm", { method: "POST", headers: bearer(aliceToken) })
        yield* call("/chat/dm", { method: "POST", headers: { ...bearer(oliveToken), ...json }, body: '{"enabled": "yes"}' })
        yield* call("/chat/dm", { method: "POST", headers: bearer(oliveToken) })
        yield* refusals("/chat/dm", "POST")

        // Alerts; the watched cell is the held one, so its evaluation calls no upstream.
        for (const path of ["/alerts/config", "/alerts/watches", "/alerts/sent"]) {
          yield* call(path)
          yield* call(path, { headers: bearer(aliceToken) })
        }
        const made = yield* watch(aliceToken, { lat: 48.1, lon: 11.6, kinds: ["heat"] })
        yield* watch(aliceToken, { lat: 48.1, lon: 11.6, kinds: ["wet"] })
        yield* watch(aliceToken, { lat: 48.1, lon: 11.6, kinds: [] })
        yield* watch(wendyToken, { lat: 48.1, lon: 11.6, kinds: ["heat"] })
        yield* call("/alerts/watches", { method: "POST", headers: json, body: "{}" })
        yield* refusals("/alerts/watches", "POST")
        const id = (JSON.parse(made.text) as { id: string }).id
        yield* call(`/alerts/watches/${id}`, { method: "DELETE" })
        yield* call(`/alerts/watches/${id}`, { method: "DELETE", headers: bearer(wendyToken) })
        yield* call(`/alerts/watches/${id}`, { method: "DELETE", headers: bearer(aliceToken) })
        yield* refusals(`/alerts/watches/${id}`, "DELETE")

        // A link state (and its binding cookie) made while the database answers, for the callbacks below.
        const linkStates = yield* Effect.forEach(["/oauth/chat/link/start", "/chat/link/start"], (start) =>
          Effect.map(call(start, { headers: bearer(aliceToken) }), (answer) => ({
            state: new URL(answer.headers.get("location") ?? "http://x").searchParams.get("state") ?? "",
            binding: /oauth_tx_chat=([^;]+)/.exec(answer.headers.get("set-cookie") ?? "")?.[1] ?? ""
          }))
        )

        // The timeouts have all run out by now, or will soon.
        yield* Effect.all([Fiber.join(slowSearch), Fiber.join(queuedSearches), Fiber.join(slowForecast), Fiber.join(slowArchive)])

        // The database down, then refusing as a damaged table would: every route that reads it.
        for (const fault of ["down", "damaged"] as const) {
          database.fault = fault
          const session = bearer(aliceToken)
          yield* call("/health")
          yield* call("/users/me", { headers: session })
          yield* call("/users/me", { method: "PATCH", headers: { ...json, ...session }, body: '{"units": "metric"}' })
          yield* call("/users/me/export", { headers: session })
          yield* call("/users/me", { method: "DELETE", headers: session })
          yield* login("alice@example.org", "a password", "10.6.0.1")
          yield* call("/auth/logout", { method: "POST", headers: session })
          for (const path of ["/oauth/chat/link/start", "/oauth/chat/login/start", "/chat/link/start", "/chat/login/start"]) {
            yield* call(path, { headers: session })
          }
          for (const [path, { state, binding }] of [
            ["/oauth/chat/callback", linkStates[0]!],
            ["/chat/link/callback", linkStates[1]!]
          ] as const) {
            yield* call(`${path}?code=a-code&state=${encodeURIComponent(state)}`, {
              headers: { cookie: `session=${aliceToken}; oauth_tx_chat=${binding}` }
            })
          }
          for (const path of ["/oauth/chat/unlink", "/chat/unlink", "/chat/dm"]) yield* call(path, { method: "POST", headers: session })
          for (const view of VIEWS) yield* call(`/${view}?${fresh()}`, { client: "10.7.0.1" })
          yield* call("/places?q=another")
          yield* call(`/card.png?${fresh()}`)
          for (const path of ["/alerts/config", "/alerts/watches", "/alerts/sent"]) yield* call(path, { headers: session })
          yield* watch(aliceToken, { lat: 1, lon: 1, kinds: ["heat"] })
          yield* call(`/alerts/watches/${id}`, { method: "DELETE", headers: session })
          database.fault = undefined
        }

        // Text no query can store, anywhere in the URL: every operation but the sign-in callbacks
        // (whose answer to any bad state is SPEC's redirect) refuses it before anything else.
        for (const operation of operations) {
          const path = operation.key.split(" ")[1]!.replace("{provider}", "chat").replace("{id}", id).slice("/api/v2".length)
          yield* call(`${path}?text=%00`, { method: operation.method, headers: bearer(aliceToken) })
        }

        const sorted = (statuses: Iterable<number>) => [...statuses].sort((a, b) => a - b)
        const seen = Object.fromEntries([...observed].map(([key, statuses]) => [key, sorted(statuses)]))
        const listed = Object.fromEntries(operations.map((o) => [o.key, sorted(o.statuses)]))
        expect(misfits).toEqual([])
        expect(seen).toEqual(listed)
        // The refusals a program most needs to tell apart were all provoked, each with its own code (the
        // day-budget codes are provoked where a budget is spent, in FairUse.test.ts).
        for (const code of ["cold-cells-busy", "rate-limited", "upstream-timeout", "upstream-failed", "no-history", "invalid-query", "invalid-text", "bad-credentials", "unauthorized", "database-unavailable", "database-fault"]) {
          expect(codesSeen, code).toContain(code)
        }
      }), 150_000)
  })
})
