/**
 * `pnpm bench:cold-instructions`: bench:http (c), the cold bundle, counted in instructions rather
 * than milliseconds, so that it means the same on a busy shared machine as on a quiet one. The
 * built service runs under valgrind's callgrind on the embedded database (an on-disk `DATA_DIR`,
 * created beforehand by a child process outside valgrind), upstreams on loopback with 85 years
 * of history; after BENCH_WARM cold cells (default 6) for the JIT, callgrind counts the
 * instructions of the next BENCH_CELLS (default 10), every thread included (the collector's
 * too), and the bench prints the count per cold cell and the functions that took most. Each cell
 * waits for the last to be answered and for the service to go quiet, so the count is the cell's
 * work and whatever it left to do (a collection, the database's housekeeping). Needs Debian's
 * `valgrind`.
 *   pnpm bench:cold-instructions
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import { fetchRaw } from "./support/Bare.js"
import { annotate } from "./support/Callgrind.js"

const root = join(import.meta.dirname, "..")
const WARM = Number(process.env.BENCH_WARM ?? 6)
const CELLS = Number(process.env.BENCH_CELLS ?? 10)
const work = mkdtempSync(join(tmpdir(), "bench-cold-"))
/** BENCH_NODE_FLAGS adds Node flags to the service's command line, e.g. "--max-semi-space-size=32". */
const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter((f) => f !== "")

const run = (command: string, args: ReadonlyArray<string>) => execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const main = Effect.gen(function* () {
  const weather = yield* FakeOpenMeteo.make
  const geocoder = yield* FakeNominatim.make
  execFileSync(process.execPath, ["build.mjs"], { cwd: join(root, "apps/server"), stdio: "inherit" })
  yield* Effect.promise(async () => {
    const child = spawn(
      "valgrind",
      ["--tool=callgrind", "--smc-check=all", "--instr-atstart=no", `--callgrind-out-file=${join(work, "cold.out")}`, process.execPath, ...nodeFlags, join(root, "apps/server/dist/main.js")],
      {
        env: {
          PATH: process.env.PATH ?? "",
          PORT: "0",
          DATA_DIR: join(work, "data"),
          AUTH_SECRET: "b".repeat(40),
          LOG_FORMAT: "json",
          ...FakeEnv.upstreams(weather, geocoder),
          HISTORY_START: "1940-01-01",
          WEATHER_DAILY_UNITS: "unlimited"
        },
        stdio: ["ignore", "pipe", "pipe"]
      }
    )
    let output = ""
    child.stdout.on("data", (d: Buffer) => {
      output += d
    })
    child.stderr.on("data", (d: Buffer) => {
      output += d
    })
    let port: number | undefined
    for (let waited = 0; port === undefined && waited < 900_000; waited += 500) {
      const match = /Listening on http:\/\/[^:]+:(\d+)/.exec(output)
      if (match !== null) port = Number(match[1])
      else if (child.exitCode !== null) break
      else await sleep(500)
    }
    if (port === undefined) throw new Error(`the service did not start under valgrind:\n${output}`)
    const cold = async (i: number) => {
      // 1.1 s apart at least: the geocoder is paced at one call a second.
      await sleep(1100)
      const answer = await fetchRaw(`http://127.0.0.1:${port}/api/v2/cell?lat=${(10 + i * 1.5).toFixed(2)}&lon=-40`, { "accept-encoding": "gzip" })
      if (answer.status !== 200) throw new Error(`cold cell ${i}: status ${answer.status}`)
      // What the cell left to do in the background (the label, a collection) finishes before the next.
      await sleep(3000)
    }
    for (let i = 0; i < WARM; i++) await cold(i)
    run("callgrind_control", ["-i", "on", String(child.pid)])
    for (let i = WARM; i < WARM + CELLS; i++) await cold(i)
    run("callgrind_control", ["-d", String(child.pid)])
    const dumped = () => readdirSync(work).filter((f) => f.startsWith("cold.out.")).sort().at(-1)
    for (let waited = 0; dumped() === undefined && waited < 60_000; waited += 100) await sleep(100)
    child.kill("SIGKILL")
    const file = join(work, dumped()!)
    const { total, byFunction } = annotate(file, CELLS)
    console.log(`cold bundle, 85 years, embedded database: ${(total / 1e6).toFixed(1)} M instructions per cold cell (${CELLS} cells after ${WARM} for warm-up, callgrind, all threads)`)
    // V8's collector, by its function names (its generated code is not among them).
    const collector = [...byFunction].filter(([fn]) => /Scaveng|Mark|Sweep|Evacuat|Compact|v8::internal::Heap::|RememberedSet|SlotSet|Remembered/.test(fn))
    console.log(`  of which the collector: ${(collector.reduce((sum, [, n]) => sum + n, 0) / 1e6).toFixed(1)} M (functions named after its phases)`)
    for (const [fn, n] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
      console.log(`  ${(n / 1e6).toFixed(2).padStart(7)} M  ${fn.slice(0, 110)}`)
    }
  })
})

Effect.runPromise(Effect.scoped(main)).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
