/**
 * `pnpm bench:http-instructions`: bench:http (a) counted in instructions rather than requests per
 * second, so that it means the same on a busy shared machine as on a quiet one. The built service
 * (on PostgreSQL: `DATABASE_URL` is required, since an in-memory database would be created under
 * valgrind, very slowly) and a bare `node:http` server sending the same 304 header for header each
 * run under valgrind's callgrind; after a warm-up of 20,000 revalidations, callgrind counts the
 * user-space instructions of the next BENCH_ANSWERS (default 20,000), and the bench prints the
 * count per answer, the ratio (bare / ours), and the functions where the two differ most. The
 * kernel's share (the socket writes, the same for both) is not counted, so the throughput ratio
 * of bench:http (a) is higher than this one. Needs Debian's `valgrind`.
 *   DATABASE_URL=postgres://… pnpm bench:http-instructions
 * Under valgrind the held answer's validity (at most a minute) can end within the counted window,
 * and the service's timed background work runs in it, so the whole service's counts vary by
 * several thousand from run to run. `front-door` counts the front door alone instead (index,
 * access log, metrics; no app, no database: bench/support/FrontDoorAlone.ts, bundled here with
 * esbuild):
 *   pnpm bench:http-instructions front-door
 * On one machine two runs in a row agreed within 0.3 % (runs an hour apart, ~2.5 %); on another,
 * with nothing else running, runs in a row were up to ~3 % apart (72,400–75,000), even after
 * 80,000 answers of warm-up, V8's optimising compiler still at work within the counted window now
 * and then: a change smaller than that needs several runs each. BENCH_WARM_UP (default 20,000)
 * sets the answers before the count; BENCH_SERVICE_ENV (JSON) adds to the front door's environment.
 */
import { execFileSync, spawn } from "node:child_process"
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import { bareServerScript, fetchRaw, headersAsSent } from "./support/Bare.js"
import { annotate } from "./support/Callgrind.js"
import { buildFrontDoorAlone, checkHeld, frontDoorEnv, REVALIDATION } from "./support/FrontDoorRun.js"

const root = join(import.meta.dirname, "..")
const ANSWERS = Number(process.env.BENCH_ANSWERS ?? 20_000)
/** Answers before the count starts (BENCH_WARM_UP): V8 still optimising code within the counted answers adds its compiler's work to them. */
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 20_000)
const autocannon = join(dirname(createRequire(import.meta.url).resolve("autocannon")), "autocannon.js")
const work = mkdtempSync(join(tmpdir(), "bench-cg-"))

const run = (command: string, args: ReadonlyArray<string>) => execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

/**
 * `node args…` under callgrind, its instrumentation off until asked; resolves with its port. Its
 * output goes to a file, as a deployment's would (and as in bench:http), not to a pipe this
 * process may be slow to read: a full pipe makes the log's writes wait, and their bytes be kept.
 */
const underCallgrind = async (name: string, args: ReadonlyArray<string>, env: Record<string, string>, listening: RegExp) => {
  const logFile = join(work, `${name}.log`)
  const fd = openSync(logFile, "w")
  const child = spawn(
    "valgrind",
    ["--tool=callgrind", "--smc-check=all", "--instr-atstart=no", `--callgrind-out-file=${join(work, `${name}.out`)}`, process.execPath, ...args],
    { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", fd, fd] }
  )
  closeSync(fd)
  let output = ""
  for (let waited = 0; waited < 600_000; waited += 500) {
    output = readFileSync(logFile, "utf8")
    const match = listening.exec(output)
    if (match !== null) return { child, port: Number(match[1]) }
    if (child.exitCode !== null) break
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  child.kill("SIGKILL")
  throw new Error(`${name} did not start under valgrind:\n${output}`)
}

/** Instructions per answer: a warm-up, then ANSWERS revalidations counted. */
const count = (name: string, pid: number, url: string, headers: Record<string, string>) => {
  const h = Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}=${v}`])
  run(process.execPath, [autocannon, "-a", String(WARM_UP), "-c", "8", ...h, url])
  run("callgrind_control", ["-i", "on", String(pid)])
  run(process.execPath, [autocannon, "-a", String(ANSWERS), "-c", "8", ...h, url])
  run("callgrind_control", ["-d", String(pid)])
  // The dump is written by the target itself, at its next basic block: wait for it.
  const dumped = () => readdirSync(work).filter((f) => f.startsWith(`${name}.out.`)).sort().at(-1)
  for (let waited = 0; dumped() === undefined && waited < 60_000; waited += 100) execFileSync("sleep", ["0.1"])
  if (dumped() === undefined) throw new Error(`callgrind wrote no dump for ${name} in ${work}`)
  const file = join(work, dumped()!)
  const { total, byFunction } = annotate(file, ANSWERS)
  return { perAnswer: total, byFunction }
}

/** The front door alone against the bare server, each under callgrind. */
const frontDoorAlone = async () => {
  const bundle = await buildFrontDoorAlone(work)
  const ours = await underCallgrind("ours", [bundle], frontDoorEnv(), /PORT (\d+)/)
  const { url, headers } = await checkHeld(ours.port)
  const a = count("ours", ours.child.pid!, url, REVALIDATION)
  ours.child.kill("SIGKILL")
  return { a, headers, request: REVALIDATION }
}

/** The bare server sending `headers` with a 304, counted alike. */
const bareCount = async (headers: Record<string, string>, request: Record<string, string>) => {
  const script = join(work, "bare.cjs")
  writeFileSync(script, bareServerScript(304, headers, Buffer.alloc(0)))
  const bare = await underCallgrind("bare", [script], {}, /PORT (\d+)/)
  const b = count("bare", bare.child.pid!, `http://127.0.0.1:${bare.port}/`, request)
  bare.child.kill("SIGKILL")
  return b
}

type Counted = ReturnType<typeof count>

const print = (name: string, a: Counted, b: Counted) => {
  console.log(`304 on /cell, access log and metrics on, ${ANSWERS} answers counted after a warm-up (user-space instructions, callgrind):`)
  console.log(`  ${name}: ${a.perAnswer.toFixed(0)} per answer, bare node:http (the same 304) ${b.perAnswer.toFixed(0)}: bare / ours ${(b.perAnswer / a.perAnswer).toFixed(3)}`)
  console.log("  where they differ most (instructions per answer: ours, bare):")
  const names = new Set([...a.byFunction.keys(), ...b.byFunction.keys()])
  const rows = [...names].map((n) => [n, a.byFunction.get(n) ?? 0, b.byFunction.get(n) ?? 0] as const)
  rows.sort((x, y) => Math.abs(y[1] - y[2]) - Math.abs(x[1] - x[2]))
  for (const [n, o, r] of rows.slice(0, 12)) console.log(`  ${o.toFixed(0).padStart(7)} ${r.toFixed(0).padStart(7)}  ${n.slice(0, 110)}`)
}

const main = Effect.gen(function* () {
  if (process.argv[2] === "front-door") {
    yield* Effect.promise(async () => {
      const { a, headers, request } = await frontDoorAlone()
      const b = await bareCount(headers, request)
      print("the front door alone (index, access log, metrics; no app, no database)", a, b)
    })
    return
  }
  const databaseUrl = process.env.DATABASE_URL
  if (databaseUrl === undefined || !databaseUrl.startsWith("postgres")) {
    console.log("bench:http-instructions needs DATABASE_URL=postgres://… (an in-memory database under valgrind takes too long to create)")
    return
  }
  const weather = yield* FakeOpenMeteo.make
  const geocoder = yield* FakeNominatim.make
  execFileSync(process.execPath, ["build.mjs"], { cwd: join(root, "apps/server"), stdio: "inherit" })
  yield* Effect.promise(async () => {
    const ours = await underCallgrind(
      "ours",
      [join(root, "apps/server/dist/main.js")],
      {
        PORT: "0",
        DATABASE_URL: databaseUrl,
        AUTH_SECRET: "b".repeat(40),
        LOG_FORMAT: "json",
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: "1940-01-01",
        WEATHER_DAILY_UNITS: "unlimited"
      },
      /Listening on http:\/\/[^:]+:(\d+)/
    )
    const url = `http://127.0.0.1:${ours.port}/api/v2/cell?lat=52.52&lon=13.41`
    const first = await fetchRaw(url, { "accept-encoding": "gzip" })
    const etag = first.headers.etag!
    const request = { "if-none-match": etag, "accept-encoding": "gzip" }
    const again = await fetchRaw(url, request)
    if (again.status !== 304) throw new Error(`revalidation answered ${again.status}`)
    const headers = headersAsSent(again.headers)
    const a = count("ours", ours.child.pid!, url, request)
    ours.child.kill("SIGKILL")
    const b = await bareCount(headers, request)
    print("climate-grade", a, b)
  })
})

Effect.runPromise(Effect.scoped(main)).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
