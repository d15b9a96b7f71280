/**
 * README's commands in the order a newcomer runs them, on a copy of the repository holding only
 * what a clone holds, installed from the lockfile: `pnpm start`, Ctrl-C, `pnpm demo`, Ctrl-C,
 * `pnpm build`, `pnpm start` again. Each succeeds; Ctrl-C (SIGINT to the whole process group, as a
 * terminal sends it) ends each quietly with status 0 and no `ELIFECYCLE`; the database made by the
 * first start, in the relative default `./.data`, is at the root, owner-only, and opened again by
 * the last; and nothing but the build's files is ever written under apps/server/dist.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { FreshClone } from "@climate-grade/testing"
import { afterAll, describe, expect, it } from "vitest"
import { freePort } from "./support/BuiltServer.js"

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/** A newcomer's shell: this run's environment without the suite's database or data directory. */
const shellEnv = (extra: Record<string, string> = {}) => {
  const { DATABASE_URL: _url, DATA_DIR: _dir, ...rest } = process.env
  return { ...rest, ...extra }
}

const clone = mkdtempSync(join(tmpdir(), "readme-clone-"))
const running = new Set<ChildProcess>()

afterAll(() => {
  for (const child of running) {
    try {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGKILL")
    } catch {
      // Already gone.
    }
  }
  rmSync(clone, { recursive: true, force: true })
})

/** A README command run to its end. */
const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; output: string }>((done) => {
    const child = spawn("pnpm", [...args], { cwd: clone, env: shellEnv(env) })
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000)
    child.on("exit", (code) => {
      clearTimeout(timer)
      done({ code, output })
    })
  })

/**
 * A README command that runs until Ctrl-C: started in a process group of its own, given until
 * `ready` says it serves, then SIGINT to the group. Its status and everything it printed.
 */
const untilCtrlC = async (args: ReadonlyArray<string>, env: Record<string, string>, ready: (output: string) => Promise<boolean>) => {
  const child = spawn("pnpm", [...args], { cwd: clone, detached: true, env: shellEnv(env), stdio: ["ignore", "pipe", "pipe"] })
  running.add(child)
  let output = ""
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
  const started = Date.now()
  while (!(await ready(output))) {
    if (child.exitCode !== null) throw new Error(`pnpm ${args.join(" ")} exited ${child.exitCode}: ${output}`)
    if (Date.now() - started > 300_000) throw new Error(`pnpm ${args.join(" ")} did not start: ${output}`)
    await new Promise((r) => setTimeout(r, 250))
  }
  process.kill(-child.pid!, "SIGINT")
  const code = await exited
  return { code, output }
}

const answers = async (url: string) => {
  try {
    return (await fetch(url)).status === 200
  } catch {
    return false
  }
}

/** Every entry under `dir` whose mode lets anyone but its owner in, as paths relative to `dir`. */
const wider = (dir: string): Array<string> => {
  const found: Array<string> = []
  const visit = (path: string) => {
    const stats = lstatSync(path)
    if (stats.isSymbolicLink()) return
    if ((stats.mode & 0o077) !== 0) found.push(`${relative(dir, path) || "."} ${(stats.mode & 0o777).toString(8)}`)
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name))
  }
  visit(dir)
  return found
}

/** apps/server/dist holds the bundle's files only: scripts and their source maps, no directory. */
const notTheBuilds = () =>
  readdirSync(join(clone, "apps/server/dist")).filter(
    (name) => !(/\.js(\.map)?$/.test(name) && lstatSync(join(clone, "apps/server/dist", name)).isFile())
  )

describe("README's commands from a fresh clone", () => {
  it("pnpm start, Ctrl-C, pnpm demo, Ctrl-C, pnpm build, pnpm start: each succeeds, stops quietly, and writes nothing into dist", async () => {
    FreshClone.copyInto(ROOT, clone)
    expect(existsSync(join(clone, "apps/server/dist"))).toBe(false)
    const install = await run(["install", "--offline", "--frozen-lockfile"], { CI: "true" })
    expect(install.code, install.output).toBe(0)

    const port = await freePort()
    const health = `http://127.0.0.1:${port}/api/v2/health`
    const first = await untilCtrlC(["start"], { PORT: String(port) }, () => answers(health))
    expect(first.code, first.output).toBe(0)
    expect(first.output).toContain("shutting down")
    expect(first.output).not.toContain("ELIFECYCLE")
    // The relative default, at the root where the command ran, owner-only, and nowhere else.
    expect(existsSync(join(clone, ".data/PG_VERSION"))).toBe(true)
    expect(wider(join(clone, ".data"))).toEqual([])
    expect(notTheBuilds()).toEqual([])

    const [demoPort, inboxPort] = [await freePort(), await freePort()]
    const demo = await untilCtrlC(["demo"], { DEMO_PORT: String(demoPort), DEMO_INBOX_PORT: String(inboxPort) }, async (output) =>
      output.includes("Ctrl-C stops everything")
    )
    expect(demo.code, demo.output).toBe(0)
    expect(demo.output).not.toContain("ELIFECYCLE")
    expect(notTheBuilds()).toEqual([])

    const build = await run(["build"])
    expect(build.code, build.output).toBe(0)

    const again = await untilCtrlC(["start"], { PORT: String(port) }, () => answers(health))
    expect(again.code, again.output).toBe(0)
    expect(again.output).not.toContain("ELIFECYCLE")
    // The same database, opened rather than made anew.
    expect(again.output).not.toContain("a new database is made there")
    expect(notTheBuilds()).toEqual([])
    expect(wider(join(clone, ".data"))).toEqual([])
  }, 1_500_000)
})
