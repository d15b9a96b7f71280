/**
 * A bounded soak of the whole service: for SOAK_SECONDS (default 1800: half an hour) a mixed load runs against
 * the built server in its own process — cold cells arriving one at a time, many clients
 * revalidating warm cells and views with If-None-Match, and password logins (some wrong) —
 * with the upstreams faked on loopback. It prints throughput, p50/p99 latency and statuses per
 * kind of request, and the server's resident memory (RSS, and its high-water mark) at the start,
 * every SOAK_SAMPLE_SECONDS (default 60) as it goes, and at the end: after warm-up (the caches
 * filled: they are bounded in bytes) the series should be flat. Beside each sample, what the
 * in-process caches hold together (`cache_bytes` from /metrics), to tell them filling from a leak.
 *   pnpm bench:soak            (embedded PGlite in a temporary DATA_DIR)
 *   DATABASE_URL=postgres://… pnpm bench:soak
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import { root, startService } from "./support/SiteServer.js"

const SECONDS = Number(process.env.SOAK_SECONDS ?? 1800)
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 60)
const REVALIDATORS = Number(process.env.SOAK_CLIENTS ?? 16)
const COLD_EVERY_MS = 2_000
const EMAIL = "soak@example.org"
const PASSWORD = "a soak test password"
const METRICS_TOKEN = "soak-bench-metrics-token"

/** Resident memory of a process in MiB, from /proc (Linux). */
const rssMiB = (pid: number, field = "VmRSS") => {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return match === null ? Number.NaN : Number(match[1]) / 1024
}

class Tally {
  readonly latencies: Array<number> = []
  readonly statuses = new Map<string, number>()
  count(status: string, ms: number) {
    this.latencies.push(ms)
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1)
  }
  line(name: string, seconds: number) {
    const sorted = [...this.latencies].sort((a, b) => a - b)
    const at = (q: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!)
    const statuses = [...this.statuses].sort().map(([s, n]) => `${s}×${n}`).join(" ")
    console.log(
      `  ${name.padEnd(14)} ${String(sorted.length).padStart(7)} req  ${(sorted.length / seconds).toFixed(1).padStart(8)} req/s  p50 ${at(0.5).toFixed(1).padStart(7)} ms  p99 ${at(0.99).toFixed(1).padStart(7)} ms  ${statuses}`
    )
  }
}

const timed = async (tally: Tally, run: () => Promise<Response>) => {
  const t0 = performance.now()
  try {
    const response = await run()
    await response.arrayBuffer()
    tally.count(String(response.status), performance.now() - t0)
    return response
  } catch (error) {
    tally.count(`error:${(error as Error).name}`, performance.now() - t0)
    return undefined
  }
}

const main = Effect.gen(function* () {
  const weather = yield* FakeOpenMeteo.make
  const geocoder = yield* FakeNominatim.make
  execFileSync("pnpm", ["build"], { cwd: root, stdio: "inherit" })
  const dataDir = mkdtempSync(join(tmpdir(), "cg-soak-"))
  const database = process.env.DATABASE_URL === undefined ? {} : { DATABASE_URL: process.env.DATABASE_URL }
  const env = {
    PORT: "0",
    DATA_DIR: dataDir,
    AUTH_SECRET: "s".repeat(40),
    LOG_FORMAT: "json",
    ...FakeEnv.upstreams(weather, geocoder),
    WEATHER_DAILY_UNITS: "1000000",
    // Every cold cell comes from one client here: no share of the day, so none is refused.
    WEATHER_CLIENT_SHARE: "100",
    HISTORY_START: "1950-01-01",
    METRICS_TOKEN,
    ...database
  }
  // The operator command creates the account before the service owns the data directory.
  execFileSync(process.execPath, [join(root, "apps/server/dist/cli.js"), "--email", EMAIL], {
    env: { PATH: process.env.PATH ?? "", ...env },
    input: PASSWORD,
    stdio: ["pipe", "inherit", "inherit"]
  })
  const service = yield* Effect.promise(() => startService(env))
  yield* Effect.addFinalizer(() =>
    Effect.promise(
      () =>
        new Promise<void>((done) => {
          service.child.once("exit", () => done())
          service.child.kill("SIGTERM")
        })
    ).pipe(Effect.ensuring(Effect.sync(() => rmSync(dataDir, { recursive: true, force: true }))))
  )
  const base = `http://127.0.0.1:${service.port}/api/v2`
  /** The in-process caches' bytes together, in MiB, from /metrics. */
  const cachesMiB = async () => {
    const text = await (await fetch(`http://127.0.0.1:${service.port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()
    const bytes = [...text.matchAll(/^cache_bytes\{[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0)
    return bytes / 1024 / 1024
  }
  const pid = service.child.pid!

  // A few warm cells, so revalidations have something to revalidate.
  const warm: Array<{ path: string; etag: string }> = []
  for (const [lat, lon] of [
    [52.52, 13.41],
    [40.71, -74.0],
    [-33.87, 151.21],
    [35.68, 139.69]
  ]) {
    for (const view of ["cell", "grade", "forecast", "calendar", "day"]) {
      const path = `/${view}?lat=${lat}&lon=${lon}`
      const answer = yield* Effect.promise(() => fetch(`${base}${path}`))
      yield* Effect.promise(() => answer.arrayBuffer())
      if (answer.status !== 200) throw new Error(`warming ${path}: ${answer.status}`)
      warm.push({ path, etag: answer.headers.get("etag")! })
    }
  }
  const memory: Array<string> = [`start ${rssMiB(pid).toFixed(0)} MiB`]
  console.log(`soak: ${SECONDS} s, ${REVALIDATORS} revalidating clients, a cold cell every ${COLD_EVERY_MS} ms, logins; RSS at start ${rssMiB(pid).toFixed(0)} MiB`)

  const tallies = { revalidate: new Tally(), cold: new Tally(), login: new Tally(), wrongLogin: new Tally() }
  const until = Date.now() + SECONDS * 1_000
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

  const revalidator = async (i: number) => {
    let n = i
    while (Date.now() < until) {
      const { path, etag } = warm[n++ % warm.length]!
      await timed(tallies.revalidate, () => fetch(`${base}${path}`, { headers: { "if-none-match": etag, "accept-encoding": "gzip" } }))
    }
  }
  const coldCells = async () => {
    let i = 0
    while (Date.now() < until) {
      const lat = (-60 + ((i * 7.25) % 120)).toFixed(2)
      const lon = (-179 + ((i * 13.5) % 358)).toFixed(2)
      i++
      void timed(tallies.cold, () => fetch(`${base}/cell?lat=${lat}&lon=${lon}`, { headers: { "accept-encoding": "gzip" } }))
      await sleep(COLD_EVERY_MS)
    }
  }
  const logins = async () => {
    let i = 0
    // As a browser would, it keeps the known-device cookie of its first sign-in: its own failures
    // then count for it alone (a success starts them over), not towards the account's slowdown.
    let device: string | undefined
    while (Date.now() < until) {
      const wrong = i++ % 10 === 9
      await timed(wrong ? tallies.wrongLogin : tallies.login, async () => {
        const response = await fetch(`${base}/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(device === undefined ? {} : { cookie: `known_device=${device}` }) },
          body: JSON.stringify({ email: EMAIL, password: wrong ? "not the password" : PASSWORD })
        })
        device = response.headers.getSetCookie().map((c) => /^known_device=([^;]+)/.exec(c)?.[1]).find((v) => v !== undefined) ?? device
        return response
      })
      await sleep(200)
    }
  }
  const sampler = async () => {
    const started = Date.now()
    while (Date.now() < until) {
      await sleep(Math.min(SAMPLE_SECONDS * 1000, Math.max(0, until - Date.now())))
      const sample = `${Math.round((Date.now() - started) / 1000)} s ${rssMiB(pid).toFixed(0)} MiB`
      memory.push(sample)
      const caches = await cachesMiB().then((m) => `${m.toFixed(0)} MiB`, () => "?")
      console.log(`  RSS ${sample} (high-water ${rssMiB(pid, "VmHWM").toFixed(0)} MiB; caches ${caches})`)
    }
  }
  const t0 = Date.now()
  yield* Effect.promise(() =>
    Promise.all([...Array.from({ length: REVALIDATORS }, (_, i) => revalidator(i)), coldCells(), logins(), sampler()])
  )
  // Let the last cold cells finish before reading the figures.
  yield* Effect.promise(() => sleep(5_000))
  const seconds = (Date.now() - t0) / 1000
  console.log(`after ${seconds.toFixed(0)} s:`)
  tallies.revalidate.line("revalidation", seconds)
  tallies.cold.line("cold cell", seconds)
  tallies.login.line("login", seconds)
  tallies.wrongLogin.line("wrong login", seconds)
  console.log(`  RSS: ${memory.join(", ")}; end ${rssMiB(pid).toFixed(0)} MiB`)
})

Effect.runPromise(Effect.scoped(main)).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
