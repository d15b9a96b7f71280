/**
 * The core and the command line as someone outside this repository gets them: `pnpm pack` tarballs
 * installed with npm into an empty directory under the system's temporary one, imported and run with
 * plain `node` (no workspace, no TypeScript loader). The command line's numbers on a 75-year file are
 * checked against the grading and trend rules written again in Python (scipy's percentileofscore,
 * numpy's quantiles: packages/core/test/grading/reference.py).
 */
import { execFile, spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const packages = join(import.meta.dirname, "../..")
// The python3 on PATH, as the grading comparison in core uses (PYTHON to choose another).
const PYTHON = process.env.PYTHON ?? "python3"
const reference = join(packages, "core/test/grading/reference.py")
const hasScipy = spawnSync(PYTHON, ["-c", "import scipy, numpy"], { stdio: "ignore" }).status === 0
if (!hasScipy && process.env.CI !== undefined) throw new Error(`CI must have scipy and numpy for ${PYTHON}`)

let dir: string
let bin: string

// Every child process is awaited, never run synchronously: a test worker whose event loop is blocked
// for a minute (a loaded machine, Python on 75 years) loses its line to vitest, which then fails the
// run with "Timeout calling onTaskUpdate" though every test passed.
const run = promisify(execFile)

/** `command args…` in `cwd` with `input` on its standard input: its status and both outputs, once it has ended. */
const finished = (command: string, args: ReadonlyArray<string>, cwd: string, input: string) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(command, [...args], { cwd, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    child.on("error", fail)
    child.on("close", (status) => done({ status, stdout, stderr }))
    child.stdin.end(input)
  })

const pack = async (name: string): Promise<string> => {
  const { stdout } = await run("pnpm", ["pack", "--pack-destination", dir], { cwd: join(packages, name), encoding: "utf8" })
  return stdout.trim().split("\n").pop()!.trim()
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "climate-grade-outside-"))
  // One after the other: the command line's build reads the core's declarations.
  const tarballs = [await pack("core"), await pack("cli")]
  const app = join(dir, "app")
  mkdirSync(app)
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "outside", private: true, type: "module" }))
  // From npm's cache when it holds effect and @noble/hashes; the registry otherwise.
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs], { cwd: app })
  bin = join(app, "node_modules/.bin/climate-grade")
}, 600_000)
afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

const node = async (script: string) =>
  (await run(process.execPath, ["--input-type=module", "-e", script], { cwd: join(dir, "app"), encoding: "utf8" })).stdout

const cli = (args: ReadonlyArray<string>, input?: string) => finished(process.execPath, [bin, ...args], dir, input ?? "")

// A 75-year record, 1950–2024, with gaps and missing cells, made by a seeded generator.
let seed = 75
const random = () => {
  seed = (Math.imul(seed ^ (seed >>> 15), 2246822507) + 0x9e3779b9) >>> 0
  return seed / 2 ** 32
}
const DAY = 86_400_000
const first = Date.UTC(1950, 0, 1)
const days = (Date.UTC(2024, 11, 31) - first) / DAY + 1
const rows = Array.from({ length: days }, (_, i) => {
  const season = Math.sin((2 * Math.PI * (i - 110)) / 365.25)
  const cell = (x: number) => (random() < 0.01 ? "" : (Math.round(x * 10) / 10).toFixed(1))
  const wet = random()
  return {
    date: new Date(first + i * DAY).toISOString().slice(0, 10),
    tmax: cell(15 + i / 4000 + 11 * season + random() * 6),
    tmin: cell(5 + i / 5000 + 8 * season + random() * 5),
    precip: wet < 0.6 ? "0.0" : cell((wet - 0.6) * 30)
  }
})
const csv = `date,tmax,tmin,precip\n${rows.map((r) => `${r.date},${r.tmax},${r.tmin},${r.precip}`).join("\n")}\n`
const csvFile = () => {
  const file = join(dir, "seventy-five-years.csv")
  writeFileSync(file, csv)
  return file
}

const python = async <A>(request: unknown): Promise<A> => {
  const r = await finished(PYTHON, [reference], dir, JSON.stringify(request))
  if (r.status !== 0) throw new Error(`${PYTHON} ${reference} ended with ${r.status}: ${r.stderr}`)
  return JSON.parse(r.stdout) as A
}
const column = (v: "tmax" | "tmin" | "precip") => rows.map((r) => (r[v] === "" ? null : Number(r[v])))
const round = (x: number, digits: number) => {
  const f = 10 ** digits
  const r = Math.floor(Math.abs(x) * f + 1e-9 + 0.5) / f
  return x < 0 ? -r : r
}

describe("outside the workspace", () => {
  it("the core's tarball imports with plain node: the rules, the whole package, and its README's example", async () => {
    const rules = JSON.parse(
      await node(`import * as R from "@climate-grade/core/rules"; console.log(JSON.stringify({ keys: Object.keys(R).sort(), key: R.Cell.fromCoordinates(-0.1, 13.4).key, label: R.Percentile.label(5, 95, 0, 10) }))`)
    )
    expect(rules.keys).toContain("Grader")
    expect(rules.keys).toContain("Spells")
    expect(rules.key).toBe("0.00,13.50")
    expect(rules.label).toBe("much-above")
    expect(await node(`import { Cell, Grader, Trend } from "@climate-grade/core"; console.log(typeof Cell.fromCoordinates, typeof Grader.makeGrader, typeof Trend.build)`)).toBe(
      "function function function\n"
    )
    const readme = readFileSync(join(packages, "core/README.md"), "utf8")
    const example = /```js\n([\s\S]*?)```/.exec(readme)![1]!
    writeFileSync(join(dir, "app/example.mjs"), example)
    const { stdout: out } = await run(process.execPath, ["example.mjs"], { cwd: join(dir, "app"), encoding: "utf8" })
    expect(out).toContain("record-high")
  })

  it("bad input: one line naming the row and column on stderr, nothing on stdout, status 2", async () => {
    const bad = csv.replace(`${rows[9]!.date},${rows[9]!.tmax}`, `${rows[9]!.date},warm`)
    const r = await cli(["grade", "-"], bad)
    expect(r).toEqual({ status: 2, stdout: "", stderr: expect.stringMatching(/^climate-grade: .*row 11, column 2 \(tmax\): "warm" is not a number\n$/) })
    for (const [args, input] of [
      [["grade", "-"], "when,tmax\n2020-01-01,1\n"],
      [["trend", "-"], "date,tmax\n2020-01-01,1\n2020-02-30,1\n"],
      [["spells", "-"], "date,tmax\n2020-01-02,1\n2020-01-01,1\n"],
      [["grade", join(dir, "absent.csv")], ""],
      [["grade", "-", "--date", "2020-13-01"], "date,tmax\n2020-01-01,1\n"],
      [["frobnicate", "-"], ""]
    ] as const) {
      const out = await cli(args, input)
      expect([args, out.status, out.stdout]).toEqual([args, 2, ""])
      expect(out.stderr.split("\n")).toHaveLength(2)
    }
  })

  it.runIf(hasScipy)("grade agrees with the grading rules computed in Python, for the last day and a chosen one", async () => {
    const file = csvFile()
    const dates = [undefined, "2003-08-10", "2024-02-29"] as const
    const targets = dates.map((date) => date ?? "2024-12-31")
    type Answer = { n: number; p: number | null; q: Array<number> | null; min: number; max: number }
    const answers = Object.fromEntries(
      await Promise.all(
        (["tmax", "tmin", "precip"] as const).map(async (v) => [v, await python<Array<Answer>>({ kind: "record", start: "1950-01-01", values: column(v), targets })] as const)
      )
    )
    for (const [i, date] of dates.entries()) {
      const r = await cli(["grade", file, "--json", ...(date === undefined ? [] : ["--date", date])])
      expect(r.status).toBe(0)
      const ours = JSON.parse(r.stdout)
      const target = targets[i]!
      expect(ours.date).toBe(target)
      expect(ours).not.toHaveProperty("view")
      expect(ours).not.toHaveProperty("cell")
      for (const v of ["tmax", "tmin", "precip"] as const) {
        const expected = answers[v]![i]
        const g = ours.variables[v]
        expect([v, g.n]).toEqual([v, expected!.n])
        expect([v, g.percentile]).toEqual([v, expected!.p === null ? null : round(expected!.p, 1)])
        const x = column(v)[rows.findIndex((row) => row.date === target)]
        const label =
          expected!.p === null
            ? null
            : x! > expected!.max
              ? "record-high"
              : x! < expected!.min
                ? "record-low"
                : expected!.p < 10
                  ? "much-below"
                  : expected!.p < 100 / 3
                    ? "below"
                    : expected!.p <= 200 / 3
                      ? "near-normal"
                      : expected!.p <= 90
                        ? "above"
                        : "much-above"
        expect([v, g.label]).toEqual([v, label])
        const c = g.climatology
        expect([c.p10, c.p25, c.p50, c.p75, c.p90]).toEqual(expected!.q!.map((q) => round(q, 2)))
        expect([c.min.value, c.max.value]).toEqual([round(expected!.min, 2), round(expected!.max, 2)])
      }
    }
    const text = await cli(["grade", file])
    expect(text.status).toBe(0)
    expect(text.stdout).toContain("Tue 31 December 2024")
    expect(text.stdout).toMatch(/percentile/)
  }, 120_000)

  it.runIf(hasScipy)("trend agrees with the trend rules computed in Python", async () => {
    const file = csvFile()
    const r = await cli(["trend", file, "--json"])
    expect(r.status).toBe(0)
    const ours = JSON.parse(r.stdout)
    const expected = await python<{
      first: string
      last: string
      years: Array<Record<string, number | null>>
      periods: Record<string, { from: string; to: string; variables: Record<string, Record<string, unknown>> }>
    }>({ kind: "trend", start: "1950-01-01", tmax: column("tmax"), tmin: column("tmin"), precip: column("precip") })
    expect([ours.first, ours.last]).toEqual([expected.first, expected.last])
    expect(ours.baseline).toEqual({ from: 1961, to: 1990 })
    expect(ours.years).toEqual(expected.years.map(({ days, precip, tmax, tmin, year }) => ({ year, days, tmax, tmin, precip })))
    for (const name of ["month", "season", "year"]) {
      const period = expected.periods[name]!
      expect([ours.periods[name].from, ours.periods[name].to]).toEqual([period.from, period.to])
      for (const v of ["tmax", "tmin", "precip"]) {
        const { exact: _, ...standing } = period.variables[v]!
        expect([name, v, ours.periods[name].variables[v]]).toEqual([name, v, standing])
      }
    }
    expect((await cli(["trend", file])).stdout).toMatch(/Year so far \(2024-01-01 to 2024-12-31\)/)
  }, 120_000)

  it("spells prints the spells of the file", async () => {
    const r = await cli(["spells", csvFile(), "--json"])
    expect(r.status).toBe(0)
    const ours = JSON.parse(r.stdout)
    expect(ours.first).toBe("1950-01-01")
    expect(ours.until).toBe("2024-12-31")
    expect(ours.baseline).toEqual({ from: 1961, to: 1990 })
    expect(ours.top.heat.length).toBeGreaterThan(0)
    expect((await cli(["spells", csvFile()])).stdout).toMatch(/^Heat waves: \d+/m)
  })
})
