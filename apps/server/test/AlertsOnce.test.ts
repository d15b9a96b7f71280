/**
 * Alerts at the edges of "once", on PGlite and PostgreSQL:
 *
 * - a message the provider made but whose answer never came (a lost answer, then a crash and
 *   restart with `kill -9`) is sent again with the same nonce and `enforce_nonce`, which the
 *   provider (the fake, like Discord) answers with the message it made: one message, not two;
 * - a watch deleted while its cell is being evaluated is a normal outcome: no alert, no error.
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlClient as Sql } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import {
  AlertLog,
  Cell,
  CivilDate,
  OAuthAccounts,
  OAuthLink,
  PasswordHasher,
  Sessions,
  type User,
  Users,
  Watches
} from "@climate-grade/core"
import { AccountsRepo, AlertsRepo, Database, Migrations } from "@climate-grade/postgres"
import { Argon2 } from "@climate-grade/node"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { backends, FakeChatBot, FakeEnv, FakeNominatim, FakeOpenMeteo, TestDatabase } from "@climate-grade/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll } from "vitest"
import * as BuiltServer from "./support/BuiltServer.js"

const left = BuiltServer.leftovers("cg-once-")
beforeAll(BuiltServer.build, 60_000)
afterAll(left.cleanup)

class World extends Context.Tag("test/OnceWorld")<
  World,
  {
    readonly weather: FakeOpenMeteo.FakeOpenMeteo
    readonly bot: FakeChatBot.FakeChatBot
    readonly logs: Array<string>
    readonly database: Context.Context<SqlClient.SqlClient | TestDatabase>
  }
>() {}

/** Extreme days by cell key: a day's tmax of 60 °C is a record high anywhere. */
const extremes = new Map<string, number>()

const world = (backend: (typeof backends)[number]) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      const bot = yield* FakeChatBot.make()
      const database = yield* Layer.build(backend.layer)
      weather.forecastOverride = (lat, lon, day) =>
        extremes.get(Cell.fromCoordinates(lat, lon).key) === day ? { tmax: 60 } : undefined
      const logs: Array<string> = []
      const env = {
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: "1990-01-01",
        CHAT_BOT_TOKEN: bot.token,
        CHAT_API_URL: bot.apiUrl,
        ALERT_EVALUATE_EVERY_MS: "3600000",
        ALERT_RETRY_BASE_MS: "100",
        ALERT_POLL_MS: "100",
        ALERT_SEND_TIMEOUT_MS: "500"
      }
      return Layer.mergeAll(
        testServerLayer(env, Layer.succeedContext(database), { logs }),
        Layer.succeed(World, { weather, bot, logs, database })
      )
    })
  )

let counter = 0

/** An active user with chat linked and direct messages on. */
const chatUserOnly = Effect.gen(function* () {
  const n = ++counter
  const chatId = `${Date.now()}${n}`
  const users = yield* Users
  const hasher = yield* PasswordHasher
  const user = yield* Effect.orDie(
    users.create({
      email: `once-${chatId}@example.org`,
      hashedPassword: yield* hasher.hash("a password"),
      isActive: true,
      isSuperuser: false,
      isVerified: true,
      oauthOnly: false
    })
  )
  yield* Effect.orDie((yield* OAuthAccounts).insert(new OAuthLink({ userId: user.id, provider: "chat", subject: chatId, email: null })))
  yield* users.setChat(user.id, { chatId, chatDm: true })
  return { user: user as User, chatId }
})

/** As `chatUserOnly`, with a session. */
const chatUser = Effect.gen(function* () {
  const made = yield* chatUserOnly
  const { token } = yield* (yield* Sessions).issue(made.user.id)
  return { ...made, token }
})

/** A place no other test of this file watches; its day after tomorrow is made record-hot. */
const hotPlace = () => {
  const n = ++counter
  const place = { lat: Number((-30 + n * 3 + 0.1).toFixed(2)), lon: Number((40 + n * 3 + 0.05).toFixed(2)) }
  extremes.set(Cell.fromCoordinates(place.lat, place.lon).key, CivilDate.todayIn(Date.now(), "Europe/Berlin") + 2)
  return place
}

const call = (url: string, token: string, init: { method?: string; body?: unknown } = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: init.method ?? "GET",
      headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
    })
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>) }
  })

/** Polls until `done` holds (bounded), returning the last value read. */
const eventually = <A>(read: () => A, done: (a: A) => boolean, timeoutMs = 30_000) =>
  Effect.promise(async () => {
    const until = Date.now() + timeoutMs
    let value = read()
    while (!done(value) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 25))
      value = read()
    }
    return value
  })

/** A user with chat linked and messages on, watching a place, and one alert whose message is queued. */
const seedMessage = Effect.gen(function* () {
  const { chatId, user } = yield* chatUserOnly
  const place = { lat: 10.1, lon: 20.05 }
  const cell = Cell.fromCoordinates(place.lat, place.lon)
  const { watch } = yield* Effect.orDie((yield* Watches).upsert(user.id, { ...place, cell, kinds: ["heat"] }, 20))
  const date = CivilDate.todayIn(Date.now(), "UTC") + 1
  const created = yield* (yield* AlertLog).record(
    {
      watchId: watch.id,
      userId: user.id,
      date,
      kind: "heat",
      variable: "tmax",
      grade: { value: 60, unit: "°C", percentile: 100, label: "record-high", n: 150 },
      content: `Heat alert for ${cell.key} on ${CivilDate.format(date)}: 60.0 °C, a record high.`,
      at: Date.now()
    },
    "queued"
  )
  expect(created).toBe(true)
  return chatId
})

const errorLines = (logs: ReadonlyArray<string>) => logs.filter((l) => /level=(ERROR|FATAL)/.test(l))

const forecastsFor = (weather: FakeOpenMeteo.FakeOpenMeteo, place: { lat: number; lon: number }) =>
  weather.requests.forecast.filter(
    (r) => Cell.fromCoordinates(Number(r.query.latitude), Number(r.query.longitude)).key === Cell.fromCoordinates(place.lat, place.lon).key
  ).length

for (const backend of backends) {
  describe(`alerts at the edges of once, on ${backend.name}`, () => {
    layer(world(backend), { timeout: 180_000 })((it) => {
      it.effect("an answer lost after the provider made the message: the resend carries the same nonce, and one message is made", () =>
        Effect.gen(function* () {
          const { bot } = yield* World
          const server = yield* TestServer
          const { chatId, token } = yield* chatUser
          bot.faultsFor(chatId).message.push("accept-then-hang")
          const created = yield* call(server.url("/api/v2/alerts/watches"), token, { method: "POST", body: { ...hotPlace(), kinds: ["heat"] } })
          expect(created.status).toBe(201)
          // The first call is made and never answered (500 ms timeout); the retry is answered 200.
          const calls = yield* eventually(
            () => bot.calls.filter((c) => c.step === "message" && c.path.endsWith(`/dm-${chatId}/messages`)),
            (c) => c.length >= 2 && c[1]!.outcome === 200
          )
          expect(calls.map((c) => c.outcome)).toEqual(["hang", 200])
          const nonces = calls.map((c) => (c.body as { nonce?: unknown; enforce_nonce?: unknown }))
          expect(nonces[0]).toMatchObject({ nonce: expect.stringMatching(/^[0-9a-f]{25}$/), enforce_nonce: true })
          expect(nonces[1]).toEqual(nonces[0])
          expect(bot.delivered.filter((d) => d.recipientId === chatId)).toHaveLength(1)
          // Marked sent once the 200 is in.
          const statuses = () =>
            Effect.runPromise(call(server.url("/api/v2/alerts/sent"), token)).then((r) =>
              (r.body!.alerts as Array<{ status: string }>).map((a) => a.status).join()
            )
          const status = yield* Effect.promise(async () => {
            for (let i = 0; i < 200; i++) {
              const now = await statuses()
              if (now === "sent") return now
              await new Promise((r) => setTimeout(r, 25))
            }
            return statuses()
          })
          expect(status).toBe("sent")
        }))

      it.effect("a watch deleted while its cell is evaluated makes no alert and no error", () =>
        Effect.gen(function* () {
          const { weather, logs, database } = yield* World
          const server = yield* TestServer
          const { token } = yield* chatUser
          const place = hotPlace()
          const before = logs.length
          // Every weather answer takes a second: the evaluation is mid-way while the watch goes.
          weather.delayMs = 1_000
          try {
            const created = yield* call(server.url("/api/v2/alerts/watches"), token, { method: "POST", body: { ...place, kinds: ["heat"] } })
            expect(created.status).toBe(201)
            const id = created.body!.id as string
            yield* eventually(() => forecastsFor(weather, place), (n) => n >= 1)
            expect((yield* call(server.url(`/api/v2/alerts/watches/${id}`), token, { method: "DELETE" })).status).toBe(204)
            // One worker evaluates cells in turn: once it asks for another cell's weather, this one is done.
            const marker = hotPlace()
            expect((yield* call(server.url("/api/v2/alerts/watches"), token, { method: "POST", body: { ...marker, kinds: ["cold"] } })).status).toBe(201)
            yield* eventually(() => forecastsFor(weather, marker), (n) => n >= 1)
            const sql = Context.get(database, Sql.SqlClient)
            const alerts = yield* Effect.orDie(sql<{ n: number }>`select count(*)::int as n from alerts where watch_id = ${id}`)
            expect(alerts[0]!.n).toBe(0)
            expect(errorLines(logs.slice(before))).toEqual([])
            expect(logs.slice(before).filter((l) => /fkey|foreign key/.test(l))).toEqual([])
          } finally {
            weather.delayMs = 0
          }
        }))
    })
  })

  describe(`kill -9 mid-delivery, on ${backend.name}`, () => {
    it("the process dies after the provider made the message, before it heard back: after the restart, still one message", async () => {
      const scope = Effect.runSync(Scope.make())
      try {
        const bot = await Effect.runPromise(Scope.extend(FakeChatBot.make(), scope))
        // The database, with one alert whose message waits in the outbox.
        const target =
          backend.name === "pglite"
            ? { env: { DATA_DIR: join(left.tempDir(), "data") } }
            : {
                env: {
                  DATABASE_URL: Option.getOrThrow(
                    Context.get(await Effect.runPromise(Scope.extend(Layer.build(backend.layer), scope)), TestDatabase).url
                  )
                }
              }
        const database =
          "DATA_DIR" in target.env
            ? Layer.provideMerge(Migrations.layer, Database.layer({ _tag: "Embedded", dataDir: target.env.DATA_DIR }).pipe(Layer.orDie))
            : Layer.provideMerge(Migrations.layer, Database.layer({ _tag: "Server", url: Redacted.make(target.env.DATABASE_URL) }).pipe(Layer.orDie))
        const repos = Layer.mergeAll(AccountsRepo.layer, AlertsRepo.layer, Argon2.layer).pipe(Layer.provideMerge(database))
        const chatId = await Effect.runPromise(seedMessage.pipe(Effect.provide(repos)))

        const env = {
          PATH: process.env.PATH ?? "",
          PORT: "0",
          LOG_FORMAT: "json",
          AUTH_SECRET: "s".repeat(40),
          CHAT_BOT_TOKEN: bot.token,
          CHAT_API_URL: bot.apiUrl,
          // Nothing else is asked of the weather or the geocoder: their calls fail at once.
          WEATHER_ARCHIVE_URL: "http://127.0.0.1:1/archive",
          WEATHER_FORECAST_URL: "http://127.0.0.1:1/forecast",
          GEOCODER_URL: "http://127.0.0.1:1/reverse",
          ALERT_SEND_TIMEOUT_MS: "500",
          ALERT_RETRY_BASE_MS: "100",
          ALERT_POLL_MS: "100",
          ...target.env
        }
        const first = left.track({ child: spawn(process.execPath, [BuiltServer.main], { env, stdio: "ignore" }) })
        const firstExit = new Promise((done) => first.child.once("exit", done))
        // The provider makes the message; the sender dies before the answer reaches it.
        bot.onMessage = () => {
          bot.onMessage = undefined
          first.child.kill("SIGKILL")
        }
        await firstExit
        expect(first.child.signalCode).toBe("SIGKILL")
        expect(bot.delivered.filter((d) => d.recipientId === chatId)).toHaveLength(1)

        // The next start finds the claim, waits out its lease (two send timeouts and 20 s), and sends again.
        const second = left.track({ child: spawn(process.execPath, [BuiltServer.main], { env, stdio: "ignore" }) })
        const resent = await Effect.runPromise(
          eventually(
            () => bot.calls.filter((c) => c.step === "message" && c.path.endsWith(`/dm-${chatId}/messages`)),
            (calls) => calls.some((c, i) => i > 0 && c.outcome === 200),
            120_000
          )
        )
        second.child.kill("SIGTERM")
        await new Promise((done) => second.child.once("exit", done))
        expect(resent.length).toBe(2)
        expect((resent[1]!.body as { nonce?: string }).nonce).toBe((resent[0]!.body as { nonce?: string }).nonce)
        expect(bot.delivered.filter((d) => d.recipientId === chatId)).toHaveLength(1)
        const status = await Effect.runPromise(
          Effect.flatMap(Sql.SqlClient, (sql) => sql<{ status: string }>`select status from alert_outbox`).pipe(
            Effect.orDie,
            Effect.provide(database)
          )
        )
        expect(status.map((r) => r.status)).toEqual(["sent"])
      } finally {
        await Effect.runPromise(Scope.close(scope, Exit.void))
      }
    }, 240_000)
  })
}
