/**
 * The embedded database's DATA_DIR, with the built server as an operator runs it: private
 * whatever the umask (directories 0700, files 0600, narrowed with a warning when found wider),
 * and never silently replaced — a directory that holds anything but a database is refused with
 * one line naming what is wrong, and a file the engine aborts on is named too, not "Aborted()".
 * (PostgreSQL keeps its own data directory: these are PGlite's.)
 */
import { cpSync, lstatSync, openSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync, writeSync, closeSync, chmodSync, existsSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as BuiltServer from "./support/BuiltServer.js"

const left = BuiltServer.leftovers("cg-datadir-")
const env = { AUTH_SECRET: "s".repeat(40), GEOCODER_URL: "http://127.0.0.1:1/reverse", LOG_FORMAT: "json" }

/** Every entry under `dir` (itself included) with its permission bits. */
const modes = (dir: string): Array<{ path: string; mode: number; directory: boolean }> => {
  const found: Array<{ path: string; mode: number; directory: boolean }> = []
  const visit = (path: string) => {
    const stats = lstatSync(path)
    if (stats.isSymbolicLink()) return
    found.push({ path, mode: stats.mode & 0o777, directory: stats.isDirectory() })
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name))
  }
  visit(dir)
  return found
}

const notPrivate = (dir: string) =>
  modes(dir)
    .filter((e) => e.mode !== (e.directory ? 0o700 : 0o600))
    .map((e) => `${e.path.slice(dir.length) || "."} ${e.mode.toString(8)}`)

const lines = (text: string) => text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { message: string; logLevel: string })

/** A database made by the built server under umask 022, with one account in it; copied for each case. */
let template = ""
let umask = 0

/** The first server's own output, for the test that looks at it. */
let firstOutput = ""

beforeAll(async () => {
  await BuiltServer.build()
  // The umask most systems give a service; what PGlite did under it is the finding.
  umask = process.umask(0o022)
  template = join(left.tempDir(), "data")
  const first = left.track(await BuiltServer.start({ ...env, DATA_DIR: template }, { timeoutMs: 150_000 }))
  const created = await BuiltServer.runToExit([BuiltServer.cli, "--email", "ops@example.org"], { ...env, DATA_DIR: template }, {
    input: "a long enough password"
  })
  expect(created.code, created.stderr).toBe(0)
  // While it runs (the lock and the socket are there too).
  runningModes = notPrivate(template)
  first.child.kill("SIGTERM")
  expect(await first.exited).toBe(0)
  firstOutput = first.stdout() + first.stderr()
}, 300_000)

let runningModes: Array<string> = []

afterAll(() => {
  process.umask(umask)
  left.cleanup()
})

/** A copy of the template (what a stopped server left: no socket, no lock). */
const copy = (): string => {
  const dir = join(left.tempDir(), "data")
  cpSync(template, dir, { recursive: true, filter: (source) => !/control\.sock$|climate-grade\.lock/.test(source) })
  return dir
}

const refusal = async (dataDir: string) => {
  // A refusal comes within seconds; a server that starts instead is stopped after a minute and a half.
  const result = await BuiltServer.runToExit([BuiltServer.main], { ...env, PORT: "0", DATA_DIR: dataDir }, { timeoutMs: 90_000 })
  expect(result.code, result.stdout + result.stderr).toBe(1)
  const errors = lines(result.stderr)
  expect(errors, result.stderr).toHaveLength(1)
  expect(errors[0]!.logLevel).toBe("FATAL")
  return errors[0]!.message
}

describe("a private DATA_DIR", () => {
  it("under umask 022, a new database and everything written to it are 0700/0600; a wider one is narrowed with a warning", async () => {
    // While the first server ran (its lock and socket there too), and after it stopped.
    expect(runningModes).toEqual([])
    expect(modes(template).length).toBeGreaterThan(500)
    expect(notPrivate(template)).toEqual([])
    expect(lines(firstOutput).filter((l) => /readable by others/.test(l.message))).toEqual([])

    // Someone widened it (a restore, a careless chmod): the next start narrows it and says so.
    const widened = copy()
    for (const entry of modes(widened)) chmodSync(entry.path, entry.directory ? 0o777 : 0o666)
    const again = left.track(await BuiltServer.start({ ...env, DATA_DIR: widened }, { timeoutMs: 150_000 }))
    const login = await fetch(`http://127.0.0.1:${again.port}/api/v2/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ops@example.org", password: "a long enough password" })
    })
    expect(login.status).toBe(204)
    expect(notPrivate(widened)).toEqual([])
    again.child.kill("SIGTERM")
    expect(await again.exited).toBe(0)
    const warnings = lines(again.stdout() + again.stderr()).filter((l) => /readable by others/.test(l.message))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ logLevel: "WARN", message: expect.stringMatching(/^DATA_DIR .* was readable by others: \d+ entries/) })
  }, 200_000)
})

describe("a DATA_DIR that is not a database is refused, never replaced", () => {
  it("PG_VERSION missing: one line naming it, and nothing written", async () => {
    const dir = copy()
    rmSync(join(dir, "PG_VERSION"))
    const before = modes(dir).length
    expect(await refusal(dir)).toMatch(new RegExp(`^DATA_DIR ${dir} is not a database this server can open: it holds \\d+ entries \\(.*\\) but no PG_VERSION\\. Only an empty or missing DATA_DIR is initialised`))
    expect(existsSync(join(dir, "PG_VERSION"))).toBe(false)
    expect(modes(dir).length).toBe(before)
  }, 200_000)

  it("anything else in it: one line naming what is there", async () => {
    const dir = join(left.tempDir(), "data")
    cpSync(join(template, "base"), join(dir, "base"), { recursive: true })
    writeFileSync(join(dir, "notes.txt"), "mine")
    const before = modes(dir)
    expect(await refusal(dir)).toMatch(/is not a database this server can open: it holds 2 entries \((base, notes\.txt|notes\.txt, base)\) but no PG_VERSION/)
    // Left as it was found, its modes included.
    expect(modes(dir)).toEqual(before)
  }, 200_000)

  it("global/pg_control truncated: one line naming it", async () => {
    const dir = copy()
    truncateSync(join(dir, "global", "pg_control"), 100)
    expect(await refusal(dir)).toMatch(/is not a database this server can open: global\/pg_control is damaged \(100 bytes, not 8192\)/)
  }, 200_000)

  it("a WAL segment truncated: one line naming it", async () => {
    const dir = copy()
    const segment = readdirSync(join(dir, "pg_wal")).find((name) => /^[0-9A-F]{24}$/.test(name))!
    truncateSync(join(dir, "pg_wal", segment), 1000)
    expect(await refusal(dir)).toMatch(new RegExp(`is not a database this server can open: pg_wal/${segment} is damaged \\(1000 bytes`))
  }, 200_000)

  it("a control file damaged inside: PostgreSQL's own words, not the engine's 'Aborted()'", async () => {
    const dir = copy()
    const control = join(dir, "global", "pg_control")
    expect(statSync(control).size).toBe(8192)
    const fd = openSync(control, "r+")
    writeSync(fd, Buffer.alloc(64, 0xde), 0, 64, 16)
    closeSync(fd)
    const line = await refusal(dir)
    expect(line).toMatch(new RegExp(`^Database: The embedded database in ${dir} could not be opened; PostgreSQL said: (PANIC|FATAL): .*control file`))
    expect(line).not.toMatch(/Aborted\(\)/)
  }, 200_000)
})
