/**
 * The service behind PgBouncer in transaction mode (docs/deploy.md "PgBouncer"), with PgBouncer's
 * defaults otherwise: Debian's pgbouncer runs unprivileged (as `nobody` when the suite runs as
 * root) on a loopback port, with its config, auth file, log and pid in a temporary directory, in
 * front of the suite's PostgreSQL. Three built instances start at once through it (their
 * migrations meet at the transaction-scoped lock), then sign-in, a cell, and an alert sent once
 * across the three; a statement that runs past the bound is cancelled by the server through it.
 * PostgreSQL-only: skipped without DATABASE_URL.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { connect } from "node:net"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { Cell, CivilDate } from "@climate-grade/core"
import { Database } from "@climate-grade/postgres"
import { Browser, FakeChatBot, FakeChatProvider, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as BuiltServer from "./support/BuiltServer.js"

const admin = process.env.DATABASE_URL
const onPostgres = admin?.startsWith("postgres") === true
const pgbouncerBinary = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find((path) => existsSync(path))

if (!onPostgres) console.warn("PgBouncer.test: skipped, it needs DATABASE_URL (postgres://…)")
if (onPostgres && pgbouncerBinary === undefined && process.env.CI === "true") throw new Error("pgbouncer is not installed; .ci/run installs it")

const left = BuiltServer.leftovers("cg-pgbouncer-")
let database: string | undefined
const bouncers: Array<ChildProcess> = []

beforeAll(async () => {
  if (onPostgres && pgbouncerBinary !== undefined) await BuiltServer.build()
}, 60_000)
afterAll(async () => {
  for (const bouncer of bouncers) {
    if (bouncer.exitCode !== null || bouncer.signalCode !== null) continue
    const exited = new Promise<void>((done) => bouncer.once("exit", () => done()))
    bouncer.kill("SIGTERM")
    await Promise.race([exited, new Promise((done) => setTimeout(done, 5_000))])
  }
  left.cleanup()
  if (database !== undefined) execFileSync("psql", [admin!, "-qc", `drop database if exists ${database} with (force)`])
})

const accepts = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      done(true)
    })
    socket.once("error", () => done(false))
  })

/**
 * PgBouncer before `database` on the suite's server: transaction pooling, every other setting
 * its default (auth_type md5 against an auth file, default_pool_size 20, max_client_conn 100).
 */
const startPgBouncer = async (server: URL, name: string) => {
  const dir = left.tempDir()
  const port = await BuiltServer.freePort()
  writeFileSync(
    join(dir, "pgbouncer.ini"),
    `[databases]
climate_grade = host=${server.hostname} port=${server.port || 5432} dbname=${name}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir = ${dir}
pool_mode = transaction
auth_file = ${dir}/userlist.txt
logfile = ${dir}/pgbouncer.log
pidfile = ${dir}/pgbouncer.pid
`
  )
  const user = decodeURIComponent(server.username || "postgres")
  writeFileSync(join(dir, "userlist.txt"), `"${user}" "bouncer-password"\n`)
  // PgBouncer refuses to run as root.
  const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
  if (process.getuid?.() === 0) {
    chmodSync(dir, 0o777)
    for (const file of ["pgbouncer.ini", "userlist.txt"]) chmodSync(join(dir, file), 0o644)
  }
  const child = spawn(pgbouncerBinary!, [join(dir, "pgbouncer.ini")], { stdio: ["ignore", "pipe", "pipe"], ...asNobody })
  let output = ""
  child.stdout!.on("data", (d: Buffer) => (output += d))
  child.stderr!.on("data", (d: Buffer) => (output += d))
  bouncers.push(child)
  left.track({ child })
  const deadline = Date.now() + 20_000
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited ${child.exitCode}: ${output}`)
    if (Date.now() > deadline) throw new Error(`pgbouncer did not listen: ${output}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const url = new URL(`postgres://127.0.0.1:${port}/climate_grade`)
  url.username = user
  url.password = "bouncer-password"
  const log = () => {
    try {
      return readFileSync(join(dir, "pgbouncer.log"), "utf8")
    } catch {
      return ""
    }
  }
  return { url: url.href, log }
}

describe.runIf(onPostgres && pgbouncerBinary !== undefined)("behind PgBouncer in transaction mode", () => {
  it("three instances start and migrate at once, sign-in, a cell and one alert work, a long statement is cancelled", async () => {
    const scope = Effect.runSync(Scope.make())
    try {
      const weather = await Effect.runPromise(Scope.extend(FakeOpenMeteo.make, scope))
      const geocoder = await Effect.runPromise(Scope.extend(FakeNominatim.make, scope))
      const chat = await Effect.runPromise(Scope.extend(FakeChatProvider.make(), scope))
      const bot = await Effect.runPromise(Scope.extend(FakeChatBot.make(), scope))
      database = `cg_pgbouncer_${process.pid}_${Date.now()}`
      execFileSync("psql", [admin!, "-qc", `create database ${database}`])
      const bouncer = await startPgBouncer(new URL(admin!), database)

      const hot = Cell.fromCoordinates(47.5, 8.5)
      weather.forecastOverride = (lat, lon, day) => {
        if (Math.abs(lat - hot.lat) > 1e-9 || Math.abs(lon - hot.lon) > 1e-9) return undefined
        const today = CivilDate.todayIn(weather.now(), weather.timezone)
        const normal = FakeOpenMeteo.weather(lat, lon, day)
        return day === today + 1 ? { tmax: Math.round((normal.tmax + 16) * 10) / 10 } : undefined
      }
      const env = {
        DATABASE_URL: bouncer.url,
        DATABASE_POOL_SIZE: "6",
        AUTH_SECRET: "a secret shared by the three instances, long enough",
        HISTORY_START: "2015-01-01",
        ...FakeEnv.upstreams(weather, geocoder),
        ...FakeEnv.provider("CHAT", chat),
        CHAT_BOT_TOKEN: bot.token,
        CHAT_API_URL: bot.apiUrl,
        ALERT_EVALUATE_EVERY_MS: "1000",
        ALERT_POLL_MS: "200"
      }
      // All three at once on an empty database: one migrates, the others wait for its lock.
      const instances = await Promise.all(
        [0, 1, 2].map(async () => left.track(await BuiltServer.start(env, { logFile: join(left.tempDir(), "server.log") })))
      )
      const [a, , c] = instances.map((i) => `http://127.0.0.1:${i.port}`) as [string, string, string]

      // Sign-in (the browser keeps cookies per host and port: one instance).
      chat.profile = { id: "bouncer-user", username: "b", global_name: "B", email: "bouncer@example.org", verified: true }
      const browser = new Browser()
      const start = await browser.fetch(`${a}/api/v2/oauth/chat/login/start`)
      expect(start.status).toBe(303)
      const signedIn = await browser.follow(start.headers.get("location")!, { stop: (u) => u.pathname === "/alerts" })
      expect(new URL(signedIn.url).searchParams.get("oauth")).toBe("created")
      const me = await browser.fetch(`${a}/api/v2/users/me`)
      expect(((await me.json()) as { chat_id: string }).chat_id).toBe("bouncer-user")

      // A cell: its history fetched and stored, then served by another instance from the database.
      const cell = await fetch(`${a}/api/v2/cell?lat=40.1&lon=-3.7`)
      expect(cell.status).toBe(200)
      expect(await cell.json()).toHaveProperty("calendar")
      expect((await fetch(`${c}/api/v2/cell?lat=40.1&lon=-3.7`)).status).toBe(200)
      expect(weather.requests.archive).toHaveLength(1)

      // An alert, sent once though three instances evaluate the watch every second.
      const dm = await browser.fetch(`${a}/api/v2/chat/dm`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ enabled: true })
      })
      expect(dm.status).toBe(200)
      const watch = await browser.fetch(`${a}/api/v2/alerts/watches`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ lat: hot.lat, lon: hot.lon, kinds: ["heat"] })
      })
      expect(watch.status).toBe(201)
      const deadline = Date.now() + 60_000
      while (bot.delivered.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
      await new Promise((r) => setTimeout(r, 3_000))
      expect(bot.delivered.map((d) => d.recipientId)).toEqual(["bouncer-user"])

      // The service's own client through PgBouncer, with a short bound: the server cancels a
      // statement that outlives it, alone or in a transaction.
      const bounds: Database.Bounds = { acquireMs: 2_000, queryMs: 1_500, lockWaitMs: 6_000 }
      const cancelled = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const context = yield* Layer.build(Database.serverLayer(Redacted.make(bouncer.url), bounds, 2))
            const sql = Context.get(context, SqlClient.SqlClient)
            const codeOf = (e: unknown) => (e as { cause?: { code?: unknown } }).cause?.code
            const alone = yield* Effect.flip(sql`select pg_sleep(5)`)
            const inTransaction = yield* Effect.flip(sql.withTransaction(sql`select pg_sleep(5)`))
            const after = yield* sql<{ one: number }>`select 1 as one`
            return [codeOf(alone), codeOf(inTransaction), after[0]!.one]
          })
        )
      )
      expect(cancelled).toEqual(["57014", "57014", 1])

      const log = bouncer.log()
      expect(log).not.toMatch(/unsupported startup parameter|prepared statement .* does not exist/)
      for (const instance of instances) expect(instance.output()).not.toMatch(/"logLevel":"(ERROR|FATAL)"/)
      console.log(
        `pgbouncer: three instances, ${(log.match(/new connection to server/g) ?? []).length} server connections opened, ` +
          `${bot.delivered.length} alert sent, archive calls ${weather.requests.archive.length}`
      )
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 300_000)
})
