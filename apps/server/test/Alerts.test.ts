/**
 * Alerts end to end (docs/api.md "Alerts") over real HTTP on loopback: the whole service, fake
 * Open-Meteo and Nominatim servers and a fake chat bot API, on PGlite and PostgreSQL.
 *
 * The service runs on a clock that the test can move forward (real time plus an offset), so an
 * hour can pass in a moment: the forecast goes stale and is refetched by the next evaluation
 * pass, as it would be an hour later in production. The fake Open-Meteo moves with it. Waits are
 * short through the tuning variables (evaluation every 150 ms, retries from 100 ms).
 */
import { HttpServer } from "@effect/platform"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import { describe, expect, layer } from "@effect/vitest"
import { App, AppConfig } from "@climate-grade/server"
import {
  Cell,
  CivilDate,
  OAuthAccounts,
  OAuthLink,
  PasswordHasher,
  Sessions,
  Users,
  Words
} from "@climate-grade/core"
import { backends, FakeChatBot, FakeEnv, FakeNominatim, FakeOpenMeteo, TestDatabase } from "@climate-grade/testing"
import { SqlClient as Sql } from "@effect/sql"
import * as Clock from "effect/Clock"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"

const HOUR = 60 * 60 * 1000

/** How far the service's clock (and the fake weather's) is ahead of real time. Only ever grows. */
const offset = { ms: 0 }
const shiftedNow = () => Date.now() + offset.ms
const real = Clock.make()
const shiftedClock: Clock.Clock = {
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: shiftedNow,
  currentTimeMillis: Effect.sync(shiftedNow),
  unsafeCurrentTimeNanos: () => real.unsafeCurrentTimeNanos() + BigInt(offset.ms) * 1_000_000n,
  currentTimeNanos: Effect.sync(() => real.unsafeCurrentTimeNanos() + BigInt(offset.ms) * 1_000_000n),
  sleep: real.sleep
}

/** Ordinary weather for a forecast: each variable at its seasonal middle, no rain — nothing extreme. */
const calm = (lat: number, day: number) => {
  const season = Math.sin((2 * Math.PI * (day - 110)) / 365.25) * (lat < 0 ? -1 : 1)
  const tmax = Math.round((14 + 10 * season) * 10) / 10
  return { tmax, tmin: Math.round((tmax - 9) * 10) / 10, precip: 0 }
}

class World extends Context.Tag("test/AlertsWorld")<
  World,
  {
    readonly weather: FakeOpenMeteo.FakeOpenMeteo
    readonly bot: FakeChatBot.FakeChatBot
    readonly db: Context.Context<SqlClient.SqlClient | TestDatabase>
    readonly env: Record<string, string>
    /** Extreme forecast values by cell key and day; everything else is calm. */
    readonly extremes: Map<string, Map<number, Partial<ReturnType<typeof calm>>>>
  }
>() {}

const world = (backend: (typeof backends)[number]) =>
  Layer.scoped(
    World,
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      const bot = yield* FakeChatBot.make()
      const db = yield* Layer.build(backend.layer)
      const extremes = new Map<string, Map<number, Partial<ReturnType<typeof calm>>>>()
      weather.now = shiftedNow
      weather.forecastOverride = (lat, lon, day) => ({
        ...calm(lat, day),
        ...extremes.get(Cell.fromCoordinates(lat, lon).key)?.get(day)
      })
      const env = {
        AUTH_SECRET: "an auth secret that is long enough for hmac",
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: "1980-01-01",
        BASE_PATH: "/grades",
        PUBLIC_ORIGIN: "https://grades.example.org",
        CHAT_BOT_TOKEN: bot.token,
        CHAT_API_URL: bot.apiUrl,
        // Test-only tuning: waits short enough for a test.
        ALERT_EVALUATE_EVERY_MS: "150",
        ALERT_RETRY_BASE_MS: "100",
        ALERT_POLL_MS: "100",
        ALERT_SEND_TIMEOUT_MS: "500"
      }
      return { weather, bot, db, env, extremes }
    })
  )

const logging =
  process.env.TEST_LOG === "1"
    ? Layer.merge(Logger.add(Logger.prettyLoggerDefault), Logger.minimumLogLevel(LogLevel.Debug))
    : Logger.minimumLogLevel(LogLevel.Error)

interface Instance {
  readonly url: (path: string) => string
  readonly context: Context.Context<Users | Sessions | OAuthAccounts | PasswordHasher>
  readonly close: Effect.Effect<void>
}

/**
 * One instance of the service on the world's database (or on `database`), with its own caches,
 * fibers and HTTP server; `close` shuts it down as SIGTERM would.
 */
const start = (extraEnv: Record<string, string> = {}, database?: Layer.Layer<SqlClient.SqlClient>) =>
  Effect.gen(function* () {
    const w = yield* World
    const config = yield* AppConfig.appConfig.pipe(
      Effect.withConfigProvider(ConfigProvider.fromJson({ PORT: "0", ...w.env, ...extraEnv })),
      Effect.orDie
    )
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      App.httpLayer(config, database ?? Layer.succeedContext(w.db)).pipe(
        Layer.provide(logging),
        Layer.provide(Layer.setClock(shiftedClock))
      ),
      scope
    ).pipe(Effect.orDie)
    const address = Context.get(context, HttpServer.HttpServer).address as HttpServer.TcpAddress
    const origin = `http://127.0.0.1:${address.port}`
    return {
      url: (path: string) => `${origin}/grades/api/v2${path}`,
      context: context as Context.Context<Users | Sessions | OAuthAccounts | PasswordHasher>,
      // Shut down on the service's clock: the test's own fiber runs on a TestClock that never
      // moves, and shutdown waits on timers.
      close: Effect.withClock(Scope.close(scope, Exit.void), shiftedClock)
    } satisfies Instance
  })

/**
 * Runs `body` with an instance, closed when it ends. (Closed here rather than by the test's
 * scope: closing from the scope's finalizers never completes under @effect/vitest.)
 */
const withInstance = <A, E, R>(body: (instance: Instance) => Effect.Effect<A, E, R>, extraEnv: Record<string, string> = {}) =>
  Effect.flatMap(start(extraEnv), (instance) => Effect.ensuring(body(instance), instance.close))

let counter = 0
/** A password account with chat linked (as the link callback leaves it) and a session token. */
const chatUser = (instance: Instance) =>
  Effect.gen(function* () {
    const n = ++counter
    const chatId = `${Date.now()}${n}`
    const users = Context.get(instance.context, Users)
    const hasher = Context.get(instance.context, PasswordHasher)
    const user = yield* users
      .create({
        email: `alerts-${chatId}@example.org`,
        hashedPassword: yield* hasher.hash("a password"),
        isActive: true,
        isSuperuser: false,
        isVerified: true,
        oauthOnly: false
      })
      .pipe(Effect.orDie)
    yield* Context.get(instance.context, OAuthAccounts)
      .insert(new OAuthLink({ userId: user.id, provider: "chat", subject: chatId, email: null }))
      .pipe(Effect.orDie)
    yield* users.setChat(user.id, { chatId, chatDm: true })
    const { token } = yield* Context.get(instance.context, Sessions).issue(user.id)
    return { user, chatId, token }
  })

/** A place no other test watches (0.25° cells; 2° apart). */
const freshPlace = () => {
  const n = ++counter
  return { lat: Number((-40 + ((n * 2) % 80) + 0.1).toFixed(2)), lon: Number((-150 + n * 2 + 0.05).toFixed(2)) }
}

const call = (url: string, token: string | undefined, init: { method?: string; body?: unknown } = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: init.method ?? "GET",
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(init.body === undefined ? {} : { "content-type": "application/json" })
      },
      ...(init.body === undefined ? {} : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) })
    })
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>) }
  })

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

/** Polls until `done` holds (bounded), returning the last value read. */
const eventually = <A>(read: Effect.Effect<A>, done: (a: A) => boolean, timeoutMs = 15_000) =>
  Effect.gen(function* () {
    const until = Date.now() + timeoutMs
    let value = yield* read
    while (!done(value) && Date.now() < until) {
      yield* sleep(25)
      value = yield* read
    }
    return value
  })

/** The cell's local today (the fake answers in Europe/Berlin), on the service's clock. */
const today = () => CivilDate.todayIn(shiftedNow(), "Europe/Berlin")

const deliveredTo = (bot: FakeChatBot.FakeChatBot, chatId: string) => bot.delivered.filter((d) => d.recipientId === chatId)
const callsFor = (bot: FakeChatBot.FakeChatBot, chatId: string) =>
  bot.calls.filter((c) => c.step === "channel" && (c.body as { recipient_id?: string } | undefined)?.recipient_id === chatId)

/**
 * Watches a fresh place for heat with a calm forecast, waits for its first evaluation (nothing to
 * send), then makes `today + 2` record-hot and lets an hour pass: the next pass refetches.
 */
const watchThenHeat = (instance: Instance, token: string, kinds: ReadonlyArray<string> = ["heat"]) =>
  Effect.gen(function* () {
    const w = yield* World
    const place = freshPlace()
    const cell = Cell.fromCoordinates(place.lat, place.lon)
    const fetched = () => w.weather.requests.forecast.filter((r) => Cell.fromCoordinates(Number(r.query.latitude), Number(r.query.longitude)).key === cell.key).length
    const created = yield* call(instance.url("/alerts/watches"), token, { method: "POST", body: { ...place, kinds } })
    expect(created.status).toBe(201)
    yield* eventually(Effect.sync(fetched), (n) => n >= 1)
    // A few passes over the calm forecast.
    yield* sleep(500)
    const day = today() + 2
    w.extremes.set(cell.key, new Map([[day, { tmax: 60 }]]))
    offset.ms += HOUR + 60_000
    return { place, cell, day, watchId: created.body!.id as string, fetched }
  })

/**
 * A heat wave in the cell's forecast from `from` to `to` (both days in), everything else calm:
 * highs of 40 °C and lows of 28 °C, far past any baseline's 95th percentile here.
 */
const heatWave = (w: Context.Tag.Service<typeof World>, cellKey: string, from: number, to: number) => {
  const days = new Map<number, Partial<ReturnType<typeof calm>>>()
  for (let d = from; d <= to; d++) days.set(d, { tmax: 40, tmin: 28 })
  w.extremes.set(cellKey, days)
}

/** Lets an hour pass and waits for the refetch it causes and a few evaluations after it. */
const evaluateAfterAnHour = (fetched: () => number) =>
  Effect.gen(function* () {
    const before = fetched()
    offset.ms += HOUR + 60_000
    yield* eventually(Effect.sync(fetched), (n) => n >= before + 1)
    yield* sleep(600)
  })

/**
 * As `watchThenHeat`, watching for heat waves: a wave from tomorrow to today + 4 comes into the
 * forecast. Returns that today as `base`: the hour it lets pass (and the tests' later hours) can
 * carry the service's clock past the cell's midnight, so the days that follow are counted from it.
 */
const watchThenWave = (instance: Instance, token: string) =>
  Effect.gen(function* () {
    const w = yield* World
    const place = freshPlace()
    const cell = Cell.fromCoordinates(place.lat, place.lon)
    const fetched = () =>
      w.weather.requests.forecast.filter((r) => Cell.fromCoordinates(Number(r.query.latitude), Number(r.query.longitude)).key === cell.key).length
    const created = yield* call(instance.url("/alerts/watches"), token, { method: "POST", body: { ...place, kinds: ["heatwave"] } })
    expect(created.status).toBe(201)
    yield* eventually(Effect.sync(fetched), (n) => n >= 1)
    yield* sleep(500)
    const base = today()
    heatWave(w, cell.key, base + 1, base + 4)
    offset.ms += HOUR + 60_000
    return { base, place, cell, watchId: created.body!.id as string, fetched }
  })

const sqlOf = Effect.map(World, (w) => Context.get(w.db, Sql.SqlClient))

for (const backend of backends) {
  describe(`alerts on ${backend.name}`, () => {
    layer(world(backend), { timeout: 120_000 })((it) => {
      it.effect("the watch API: 401, 400 with details, 201 then 200 keeping the id, 409 past 20, 404 for another's, 204", () =>
        withInstance((instance) =>
        Effect.gen(function* () {
          const { token } = yield* chatUser(instance)
          const other = yield* chatUser(instance)
          const watches = instance.url("/alerts/watches")

          for (const [method, path] of [["GET", "/alerts/watches"], ["POST", "/alerts/watches"], ["DELETE", "/alerts/watches/x"], ["GET", "/alerts/sent"], ["GET", "/alerts/config"]] as const) {
            const answer = yield* call(instance.url(path), undefined, { method, ...(method === "POST" ? { body: { lat: 1, lon: 1, kinds: ["heat"] } } : {}) })
            expect([method, path, answer.status, answer.body]).toEqual([method, path, 401, { detail: "Unauthorized", code: "unauthorized" }])
          }

          const bad: ReadonlyArray<[unknown, RegExp]> = [
            ["[1, 2]", /JSON object/],
            ["not json", /JSON/],
            [{ lon: 1, kinds: ["heat"] }, /'lat' is required/],
            [{ lat: "47", lon: 1, kinds: ["heat"] }, /'lat' must be a number/],
            [{ lat: 91, lon: 1, kinds: ["heat"] }, /'lat' must be between -90 and 90/],
            [{ lat: 1, lon: -180.5, kinds: ["heat"] }, /'lon' must be between -180 and 180/],
            [{ lat: 1, lon: 1 }, /'kinds' is required/],
            [{ lat: 1, lon: 1, kinds: [] }, /'kinds' is empty/],
            [{ lat: 1, lon: 1, kinds: "heat" }, /'kinds' must be a list/],
            [{ lat: 1, lon: 1, kinds: ["heat", "hot"] }, /Unknown kind "hot"/]
          ]
          for (const [body, detail] of bad) {
            const answer = yield* call(watches, token, { method: "POST", body })
            expect([body, answer.status]).toEqual([body, 400])
            expect(answer.body?.detail).toMatch(detail)
          }
          const empty = yield* call(watches, token, { method: "POST" })
          expect(empty.status).toBe(400)

          const first = yield* call(watches, token, { method: "POST", body: { lat: 52.52, lon: 13.41, kinds: ["wet", "heat", "heat"] } })
          expect(first.status).toBe(201)
          expect(first.body).toEqual({
            id: expect.stringMatching(/^[0-9a-f-]{36}$/),
            lat: 52.52,
            lon: 13.41,
            cell: "52.50,13.50",
            label: expect.any(String),
            kinds: ["heat", "wet"],
            created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/)
          })
          // Same cell, another point in it: kinds replaced, id kept, 200.
          const again = yield* call(watches, token, { method: "POST", body: { lat: 52.45, lon: 13.55, kinds: ["cold"] } })
          expect(again.status).toBe(200)
          expect(again.body).toMatchObject({ id: first.body!.id, cell: "52.50,13.50", kinds: ["cold"] })
          const list = yield* call(watches, token)
          expect(list.status).toBe(200)
          // The label is the place name once the cell's evaluation has looked it up.
          expect(list.body).toEqual({ watches: [{ ...again.body, label: expect.stringMatching(/^(Testville, TL|52\.50°N 13\.50°E)$/) }] })

          // Up to 20 cells; the 21st is refused before its history is asked for, a change of a
          // watched one is not. (Each new cell's history is loaded before it is watched.)
          const w = yield* World
          for (let i = 1; i < 20; i++) {
            const answer = yield* call(watches, token, { method: "POST", body: { lat: -60 + i, lon: 100, kinds: ["cold"] } })
            expect([i, answer.status]).toEqual([i, 201])
          }
          const archives = w.weather.requests.archive.length
          const over = yield* call(watches, token, { method: "POST", body: { lat: 10, lon: 10, kinds: ["cold"] } })
          expect(over.status).toBe(409)
          expect(over.body?.detail).toMatch(/At most 20 watches/)
          expect(w.weather.requests.archive.length).toBe(archives)
          expect((yield* call(watches, token, { method: "POST", body: { lat: 52.5, lon: 13.5, kinds: ["wet"] } })).status).toBe(200)

          // A new cell whose history cannot be loaded makes no watch.
          w.weather.faults.archive.push({ status: 500 })
          const failed = yield* call(watches, other.token, { method: "POST", body: { lat: -5, lon: -5, kinds: ["wet"] } })
          expect(failed.status).toBe(502)
          expect(((yield* call(watches, other.token)).body!.watches as Array<unknown>).length).toBe(0)

          // Another user's watch: 404, and it stays; one's own: 204, twice.
          const theirs = yield* call(watches, other.token, { method: "POST", body: { lat: 0, lon: 0, kinds: ["wet"] } })
          const foreign = yield* call(instance.url(`/alerts/watches/${theirs.body!.id}`), token, { method: "DELETE" })
          expect(foreign).toEqual({ status: 404, body: { detail: "No such watch.", code: "not-found" } })
          expect(((yield* call(watches, other.token)).body!.watches as Array<unknown>).length).toBe(1)
          for (let i = 0; i < 2; i++) {
            expect((yield* call(instance.url(`/alerts/watches/${first.body!.id}`), token, { method: "DELETE" })).status).toBe(204)
          }
          expect((yield* call(instance.url("/alerts/watches/not-a-uuid"), token, { method: "DELETE" })).status).toBe(204)
          expect(((yield* call(watches, token)).body!.watches as Array<unknown>).length).toBe(19)

          const config = yield* call(instance.url("/alerts/config"), token)
          expect(config).toEqual({
            status: 200,
            body: { delivery_configured: true, days_ahead: 3, watch_limit: 20, kinds: ["heat", "cold", "wet", "heatwave", "coldspell"] }
          })
          // Clean up: these cells are evaluated by every later instance otherwise.
          for (const w of (yield* call(watches, token)).body!.watches as Array<{ id: string }>) {
            yield* call(instance.url(`/alerts/watches/${w.id}`), token, { method: "DELETE" })
          }
          yield* call(instance.url(`/alerts/watches/${theirs.body!.id}`), other.token, { method: "DELETE" })
        })))

      it.effect("a forecast turning extreme sends exactly one message with the right text; later evaluations send none", () =>
        withInstance((instance) =>
        Effect.gen(function* () {
          const w = yield* World
          const { chatId, token } = yield* chatUser(instance)
          const { cell, day, fetched, place, watchId } = yield* watchThenHeat(instance, token)
          expect(deliveredTo(w.bot, chatId)).toEqual([])
          const before = fetched()
          const sent = yield* eventually(Effect.sync(() => deliveredTo(w.bot, chatId)), (d) => d.length >= 1)
          expect(sent.length).toBe(1)
          // The hour that passed made the next evaluation refetch the forecast: that call, no other.
          expect(fetched()).toBe(before + 1)
          const date = CivilDate.format(day)
          // The date as the pages write it; a record says no percentile (it is past every other day).
          expect(sent[0]!.content).toBe(
            `Heat alert for Testville, TL on ${Words.longDate(date)}: high temperature 60.0 °C, a record high for this place ` +
              `and time of year. https://grades.example.org/grades/?lat=${place.lat}&lon=${place.lon}&date=${date}`
          )
          const calls = callsFor(w.bot, chatId)
          expect(calls.length).toBe(1)
          expect(calls[0]!.authorization).toBe(`Bot ${w.bot.token}`)

          // More passes, and another hour with the same forecast: nothing more.
          yield* sleep(600)
          offset.ms += HOUR + 60_000
          yield* eventually(Effect.sync(fetched), (n) => n >= before + 2)
          yield* sleep(600)
          expect(deliveredTo(w.bot, chatId).length).toBe(1)

          const recent = yield* call(instance.url("/alerts/sent"), token)
          expect(recent.body).toEqual({
            alerts: [
              {
                id: expect.any(String),
                watch_id: watchId,
                lat: place.lat,
                lon: place.lon,
                label: "Testville, TL",
                date,
                kind: "heat",
                variable: "tmax",
                grade: { value: 60, unit: "°C", percentile: 100, label: "record-high", n: expect.any(Number) },
                content: sent[0]!.content,
                status: "sent",
                created_at: expect.any(String),
                sent_at: expect.any(String)
              }
            ]
          })
          const sql = yield* sqlOf
          const rows = yield* Effect.orDie(sql<{ n: number }>`select count(*)::int as n from alerts where watch_id = ${watchId}`)
          expect(rows[0]!.n).toBe(1)
          expect(cell.key).toBeDefined()
        })))

      it.effect("a 429 is waited out: retry_after in the body, or Retry-After alone", () =>
        withInstance((instance) =>
        Effect.gen(function* () {
          const w = yield* World
          for (const fault of [
            { status: 429, retryAfterSeconds: 0.4 },
            { status: 429, header: "1" }
          ] as const) {
            const { chatId, token } = yield* chatUser(instance)
            w.bot.faultsFor(chatId).channel.push(fault)
            yield* watchThenHeat(instance, token)
            const sent = yield* eventually(Effect.sync(() => deliveredTo(w.bot, chatId)), (d) => d.length >= 1)
            expect(sent.length).toBe(1)
            const calls = callsFor(w.bot, chatId)
            expect(calls.map((c) => c.outcome)).toEqual([429, 200])
            const waited = calls[1]!.at - calls[0]!.at
            expect(waited).toBeGreaterThanOrEqual("retryAfterSeconds" in fault ? 400 : 1000)
          }
        })))

      it.effect("a 500 and a call that hangs are retried with backoff until sent", () =>
        withInstance((instance) =>
        Effect.gen(function* () {
          const w = yield* World
          const { chatId, token } = yield* chatUser(instance)
          w.bot.faultsFor(chatId).message.push({ status: 500 }, "hang", { status: 500 })
          yield* watchThenHeat(instance, token)
          const sent = yield* eventually(Effect.sync(() => deliveredTo(w.bot, chatId)), (d) => d.length >= 1)
          expect(sent.length).toBe(1)
          const messages = w.bot.calls.filter((c) => c.step === "message" && c.path.endsWith(`/dm-${chatId}/messages`))
          expect(messages.map((c) => c.outcome)).toEqual([500, "hang", 500, 200])
          // Backoff: 100, 200, 400 ms after each failure (the hang first took its 500 ms timeout).
          // Only bounds that follow from cause and effect, so that a loaded machine cannot break
          // them: each call arrives at the bot after the sender started it, and the sender starts
          // the next one after it heard the answer (given at arrival) or gave up, plus the wait.
          // A 500's next call is then at least its backoff after its arrival (gaps 0 and 2). The
          // hang's own start is not seen (it may have reached the bot late: 277 ms seen under
          // load), so its timeout and the backoff after it are bounded from the 500 before it:
          // 100 ms of backoff, 500 ms of timeout, 200 ms of backoff. The backoffs are waited out
          // on the wall clock the bot stamps with (Date.now), but the timeout is a timer, which
          // Node may fire up to a millisecond early by that clock.
          const at = messages.map((c) => c.at)
          expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(100)
          expect(at[2]! - at[0]!).toBeGreaterThanOrEqual(100 + (500 - 1) + 200)
          expect(at[3]! - at[2]!).toBeGreaterThanOrEqual(400)
          yield* sleep(400)
          expect(deliveredTo(w.bot, chatId).length).toBe(1)
        })))

      it.effect("muting stops delivery: a muted user's alert is not queued, and a message queued before the mute is dropped", () =>
        withInstance((instance) =>
        Effect.gen(function* () {
          const w = yield* World
          // Muted before the day turns extreme: the alert is recorded, nothing is queued.
          const muted = yield* chatUser(instance)
          expect((yield* call(instance.url("/chat/dm"), muted.token, { method: "POST", body: { enabled: false } })).status).toBe(200)
          yield* watchThenHeat(instance, muted.token)
          const mutedAlerts = yield* eventually(
            Effect.map(call(instance.url("/alerts/sent"), muted.token), (r) => r.body!.alerts as Array<{ status: string }>),
            (a) => a.length >= 1
          )
          expect(mutedAlerts.map((a) => a.status)).toEqual(["muted"])

          // Muted while its message waits out a 429: dropped at send time.
          const late = yield* chatUser(instance)
          w.bot.faultsFor(late.chatId).channel.push({ status: 429, retryAfterSeconds: 1 })
          yield* watchThenHeat(instance, late.token)
          yield* eventually(Effect.sync(() => callsFor(w.bot, late.chatId)), (c) => c.length >= 1)
          expect((yield* call(instance.url("/chat/dm"), late.token, { method: "POST", body: { enabled: false } })).status).toBe(200)
          const lateAlerts = yield* eventually(
            Effect.map(call(instance.url("/alerts/sent"), late.token), (r) => r.body!.alerts as Array<{ status: string }>),
            (a) => a[0]?.status === "dropped"
          )
          expect(lateAlerts.map((a) => a.status)).toEqual(["dropped"])
          yield* sleep(300)
          expect(deliveredTo(w.bot, muted.chatId)).toEqual([])
          expect(deliveredTo(w.bot, late.chatId)).toEqual([])
          expect(callsFor(w.bot, late.chatId).length).toBe(1)
        })))

      it.effect("unlinking chat stops delivery", () =>
        withInstance((instance) =>
        Effect.gen(function* () {
          const w = yield* World
          const { chatId, token } = yield* chatUser(instance)
          w.bot.faultsFor(chatId).channel.push({ status: 429, retryAfterSeconds: 1 })
          yield* watchThenHeat(instance, token)
          yield* eventually(Effect.sync(() => callsFor(w.bot, chatId)), (c) => c.length >= 1)
          expect((yield* call(instance.url("/oauth/chat/unlink"), token, { method: "POST" })).status).toBe(204)
          const alerts = yield* eventually(
            Effect.map(call(instance.url("/alerts/sent"), token), (r) => r.body!.alerts as Array<{ status: string }>),
            (a) => a[0]?.status === "dropped"
          )
          expect(alerts.map((a) => a.status)).toEqual(["dropped"])
          expect(deliveredTo(w.bot, chatId)).toEqual([])

          // Unlinked before the day turns extreme: nothing queued at all.
          const unlinked = yield* chatUser(instance)
          expect((yield* call(instance.url("/chat/unlink"), unlinked.token, { method: "POST" })).status).toBe(204)
          yield* watchThenHeat(instance, unlinked.token)
          const recorded = yield* eventually(
            Effect.map(call(instance.url("/alerts/sent"), unlinked.token), (r) => r.body!.alerts as Array<{ status: string }>),
            (a) => a.length >= 1
          )
          expect(recorded.map((a) => a.status)).toEqual(["muted"])
          expect(callsFor(w.bot, unlinked.chatId)).toEqual([])
        })))

      it.effect("a restart neither loses nor repeats a message", () =>
        Effect.gen(function* () {
          const w = yield* World
          const first = yield* start()
          const { chatId, token } = yield* chatUser(first)
          // The provider fails while the first instance runs; the message waits in the outbox.
          for (let i = 0; i < 50; i++) w.bot.faultsFor(chatId).message.push({ status: 500 })
          const { watchId } = yield* watchThenHeat(first, token)
          yield* eventually(
            Effect.sync(() => w.bot.calls.filter((c) => c.path.endsWith(`/dm-${chatId}/messages`)).length),
            (n) => n >= 2
          )
          yield* first.close
          w.bot.faultsFor(chatId).message.length = 0
          expect(deliveredTo(w.bot, chatId)).toEqual([])

          // The next instance evaluates at start-up (nothing new) and sends what is waiting: once.
          // It sends when the message's backoff ends: 100 ms doubled at each failed attempt, and
          // a loaded machine lets the first instance fail more often before it has closed (seven
          // failures: 6.4 s; nine: 25.6 s).
          const second = yield* start()
          const sent = yield* eventually(Effect.sync(() => deliveredTo(w.bot, chatId)), (d) => d.length >= 1, 60_000)
          expect(sent.length).toBe(1)
          yield* sleep(500)
          yield* second.close

          // And one more restart, an hour later: nothing is sent again.
          offset.ms += HOUR + 60_000
          const third = yield* start()
          yield* sleep(800)
          yield* third.close
          expect(deliveredTo(w.bot, chatId).length).toBe(1)
          const sql = yield* sqlOf
          const rows = yield* Effect.orDie(sql<{ n: number }>`select count(*)::int as n from alerts where watch_id = ${watchId}`)
          expect(rows[0]!.n).toBe(1)
        }), 120_000)

      it.effect.skipIf(backend.name !== "postgres")("two instances on one PostgreSQL create each alert once and send it once", () =>
        withInstance((one) =>
        Effect.gen(function* () {
          const w = yield* World
          const url = Option.getOrThrow(Context.get(w.db, TestDatabase).url)
          const two = yield* start({}, PgClient.layer({ url: Redacted.make(url), maxConnections: 8 }).pipe(Layer.orDie))
          yield* Effect.ensuring(
            Effect.gen(function* () {
          const { chatId, token } = yield* chatUser(one)
          // Both instances watch the same cell's data and both evaluate it (the second via its pass).
          const { watchId } = yield* watchThenHeat(two, token)
          const sent = yield* eventually(Effect.sync(() => deliveredTo(w.bot, chatId)), (d) => d.length >= 1)
          expect(sent.length).toBe(1)
          yield* sleep(1_000)
          expect(deliveredTo(w.bot, chatId).length).toBe(1)
          const sql = yield* sqlOf
          const rows = yield* Effect.orDie(sql<{ n: number }>`select count(*)::int as n from alerts where watch_id = ${watchId}`)
          expect(rows[0]!.n).toBe(1)
          expect(callsFor(w.bot, chatId).length).toBe(1)
            }),
            two.close
          )
        })))

      it.effect("a heat wave the forecast moves makes one message, with its standing; the sent list shows the spell", () =>
        withInstance((instance) =>
        Effect.gen(function* () {
          const w = yield* World
          const { chatId, token } = yield* chatUser(instance)
          const { base, cell, fetched, place, watchId } = yield* watchThenWave(instance, token)
          const first = yield* eventually(Effect.sync(() => deliveredTo(w.bot, chatId)), (d) => d.length >= 1)
          expect(first.length).toBe(1)
          // The spell's first day: the first hot day, or a day or two before when a window reaching
          // into the hot days is hot enough already.
          const start = /date=(\d{4}-\d{2}-\d{2})$/.exec(first[0]!.content)?.[1]
          expect([base - 1, base, base + 1].map(CivilDate.format)).toContain(start)
          expect(first[0]!.content).toMatch(
            new RegExp(
              `^Heat wave alert for Testville, TL: (severe|extreme), from ${Words.longDate(start!)}\\. It would be the hottest heat wave here since 1980 ` +
                `if the forecast holds\\. https://grades\\.example\\.org/grades/\\?lat=${place.lat}&lon=${place.lon}&date=${start}$`
            )
          )
          // The forecast moves the spell: later and longer, earlier and shorter, then a day on.
          for (const [from, to] of [[2, 7], [1, 3], [2, 4]] as const) {
            heatWave(w, cell.key, base + from, base + to)
            yield* evaluateAfterAnHour(fetched)
            expect(deliveredTo(w.bot, chatId).length).toBe(1)
          }
          const recent = yield* eventually(
            Effect.map(call(instance.url("/alerts/sent"), token), (r) => r.body!.alerts as Array<Record<string, unknown>>),
            (a) => a.length === 1 && a[0]!.status === "sent"
          )
          expect(recent).toEqual([
            {
              id: expect.any(String),
              watch_id: watchId,
              lat: place.lat,
              lon: place.lon,
              label: "Testville, TL",
              date: expect.any(String),
              kind: "heatwave",
              variable: null,
              grade: null,
              spell: { start: expect.any(String), end: expect.any(String), severity: expect.stringMatching(/^(severe|extreme)$/) },
              content: first[0]!.content,
              status: "sent",
              created_at: expect.any(String),
              sent_at: expect.any(String)
            }
          ])
          // The days as last seen: the last forecast's spell, which ends on its last hot day or up to two days after.
          const spell = recent[0]!.spell as { start: string; end: string }
          expect([base + 4, base + 5, base + 6].map(CivilDate.format)).toContain(spell.end)
          const sql = yield* sqlOf
          const rows = yield* Effect.orDie(sql<{ n: number }>`select count(*)::int as n from spell_alerts where watch_id = ${watchId}`)
          expect(rows[0]!.n).toBe(1)
        })), 120_000)

      it.effect.skipIf(backend.name !== "postgres")("three instances on one PostgreSQL: one message per spell as the forecast moves it", () =>
        withInstance((one) =>
        Effect.gen(function* () {
          const w = yield* World
          const url = Option.getOrThrow(Context.get(w.db, TestDatabase).url)
          const pool = () => PgClient.layer({ url: Redacted.make(url), maxConnections: 8 }).pipe(Layer.orDie)
          const two = yield* start({}, pool())
          const three = yield* start({}, pool())
          yield* Effect.ensuring(
            Effect.gen(function* () {
              const { chatId, token } = yield* chatUser(one)
              const { base, cell, fetched, watchId } = yield* watchThenWave(two, token)
              yield* eventually(Effect.sync(() => deliveredTo(w.bot, chatId)), (d) => d.length >= 1)
              for (const [from, to] of [[2, 6], [1, 4], [2, 3]] as const) {
                heatWave(w, cell.key, base + from, base + to)
                yield* evaluateAfterAnHour(fetched)
              }
              yield* sleep(1_000)
              expect(deliveredTo(w.bot, chatId).length).toBe(1)
              const sql = yield* sqlOf
              const rows = yield* Effect.orDie(sql<{ n: number }>`select count(*)::int as n from spell_alerts where watch_id = ${watchId}`)
              expect(rows[0]!.n).toBe(1)
            }),
            Effect.zipRight(two.close, three.close)
          )
        })), 120_000)

      it.effect("without CHAT_BOT_TOKEN: watches are evaluated and alerts recorded, nothing is sent, and the API says so", () =>
        withInstance((instance) =>
        Effect.gen(function* () {
          const w = yield* World
          const { chatId, token } = yield* chatUser(instance)
          expect((yield* call(instance.url("/alerts/config"), token)).body).toMatchObject({ delivery_configured: false })
          expect((yield* call(instance.url("/health"), undefined)).body).toEqual({ status: "ok" })
          yield* watchThenHeat(instance, token)
          const alerts = yield* eventually(
            Effect.map(call(instance.url("/alerts/sent"), token), (r) => r.body!.alerts as Array<{ status: string }>),
            (a) => a.length >= 1
          )
          expect(alerts.map((a) => a.status)).toEqual(["off"])
          expect(callsFor(w.bot, chatId)).toEqual([])
        }), { CHAT_BOT_TOKEN: "" }))

      it.effect("health shows the outbox backlog when delivery is on", () =>
        withInstance((instance) =>
        Effect.gen(function* () {
          const health = yield* call(instance.url("/health"), undefined)
          expect(health.status).toBe(200)
          expect(health.body).toEqual({
            status: "ok",
            outbox: { pending: expect.any(Number), failed: expect.any(Number), oldest_pending_seconds: expect.toSatisfy((v) => v === null || typeof v === "number") }
          })
        })))
    })
  })
}
