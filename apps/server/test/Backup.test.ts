/**
 * `pnpm backup` and `pnpm restore` on the embedded database, as an operator runs them against the
 * built server (docs/deploy.md "Backups"): a backup taken through the running server while
 * accounts and cells are being written, restored into a new directory, holds every account,
 * provider link, watch, outbox message and held cell that existed when it began, and nothing
 * that was never written; a backup of a stopped server likewise; a restore refuses a non-empty
 * DATA_DIR and leaves it as it was; with DATABASE_URL both commands name PostgreSQL's tools.
 * Also: a production start on the embedded database warns in one line, and a second instance on
 * its DATA_DIR is refused.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { Cell, CivilDate, PasswordLogin } from "@climate-grade/core"
import { Browser, FakeChatBot, FakeChatProvider, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { embeddedWarningLine } from "../src/App.js"
import * as Control from "../src/Control.js"
import * as BuiltServer from "./support/BuiltServer.js"

const left = BuiltServer.leftovers("cg-backup-")
beforeAll(() => BuiltServer.build(), 60_000)
afterAll(() => left.cleanup())

interface Held {
  readonly emails: ReadonlySet<string>
  readonly links: number
  readonly watches: number
  readonly outbox: number
  readonly cells: ReadonlySet<string>
}

/** What a DATA_DIR holds, read by PGlite itself (the server is not running on it). */
const contents = async (dataDir: string): Promise<Held> => {
  const db = new PGlite({ dataDir })
  try {
    const emails = await db.query<{ email: string }>("select email from users")
    const count = async (table: string) => (await db.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]!.n
    const cells = await db.query<{ key: string }>("select cell_key as key from weather_cells where history is not null")
    return {
      emails: new Set(emails.rows.map((r) => r.email)),
      links: await count("oauth_accounts"),
      watches: await count("alert_watches"),
      outbox: await count("alert_outbox"),
      cells: new Set(cells.rows.map((r) => r.key))
    }
  } finally {
    await db.close()
  }
}

/** Every file under `dir` with its bytes, to show a refused restore touched nothing. */
const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const visit = (relative: string) => {
    for (const entry of readdirSync(join(dir, relative), { withFileTypes: true })) {
      const path = join(relative, entry.name)
      if (entry.isDirectory()) visit(path)
      else out[path] = readFileSync(join(dir, path)).toString("base64")
    }
  }
  visit("")
  return out
}

const account = (email: string) =>
  Either.getOrThrow(PasswordLogin.newAccount({ email, password: "a long enough password 1", superuser: false, verified: true }))

describe("pnpm backup and pnpm restore on the embedded database", () => {
  it("a backup under write load restores everything that existed when it began; a stopped server's too; a non-empty DATA_DIR is refused untouched", async () => {
    const scope = Effect.runSync(Scope.make())
    try {
      const weather = await Effect.runPromise(Scope.extend(FakeOpenMeteo.make, scope))
      const geocoder = await Effect.runPromise(Scope.extend(FakeNominatim.make, scope))
      const chat = await Effect.runPromise(Scope.extend(FakeChatProvider.make(), scope))
      const bot = await Effect.runPromise(Scope.extend(FakeChatBot.make(), scope))
      const dataDir = join(left.tempDir(), "data")
      const hot = Cell.fromCoordinates(47.5, 8.5)
      weather.forecastOverride = (lat, lon, day) => {
        if (Math.abs(lat - hot.lat) > 1e-9 || Math.abs(lon - hot.lon) > 1e-9) return undefined
        const today = CivilDate.todayIn(weather.now(), weather.timezone)
        return day === today + 1 ? { tmax: Math.round((FakeOpenMeteo.weather(lat, lon, day).tmax + 16) * 10) / 10 } : undefined
      }
      const env = {
        DATA_DIR: dataDir,
        HISTORY_START: "2015-01-01",
        ...FakeEnv.upstreams(weather, geocoder),
        ...FakeEnv.provider("CHAT", chat),
        CHAT_BOT_TOKEN: bot.token,
        CHAT_API_URL: bot.apiUrl,
        ALERT_EVALUATE_EVERY_MS: "500",
        ALERT_POLL_MS: "200"
      }
      const server = left.track(await BuiltServer.start(env, { logFile: join(left.tempDir(), "server.log") }))
      const origin = `http://127.0.0.1:${server.port}`

      // An account with a provider link, a watch, and the alert message it brought.
      chat.profile = { id: "backup-user", username: "b", global_name: "B", email: "linked@example.org", verified: true }
      const browser = new Browser()
      const start = await browser.fetch(`${origin}/api/v2/oauth/chat/login/start`)
      const signedIn = await browser.follow(start.headers.get("location")!, { stop: (u) => u.pathname === "/alerts" })
      expect(new URL(signedIn.url).searchParams.get("oauth")).toBe("created")
      const post = (path: string, body: unknown) =>
        browser.fetch(`${origin}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
      expect((await post("/api/v2/chat/dm", { enabled: true })).status).toBe(200)
      expect((await post("/api/v2/alerts/watches", { lat: hot.lat, lon: hot.lon, kinds: ["heat"] })).status).toBe(201)
      const deadline = Date.now() + 60_000
      while (bot.delivered.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
      expect(bot.delivered).toHaveLength(1)

      // Writes in a loop: accounts over the control socket, new cells over HTTP.
      const acknowledged = new Set<string>()
      const cellsHeld = new Set<string>([hot.key])
      let running = true
      let n = 0
      const writers = Array.from({ length: 3 }, async (_, w) => {
        while (running) {
          const i = n++
          if (w === 0) {
            const cell = Cell.fromCoordinates(-40 + (i % 80), -60 + Math.floor(i / 80))
            const answer = await fetch(`${origin}/api/v2/cell?lat=${cell.lat}&lon=${cell.lon}`)
            if (answer.status === 200) cellsHeld.add(cell.key)
          } else {
            const email = `load-${i}@example.org`
            const reply = await Control.createThroughServer(dataDir, account(email))
            if (reply._tag === "Created") acknowledged.add(email)
          }
        }
      })
      await new Promise((r) => setTimeout(r, 1_500))
      const before = { emails: new Set(acknowledged), cells: new Set(cellsHeld) }
      const file = join(left.tempDir(), "backup.tar.gz")
      const backup = await BuiltServer.runToExit([BuiltServer.ops, "backup", file], { DATA_DIR: dataDir })
      await new Promise((r) => setTimeout(r, 500))
      running = false
      await Promise.all(writers)
      expect([backup.code, backup.stdout]).toEqual([0, expect.stringMatching(/through the running server/)])
      expect(before.emails.size).toBeGreaterThan(0)
      expect(acknowledged.size).toBeGreaterThan(before.emails.size)

      const restoredDir = join(left.tempDir(), "restored")
      const restore = await BuiltServer.runToExit([BuiltServer.ops, "restore", file], { DATA_DIR: restoredDir })
      expect([restore.code, restore.stderr]).toEqual([0, ""])
      const restored = await contents(restoredDir)
      // Everything written before the backup began, and nothing that was never written.
      for (const email of [...before.emails, "linked@example.org"]) expect(restored.emails).toContain(email)
      for (const email of restored.emails) expect(email === "linked@example.org" || email.startsWith("load-")).toBe(true)
      expect([restored.links, restored.watches, restored.outbox]).toEqual([1, 1, 1])
      for (const key of before.cells) expect(restored.cells).toContain(key)

      // The restored directory serves: the linked account's data is there for a server.
      const onRestored = left.track(await BuiltServer.start({ ...env, DATA_DIR: restoredDir }, { logFile: join(left.tempDir(), "r.log") }))
      expect((await fetch(`http://127.0.0.1:${onRestored.port}/api/v2/cell?lat=${hot.lat}&lon=${hot.lon}`)).status).toBe(200)
      onRestored.child.kill("SIGTERM")
      await onRestored.exited

      // A restore into a DATA_DIR that holds anything is refused, and the directory is left as it was.
      const full = snapshot(restoredDir)
      const again = await BuiltServer.runToExit([BuiltServer.ops, "restore", file], { DATA_DIR: restoredDir })
      expect([again.code, again.stderr]).toEqual([1, expect.stringMatching(/not empty.*nothing in it was touched/)])
      expect(snapshot(restoredDir)).toEqual(full)
      const other = left.tempDir()
      writeFileSync(join(other, "notes.txt"), "mine")
      const refused = await BuiltServer.runToExit([BuiltServer.ops, "restore", file], { DATA_DIR: other })
      expect(refused.code).toBe(1)
      expect(snapshot(other)).toEqual({ "notes.txt": Buffer.from("mine").toString("base64") })

      // A stopped server: the copy is taken by the command itself, and holds everything.
      server.child.kill("SIGTERM")
      expect(await server.exited).toBe(0)
      const final = await contents(dataDir)
      const stoppedFile = join(left.tempDir(), "stopped.tar.gz")
      const stopped = await BuiltServer.runToExit([BuiltServer.ops, "backup", stoppedFile], { DATA_DIR: dataDir })
      expect([stopped.code, stopped.stdout]).toEqual([0, expect.stringMatching(/no server running/)])
      const secondDir = join(left.tempDir(), "second")
      expect((await BuiltServer.runToExit([BuiltServer.ops, "restore", stoppedFile], { DATA_DIR: secondDir })).code).toBe(0)
      expect(await contents(secondDir)).toEqual(final)
      console.log(
        `backup under load: ${before.emails.size} accounts before it began, ${restored.emails.size - 1} restored, ` +
          `${acknowledged.size} written by the end; cells ${before.cells.size} before, ${restored.cells.size} restored`
      )
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 300_000)

  it("with DATABASE_URL naming PostgreSQL, both commands say how to use pg_dump and pg_restore, and do nothing", async () => {
    const env = { DATABASE_URL: "postgres://climate@127.0.0.1:5432/climate_grade" }
    const file = join(left.tempDir(), "never.tar.gz")
    const backup = await BuiltServer.runToExit([BuiltServer.ops, "backup", file], env)
    expect([backup.code, backup.stderr]).toEqual([2, expect.stringMatching(/pg_dump/)])
    const restore = await BuiltServer.runToExit([BuiltServer.ops, "restore", file], env)
    expect([restore.code, restore.stderr]).toEqual([2, expect.stringMatching(/pg_restore/)])
    expect(readdirSync(join(file, ".."))).toEqual([])
  })
})

describe("one embedded database, one process", () => {
  it("a production start on the embedded database warns in one line; a second instance on its DATA_DIR is refused", async () => {
    const dataDir = join(left.tempDir(), "data")
    const env = {
      DATA_DIR: dataDir,
      NODE_ENV: "production",
      AUTH_SECRET: "a production secret of at least thirty-two characters",
      PUBLIC_ORIGIN: "https://grades.example.org"
    }
    const first = left.track(await BuiltServer.start(env))
    const warnings = first
      .output()
      .split("\n")
      .filter((l) => l.includes("local to this process"))
    expect(warnings).toHaveLength(1)
    expect(JSON.parse(warnings[0]!)).toMatchObject({ logLevel: "WARN", message: embeddedWarningLine(dataDir) })
    const second = await BuiltServer.runToExit([BuiltServer.main], { ...env, PORT: "0", LOG_FORMAT: "json" }, { timeoutMs: 90_000 })
    expect(second.code).toBe(1)
    expect(second.stderr).toMatch(new RegExp(`in use by process ${first.child.pid}`))
    first.child.kill("SIGTERM")
    await first.exited
  }, 180_000)
})
