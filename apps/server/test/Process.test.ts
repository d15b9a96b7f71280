/**
 * The built server as an operator runs it: `node apps/server/dist/main.js` with environment
 * variables, and the operator command `dist/cli.js`.
 */
import { execFileSync, spawn } from "node:child_process"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as BuiltServer from "./support/BuiltServer.js"
import * as Skips from "@climate-grade/testing/Skips"

const { main, cli } = BuiltServer
const left = BuiltServer.leftovers("cg-process-")
const tempDir = left.tempDir

beforeAll(BuiltServer.build, 60_000)
afterAll(left.cleanup)

/** Runs the server until it exits; for configurations that must refuse to start. */
const runToExit = (env: Record<string, string>) => BuiltServer.runToExit([main], { DATABASE_URL: "memory://", ...env }, { timeoutMs: 90_000 })

/** Starts the server on a free port and resolves once `/health` answers. */
const startServer = async (env: Record<string, string>) => {
  const running = left.track(await BuiltServer.start(env))
  const health = await fetch(`http://127.0.0.1:${running.port}/api/v2/health`)
  return { ...running, health }
}

describe("configuration errors stop the process with one line naming the variable", () => {
  const cases: ReadonlyArray<[Record<string, string>, RegExp]> = [
    [{ PORT: "abc" }, /^Invalid configuration: PORT: /],
    [{ CHAT_CLIENT_ID: "id", CHAT_CLIENT_SECRET: "secret" }, /^Invalid configuration: CHAT_AUTHORIZE_URL: /],
    [
      { IDP_CLIENT_ID: "id", IDP_CLIENT_SECRET: "s", IDP_AUTHORIZE_URL: "http://a", IDP_TOKEN_URL: "http://b" },
      /^Invalid configuration: IDP_USERINFO_URL: /
    ],
    [{ NODE_ENV: "production" }, /^Invalid configuration: AUTH_SECRET: /],
    [{ AUTH_SECRET: "too short" }, /^Invalid configuration: AUTH_SECRET: /],
    [{ DATABASE_URL: "mysql://x" }, /^Invalid configuration: DATABASE_URL: /],
    [{ BASE_PATH: "/trailing/" }, /^Invalid configuration: BASE_PATH: /],
    [{ LOG_FORMAT: "xml" }, /^Invalid configuration: LOG_FORMAT: /],
    [{ HISTORY_START: "1940-02-30" }, /^Invalid configuration: HISTORY_START: /],
    [{ WEATHER_ARCHIVE_URL: "not a url" }, /^Invalid configuration: WEATHER_ARCHIVE_URL: /]
  ]
  for (const [env, line] of cases) {
    it(`${JSON.stringify(env)}`, async () => {
      const { code, stderr, stdout } = await runToExit(env)
      expect(code).toBe(1)
      expect(stdout).toBe("")
      expect(stderr.trimEnd().split("\n")).toHaveLength(1)
      expect(stderr).toMatch(line)
    }, 120_000)
  }
})

describe("the built server", () => {
  it("starts on the embedded database, keeps its data, and serves under BASE_PATH", async () => {
    const dataDir = tempDir()
    const first = await startServer({ DATA_DIR: dataDir })
    expect(first.health.status).toBe(200)
    expect(first.output()).toMatch(/AUTH_SECRET is not set/)
    first.child.kill("SIGTERM")
    await new Promise((done) => first.child.once("exit", done))

    // The operator command creates a password account in the same database.
    const created = await BuiltServer.runToExit([cli, "--email", "Ops@Example.org", "--superuser"], { DATA_DIR: dataDir }, {
      input: "a long enough password\n"
    })
    expect(created.code).toBe(0)
    expect(created.stdout).toMatch(/^created ops@example\.org \([0-9a-f-]{36}\) as superuser$/m)

    const again = await startServer({ DATA_DIR: dataDir, BASE_PATH: "/grades" })
    expect(again.health.status).toBe(404)
    const base = `http://127.0.0.1:${again.port}/grades/api/v2`
    expect((await fetch(`${base}/health`)).status).toBe(200)
    const login = await fetch(`${base}/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ops@example.org", password: "a long enough password" })
    })
    expect(login.status).toBe(204)
    const token = /session=([^;]+)/.exec(login.headers.get("set-cookie") ?? "")![1]
    const me = (await (await fetch(`${base}/users/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      is_superuser: boolean
    }
    expect(me.is_superuser).toBe(true)
  }, 300_000)

  it("a request during start-up is refused or told to retry, never left unanswered", async () => {
    // A port free now (a fixed one may be another process's, which answers instead or keeps ours
    // from listening), known before the server starts so that it can be asked while it starts.
    const port = await BuiltServer.freePort()
    const child = spawn("node", [main], { env: { PATH: process.env.PATH ?? "", PORT: String(port), DATA_DIR: tempDir() } })
    left.track({ child })
    const output: Array<string> = []
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk.toString()))
    const outcomes = new Set<string>()
    // Bounded by time, not by a count of attempts: the start takes longer on a loaded machine.
    const deadline = Date.now() + 150_000
    while (Date.now() < deadline && child.exitCode === null) {
      const outcome = await fetch(`http://127.0.0.1:${port}/api/v2/health`, { signal: AbortSignal.timeout(5_000) }).then(
        (r) => String(r.status),
        (e: Error) => (e.name === "TimeoutError" ? "timeout" : "refused")
      )
      outcomes.add(outcome)
      if (outcome === "200") break
      await new Promise((r) => setTimeout(r, 10))
    }
    expect(outcomes.has("200"), `answers seen: ${[...outcomes].join(", ")}; the server said:\n${output.join("")}`).toBe(true)
    expect(outcomes.has("timeout")).toBe(false)
    expect([...outcomes].every((o) => ["refused", "503", "200"].includes(o))).toBe(true)
  }, 180_000)

  it("the operator command refuses a duplicate account and a missing password", async () => {
    const dataDir = tempDir()
    const run = (input: string) => BuiltServer.runToExit([cli, "--email", "dup@example.org"], { DATA_DIR: dataDir }, { input })
    expect((await run("first password")).code).toBe(0)
    const duplicate = await run("second password")
    expect(duplicate.code).not.toBe(0)
    expect(duplicate.stderr).toMatch(/exists already/)
    expect((await run("")).stderr).toMatch(/at least 8 characters/)
  }, 180_000)

  it.runIf(Skips.unless(process.env.DATABASE_URL?.startsWith("postgres") === true, "two instances starting at once on one PostgreSQL", "no DATABASE_URL (postgres://…)"))(
    "two instances starting at once on one PostgreSQL both migrate and serve",
    async () => {
      const admin = process.env.DATABASE_URL!
      const name = `cg_twostart_${process.pid}_${Date.now()}`
      execFileSync("psql", [admin, "-qc", `create database ${name}`])
      try {
        const url = new URL(admin)
        url.pathname = `/${name}`
        const env = { DATABASE_URL: url.href, AUTH_SECRET: "s".repeat(40) }
        const [a, b] = await Promise.all([startServer(env), startServer(env)])
        expect([a.health.status, b.health.status]).toEqual([200, 200])
        const applied = execFileSync("psql", [url.href, "-tAc", "select count(*) from schema_migrations"]).toString().trim()
        expect(Number(applied)).toBeGreaterThan(0)
        a.child.kill("SIGKILL")
        b.child.kill("SIGKILL")
      } finally {
        execFileSync("psql", [admin, "-qc", `drop database if exists ${name} with (force)`])
      }
    },
    90_000
  )
})

describe("a process whose output goes to a file (as the nginx test and the benchmarks start them)", () => {
  const listening = /^READY (\d+)$/m

  it("that fails at once is reported with what it last wrote", async () => {
    const logFile = join(tempDir(), "output.log")
    const failing = BuiltServer.spawnListening(["-e", 'process.stderr.write("cannot start: the reason\\n"); process.exit(3)'], {}, { logFile, listening })
    await expect(failing).rejects.toThrow(/exited 3: cannot start: the reason/)
  }, 30_000)

  it("that ends after its file is gone keeps what was read before", async () => {
    const dir = tempDir()
    const running = left.track(
      await BuiltServer.spawnListening(["-e", 'console.log("READY 1"); setInterval(() => {}, 1000)'], {}, { logFile: join(dir, "output.log"), listening })
    )
    rmSync(dir, { recursive: true, force: true })
    running.child.kill("SIGTERM")
    await running.exited
    // The read at exit runs on the same exit; give it a turn, then nothing was lost or thrown.
    await new Promise((done) => setImmediate(done))
    expect(running.output()).toBe("READY 1\n")
  }, 30_000)
})
