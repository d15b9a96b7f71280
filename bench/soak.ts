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
 *
 * `pnpm bench:soak flood` instead checks that the caches' metric accounts for the memory a client
 * can make the service hold: after warm-up it notes the idle RSS, then FLOOD_URLS (default 5,000)
 * distinct ~14 KB URLs of warm cells' views (an unknown parameter padded out: each is a new entry
 * of the response index, key and body), each asked FLOOD_ASKS times (default 2), from
 * FLOOD_CLIENTS (default 8) connections at once, and compares the RSS after with the idle RSS plus
 * what the caches took on (`cache_bytes`), straight after and after FLOOD_REST_SECONDS at rest.
 * Every reading is taken after a full GC (the service runs with `--expose-gc` and
 * bench/support/memory-on-signal.cjs), with the heap's split beside it; RSS still holds memory
 * freed but not returned to the system.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
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

const MODE = process.argv[2] ?? "soak"
const FLOOD_URLS = Number(process.env.FLOOD_URLS ?? 5_000)
/** How long the service rests after the flood before the last reading (V8 gives back heap pages it no longer needs when idle). */
const FLOOD_REST_SECONDS = Number(process.env.FLOOD_REST_SECONDS ?? 30)
const FLOOD_CLIENTS = Number(process.env.FLOOD_CLIENTS ?? 8)
/**
 * How many times each URL is asked for in a row (default 2): the second is answered from the
 * response index, whose entry then keeps what the front door works out for it (its loggable path,
 * its prebuilt heads) — the most a URL can make the index hold.
 */
const FLOOD_ASKS = Number(process.env.FLOOD_ASKS ?? 2)
/** More flags for the service's node in the flood (space-separated, e.g. `--max-semi-space-size=2 --trace-gc-nvp`). */
const FLOOD_NODE_FLAGS = (process.env.FLOOD_NODE_FLAGS ?? "").split(" ").filter((flag) => flag !== "")
/**
 * More environment for the service, as JSON (both modes), e.g.
 * '{"GLIBC_TUNABLES":"glibc.malloc.trim_threshold=131072:glibc.malloc.mmap_threshold=131072"}'.
 */
const SERVICE_ENV = JSON.parse(process.env.SOAK_SERVICE_ENV ?? "{}") as Record<string, string>
/** A file the flood writes the service's standard output to at the end (with `--trace-gc-nvp`: each collection's figures). */
const FLOOD_STDOUT = process.env.FLOOD_STDOUT
/** About the longest request line Node's 16 KB header limit lets through with a few headers. */
const FLOOD_URL_BYTES = 14 * 1024
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The flood reads memory after a GC the service does itself on SIGUSR2 (see memory-on-signal.cjs). */
const MEMORY_FLAGS = ["--expose-gc", "--require", join(import.meta.dirname, "support/memory-on-signal.cjs")]

/** The built service on fake upstreams, an account made, a few warm cells; stopped with the scope. */
const started = Effect.gen(function* () {
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
    ...database,
    ...SERVICE_ENV
  }
  // The operator command creates the account before the service owns the data directory.
  execFileSync(process.execPath, [join(root, "apps/server/dist/cli.js"), "--email", EMAIL], {
    env: { PATH: process.env.PATH ?? "", ...env },
    input: PASSWORD,
    stdio: ["pipe", "inherit", "inherit"]
  })
  const service = yield* Effect.promise(() => startService(env, MODE === "flood" ? [...MEMORY_FLAGS, ...FLOOD_NODE_FLAGS] : []))
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
  return { service, base, cachesMiB, pid, warm }
})

const soak = Effect.gen(function* () {
  const { base, cachesMiB, pid, warm } = yield* started
  const memory: Array<string> = [`start ${rssMiB(pid).toFixed(0)} MiB`]
  console.log(`soak: ${SECONDS} s, ${REVALIDATORS} revalidating clients, a cold cell every ${COLD_EVERY_MS} ms, logins; RSS at start ${rssMiB(pid).toFixed(0)} MiB`)

  const tallies = { revalidate: new Tally(), cold: new Tally(), login: new Tally(), wrongLogin: new Tally() }
  const until = Date.now() + SECONDS * 1_000

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

const flood = Effect.gen(function* () {
  const { service, base, cachesMiB, pid, warm } = yield* started
  /** After a full GC in the service: its RSS from /proc, its own split of memory, and the caches' metric. */
  const reading = async () => {
    const lines = () => service.stderr().split("\n").filter((l) => l.startsWith("bench-memory "))
    const before = lines().length
    service.child.kill("SIGUSR2")
    while (lines().length === before) await sleep(20)
    const usage = JSON.parse(lines().at(-1)!.slice("bench-memory ".length)) as NodeJS.MemoryUsage & {
      readonly spaces: Record<string, readonly [physical: number, used: number]>
    }
    return { rss: rssMiB(pid), usage, caches: await cachesMiB() }
  }
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)}`
  // What RSS holds beyond V8's heap and the external memory V8 knows of: code, stacks, the allocator's own (zlib, the parser).
  const describe = (r: Awaited<ReturnType<typeof reading>>) =>
    `RSS ${r.rss.toFixed(1)} MiB (heap used ${mib(r.usage.heapUsed)} of ${mib(r.usage.heapTotal)}, external ${mib(r.usage.external)} ` +
    `of which array buffers ${mib(r.usage.arrayBuffers)}, the rest ${(r.rss - (r.usage.heapTotal + r.usage.external) / 1048576).toFixed(1)}); ` +
    `caches ${r.caches.toFixed(1)} MiB\n    heap resident/used by space: ${Object.entries(r.usage.spaces)
      .map(([name, [physical, used]]) => `${name.replace(/_space$/, "")} ${mib(physical)}/${mib(used)}`)
      .join(", ")}`

  // Idle: warm, then left alone as long as after the flood (the answers' background writes done,
  // V8's spare heap given back), so that both readings are of a service at rest.
  yield* Effect.promise(() => sleep(FLOOD_REST_SECONDS * 1000))
  const idle = yield* Effect.promise(reading)
  console.log(`flood: ${FLOOD_URLS} distinct URLs of ${FLOOD_URL_BYTES} bytes, each asked ${FLOOD_ASKS}×, ${FLOOD_CLIENTS} at once`)
  console.log(`  idle, after GC:  ${describe(idle)}`)

  const statuses = new Map<string, number>()
  let next = 0
  const client = async () => {
    for (let i = next++; i < FLOOD_URLS; i = next++) {
      const { path } = warm[i % warm.length]!
      const prefix = `${base}${path}&pad=${i}-`
      const url = prefix + "x".repeat(Math.max(0, FLOOD_URL_BYTES - (prefix.length - base.length) - "/api/v2".length))
      for (let ask = 0; ask < FLOOD_ASKS; ask++) {
        const status = await fetch(url, { headers: { "accept-encoding": "gzip" } }).then(
          async (r) => {
            await r.arrayBuffer()
            return String(r.status)
          },
          (error: Error) => `error:${error.name}`
        )
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    }
  }
  const t0 = Date.now()
  yield* Effect.promise(() => Promise.all(Array.from({ length: FLOOD_CLIENTS }, client)))
  const seconds = (Date.now() - t0) / 1000
  const peak = rssMiB(pid, "VmHWM")
  yield* Effect.promise(() => sleep(2_000))
  const straight = yield* Effect.promise(reading)
  const answered = [...statuses].sort().map(([st, n]) => `${n}×${st}`).join(" ")
  console.log(`  flood: ${answered} in ${seconds.toFixed(0)} s; high-water RSS ${peak.toFixed(0)} MiB`)
  console.log(`  after, GC:       ${describe(straight)}`)
  yield* Effect.promise(() => sleep(FLOOD_REST_SECONDS * 1000))
  const after = yield* Effect.promise(reading)
  console.log(`  ${FLOOD_REST_SECONDS} s later, GC: ${describe(after)}`)
  // What the caches say they took on, on top of the idle footprint (which already holds the idle caches).
  const compare = (when: string, r: Awaited<ReturnType<typeof reading>>) => {
    const expected = idle.rss + (r.caches - idle.caches)
    const over = ((r.rss - expected) / expected) * 100
    console.log(
      `  ${when}: RSS ${r.rss.toFixed(1)} MiB against idle + what the caches took on ${expected.toFixed(1)} MiB ` +
        `(${idle.rss.toFixed(1)} + ${(r.caches - idle.caches).toFixed(1)}): ratio ${(r.rss / expected).toFixed(3)}, ` +
        `${Math.abs(over).toFixed(1)} % ${over > 0 ? "over" : "under"} (goal: at most 10 % over)`
    )
  }
  compare("straight after", straight)
  compare(`${FLOOD_REST_SECONDS} s later`, after)
  console.log(`  load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`)
  if (FLOOD_STDOUT !== undefined) writeFileSync(FLOOD_STDOUT, service.stdout())
})

Effect.runPromise(Effect.scoped(MODE === "flood" ? flood : soak)).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
