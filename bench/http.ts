/**
 * HTTP benchmarks of the data API (docs/benchmarks.md), each printing its figures next to its target:
 *   (a) 304 revalidation of /cell vs a bare node:http server answering a 304 with ETag, Cache-Control
 *       and Vary (≥ 0.95×, the mean of BENCH_RUNS service processes, default 5), the access log and metrics
 *       on; beside it, one answering the same 304 as ours;
 *   (b) replay of a stored gzip bundle vs a bare node:http server sending the same bytes (≥ 0.90×);
 *   (c) a cold bundle for a new cell, upstreams on loopback, 85 years of history (≤ 80 ms of the
 *       service's own time: the request's latency minus the time its upstream calls took).
 * (a) and (b) run the two servers in turns (BENCH_ROUNDS, default 4, of BENCH_SECONDS / rounds
 * each): on a shared machine the ratio of the same run is what counts, printed with the load average.
 * With 5 rounds or more, the ratio and the CPU per answer's ratio come with a 90 % interval from
 * resampling the rounds: on a host whose speed swings by a fifth from one round to the next, a
 * run whose interval straddles the target has not settled it (e.g. BENCH_SECONDS=40 BENCH_ROUNDS=20).
 * The interval is one process's: a new service process (its code compiled and laid out anew)
 * moves the ratio by a few points more (three runs in a row of the same build: 0.97, 1.00 and
 * 0.93, with intervals 0.93–1.01, 0.97–1.03 and 0.89–0.97), so a target is judged on several runs.
 * The service runs as its own process (apps/server/dist/main.js, on the embedded database in a new
 * DATA_DIR, as deployed; DATABASE_URL=memory:// for the in-memory one, whose files live in JS arrays
 * that are copied as they grow), as does the bare server, so autocannon does not share their
 * event loop.
 * BENCH_SERVICE_ENV (JSON) adds to the service's environment, e.g. '{"ACCESS_LOG":"off"}'.
 * BENCH_NODE_FLAGS and BENCH_BARE_FLAGS add Node flags to the service's and the bare servers'
 * command lines: "--perf-basic-prof" on both names JavaScript functions in a `perf record` of each.
 *   pnpm bench:http [a|b|c]
 * `front-door` runs (a) against the front door alone (bench/support/FrontDoorAlone.ts: the index,
 * the access log and metrics in a process of their own, no app, no database): what the rest of a
 * whole service's process costs the same answer is the difference between the two.
 *   pnpm bench:http front-door
 * BENCH_SERVICE_ENV='{"BENCH_POLLUTE":"all"}' (or "streams", "http", and "served" or "client" for
 * one side of "http" alone) has that process first use Node's stream and HTTP code on other
 * objects, as a whole service does (FrontDoorAlone.ts).
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import autocannon from "autocannon"
import * as BuiltServer from "@climate-grade/server/test/BuiltServer"
import { FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import { bareServerScript, fetchRaw, headersAsSent } from "./support/Bare.js"
import { buildFrontDoorAlone, checkHeld, frontDoorEnv, REVALIDATION, serviceEnv } from "./support/FrontDoorRun.js"

const root = join(import.meta.dirname, "..")
const which = process.argv[2]
const DURATION = Number(process.env.BENCH_SECONDS ?? 8)
/** Ours and the bare server take turns, this many rounds each, so a shared machine's load swings hit both alike. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4)
const CONNECTIONS = 32

/**
 * A process that says where it listens (the service's log line, or the bare server's `PORT n`),
 * its output going to a file as a deployment's would (journald, a container runtime), not to a
 * pipe into this busy process.
 */
const startProcess = (args: Array<string>, env: Record<string, string>) =>
  BuiltServer.spawnListening(args, env, {
    listening: /Listening on http:\/\/[^:]+:(\d+)|^PORT (\d+)$/m,
    logFile: join(mkdtempSync(join(tmpdir(), "bench-http-")), "output.log")
  })

/** BENCH_PROFILE=dir writes CPU profiles of the service and the bare servers (a graceful SIGINT lets them flush). */
const profileFlags = process.env.BENCH_PROFILE === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
/** BENCH_NODE_FLAGS adds Node flags to the service's command line only, e.g. "--trace-gc" (V8's flags are refused in NODE_OPTIONS). */
const serviceFlags = (process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter((f) => f !== "")
/** BENCH_BARE_FLAGS: the same for the bare servers (e.g. "--perf-basic-prof", to read a `perf record` of both). */
const bareFlags = (process.env.BENCH_BARE_FLAGS ?? "").split(" ").filter((f) => f !== "")

/** A bare node:http server that answers every request with fixed status, headers and body. */
const bareServer = (status: number, headers: Record<string, string>, body: Buffer) =>
  startProcess(
    [
      ...profileFlags,
      ...bareFlags,
      "-e",
      bareServerScript(status, headers, body)
    ],
    {}
  )

const load = (url: string, headers: Record<string, string>) =>
  new Promise<autocannon.Result>((done, fail) =>
    autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION / ROUNDS }, (error, result) =>
      error ? fail(error) : done(result)
    )
  )

/** CPU seconds (user + system) a process has used so far, from /proc (Linux; clock ticks of 10 ms). */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}

interface Side {
  readonly run: () => Promise<autocannon.Result>
  readonly pid: number
}

/**
 * `ours` and `bare` in turns of DURATION / ROUNDS seconds; the ratio of their request totals, and
 * each round's; and each server's CPU time per answer, which a shared machine's load disturbs far
 * less than throughput (the ratio of CPU per answer, bare over ours, is printed beside it).
 */
const alternate = async (ours: Side, bare: Side) => {
  const rounds: Array<{ ours: autocannon.Result; bare: autocannon.Result; cpu: { ours: number; bare: number } }> = []
  const timed = async (side: Side) => {
    const before = cpuSeconds(side.pid)
    const result = await side.run()
    return { result, cpu: cpuSeconds(side.pid) - before }
  }
  for (let i = 0; i < ROUNDS; i++) {
    const o = await timed(ours)
    const b = await timed(bare)
    rounds.push({ ours: o.result, bare: b.result, cpu: { ours: o.cpu, bare: b.cpu } })
  }
  type Round = (typeof rounds)[number]
  const answers = (rs: ReadonlyArray<Round>, side: "ours" | "bare") => rs.reduce((sum, r) => sum + r[side].requests.total, 0)
  /** CPU seconds per answer. */
  const cpuOf = (rs: ReadonlyArray<Round>, side: "ours" | "bare") => rs.reduce((sum, r) => sum + r.cpu[side], 0) / answers(rs, side)
  const ratioOf = (rs: ReadonlyArray<Round>) => answers(rs, "ours") / answers(rs, "bare")
  const cpuRatioOf = (rs: ReadonlyArray<Round>) => cpuOf(rs, "bare") / cpuOf(rs, "ours")
  return {
    rounds,
    ours: answers(rounds, "ours") / DURATION,
    bare: answers(rounds, "bare") / DURATION,
    ratio: ratioOf(rounds),
    ratioInterval: interval(rounds, ratioOf),
    ratios: rounds.map((r) => r.ours.requests.average / r.bare.requests.average),
    perAnswer: { ours: cpuOf(rounds, "ours") * 1e6, bare: cpuOf(rounds, "bare") * 1e6 },
    cpuInterval: interval(rounds, cpuRatioOf)
  }
}

/**
 * How far a figure made from the rounds could be from what more rounds would give, on a machine
 * whose speed swings from one round to the next: the 5th and 95th percentiles of the figure over
 * 2,000 resamplings of the rounds (with replacement; a round's two turns stay together). Only
 * said for 5 rounds or more.
 */
const interval = <A>(rounds: ReadonlyArray<A>, figure: (rs: ReadonlyArray<A>) => number): readonly [number, number] | undefined => {
  if (rounds.length < 5) return undefined
  const figures = Array.from({ length: 2000 }, () => figure(rounds.map(() => rounds[Math.floor(Math.random() * rounds.length)]!)))
  figures.sort((a, b) => a - b)
  return [figures[Math.floor(figures.length * 0.05)]!, figures[Math.floor(figures.length * 0.95)]!]
}

const between = (range: readonly [number, number] | undefined) =>
  range === undefined ? "" : `; 90 % interval over the rounds ${range[0].toFixed(2)}–${range[1].toFixed(2)}`

const report = (names: readonly [string, string], result: Awaited<ReturnType<typeof alternate>>) => {
  const [ours, bare] = names
  line(ours, result.rounds.at(-1)!.ours, result.ours)
  line(bare, result.rounds.at(-1)!.bare, result.bare)
  console.log(
    `  ratio ${result.ratio.toFixed(2)} (rounds: ${result.ratios.map((r) => r.toFixed(2)).join(" ")}${between(result.ratioInterval)}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")})`
  )
  const { perAnswer } = result
  console.log(
    `  CPU per answer: ours ${perAnswer.ours.toFixed(1)} µs, bare ${perAnswer.bare.toFixed(1)} µs (bare / ours ${(perAnswer.bare / perAnswer.ours).toFixed(2)}${between(result.cpuInterval)})`
  )
  for (const [name, side] of [[ours, "ours"], [bare, "bare"]] as const) {
    const mix = statuses(result.rounds.map((r) => r[side]))
    if (mix.size > 1) console.log(`  ${name}: not one answer throughout (${[...mix].map(([code, n]) => `${code} × ${n}`).join(", ")}): the ratio compares unlike answers`)
  }
}

/**
 * The statuses a side answered over its rounds. The held answer is checked once, before the
 * rounds; if it changes during them (its cell's day ends: a new ETag, so the load's If-None-Match
 * gets the whole bundle) the ratio no longer compares the same work.
 */
const statuses = (results: ReadonlyArray<autocannon.Result>) => {
  const mix = new Map<string, number>()
  for (const r of results) {
    for (const [code, stats] of Object.entries(r.statusCodeStats ?? {})) mix.set(code, (mix.get(code) ?? 0) + (stats.count ?? 0))
  }
  return mix
}

const line = (name: string, r: autocannon.Result, perSecond = r.requests.average) =>
  console.log(
    `  ${name.padEnd(34)} ${perSecond.toFixed(0).padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(3)} ms   p99 ${String(r.latency.p99).padStart(3)} ms   errors ${r.errors}   timeouts ${r.timeouts}`
  )

/** (a) with the front door alone in place of the whole service. */
const frontDoorAlone = async () => {
  const bundle = await buildFrontDoorAlone(mkdtempSync(join(tmpdir(), "bench-front-door-")))
  const ours = await startProcess([...profileFlags, ...serviceFlags, bundle], frontDoorEnv())
  const children = [ours.child]
  try {
    const { url, headers } = await checkHeld(ours.port)
    const same = await bareServer(304, headers, Buffer.alloc(0))
    children.push(same.child)
    console.log(`(a) against the front door alone (index, access log, metrics; no app, no database), ${CONNECTIONS} connections, ${DURATION} s each`)
    const result = await alternate(
      { run: () => load(url, REVALIDATION), pid: ours.child.pid! },
      { run: () => load(`http://127.0.0.1:${same.port}/`, REVALIDATION), pid: same.child.pid! }
    )
    report(["front door alone → 304", "bare node:http → the same 304"], result)
  } finally {
    for (const child of children) child.kill(profileFlags.length > 0 ? "SIGINT" : "SIGKILL")
  }
}

/** The built service on a new embedded database (or DATABASE_URL's), the fakes as its upstreams; stopped with the scope. */
const startService = (weather: FakeOpenMeteo.FakeOpenMeteo, geocoder: FakeNominatim.FakeNominatim) =>
  Effect.gen(function* () {
    const service = yield* Effect.promise(() =>
      startProcess([...profileFlags, ...serviceFlags, join(root, "apps/server/dist/main.js")], {
        PORT: "0",
        // The embedded database as deployed (files in a new DATA_DIR), unless DATABASE_URL says
        // otherwise (memory:// or a server).
        DATABASE_URL: process.env.DATABASE_URL ?? "",
        DATA_DIR: join(mkdtempSync(join(tmpdir(), "bench-http-data-")), "data"),
        AUTH_SECRET: "b".repeat(40),
        LOG_FORMAT: "json",
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: "1940-01-01",
        // (c) loads 20 new cells of 85 years each (~670 cost units apiece): past the keyless daily
        // budget of 10,000 units, which would answer the rest 503.
        WEATHER_DAILY_UNITS: "unlimited",
        ...serviceEnv()
      })
    )
    yield* Effect.addFinalizer(() =>
      Effect.promise(
        () =>
          new Promise<void>((done) => {
            if (service.child.exitCode !== null || service.child.signalCode !== null) return done()
            service.child.once("exit", () => done())
            service.child.kill(profileFlags.length > 0 ? "SIGINT" : "SIGKILL")
          })
      )
    )
    const base = `http://127.0.0.1:${service.port}/api/v2`
    const warmCell = `${base}/cell?lat=52.52&lon=13.41`
    const first = yield* Effect.promise(() => fetchRaw(warmCell, { "accept-encoding": "gzip" }))
    return { service, base, warmCell, first, etag: first.headers.etag! }
  })

/** How many service processes (a) is run on: a new process moves the ratio by a few points, so the goal is judged on their mean. */
const RUNS = Number(process.env.BENCH_RUNS ?? 5)

/**
 * (a) on a service process of its own: ours against a bare server sending the three headers a
 * 304 must carry (ETag, Cache-Control, Vary: CONTRACT §6), then against one sending the same 304
 * as ours, header for header (the request id included). The two ratios.
 */
const revalidationRun = (weather: FakeOpenMeteo.FakeOpenMeteo, geocoder: FakeNominatim.FakeNominatim) =>
  Effect.scoped(
    Effect.gen(function* () {
      const { service, warmCell, etag } = yield* startService(weather, geocoder)
      const ours304 = yield* Effect.promise(() => fetchRaw(warmCell, { "if-none-match": etag, "accept-encoding": "gzip" }))
      if (ours304.status !== 304) throw new Error(`revalidation answered ${ours304.status}`)
      const stop = (running: BuiltServer.Running) => running.child.kill(profileFlags.length > 0 ? "SIGINT" : "SIGKILL")
      const minimal = yield* Effect.acquireRelease(
        Effect.promise(() =>
          bareServer(304, { etag, "cache-control": String(ours304.headers["cache-control"]), vary: "Accept-Encoding" }, Buffer.alloc(0))
        ),
        (running) => Effect.sync(() => stop(running))
      )
      const same = yield* Effect.acquireRelease(
        Effect.promise(() => bareServer(304, headersAsSent(ours304.headers), Buffer.alloc(0))),
        (running) => Effect.sync(() => stop(running))
      )
      const revalidate = { "if-none-match": etag, "accept-encoding": "gzip" }
      const result = yield* Effect.promise(() =>
        alternate(
          { run: () => load(warmCell, revalidate), pid: service.child.pid! },
          { run: () => load(`http://127.0.0.1:${minimal.port}/`, revalidate), pid: minimal.child.pid! }
        )
      )
      report(["climate-grade /cell → 304", "bare node:http → ETag, Cache-Control, Vary"], result)
      const reference = yield* Effect.promise(() =>
        alternate(
          { run: () => load(warmCell, revalidate), pid: service.child.pid! },
          { run: () => load(`http://127.0.0.1:${same.port}/`, revalidate), pid: same.child.pid! }
        )
      )
      console.log("  for reference, against a bare server sending the same 304 as ours, header for header (the request id too):")
      report(["climate-grade /cell → 304", "bare node:http → the same 304"], reference)
      const cpuRatio = (r: typeof result) => r.perAnswer.bare / r.perAnswer.ours
      return { threeHeaders: result.ratio, same: reference.ratio, cpuThreeHeaders: cpuRatio(result), cpuSame: cpuRatio(reference) }
    })
  )

const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length

const main = Effect.gen(function* () {
  if (which === "front-door") return yield* Effect.promise(frontDoorAlone)
  const weather = yield* FakeOpenMeteo.make
  const geocoder = yield* FakeNominatim.make
  execFileSync(process.execPath, ["build.mjs"], { cwd: join(root, "apps/server"), stdio: "inherit" })

  if (which === undefined || which === "a") {
    console.log(
      `(a) 304 revalidation of /cell, ${CONNECTIONS} connections, ${DURATION} s each, on ${RUNS} service processes — target ≥ 0.95× a bare server sending ETag, Cache-Control and Vary, mean of the runs`
    )
    const runs: Array<{ threeHeaders: number; same: number; cpuThreeHeaders: number; cpuSame: number }> = []
    for (let run = 1; run <= RUNS; run++) {
      console.log(` run ${run} of ${RUNS}`)
      runs.push(yield* revalidationRun(weather, geocoder))
    }
    const figures = (pick: (r: (typeof runs)[number]) => number) =>
      `${mean(runs.map(pick)).toFixed(2)} (runs: ${runs.map((r) => pick(r).toFixed(2)).join(" ")})`
    console.log(`(a) mean of ${runs.length} runs: against the bare server sending ETag, Cache-Control and Vary ${figures((r) => r.threeHeaders)}`)
    console.log(`    its CPU per answer, bare / ours: ${figures((r) => r.cpuThreeHeaders)}`)
    console.log(`    against the bare server sending the same 304 as ours: ${figures((r) => r.same)}; CPU per answer ${figures((r) => r.cpuSame)}`)
    console.log(`    load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`)
  }
  if (which === "a") return
  const { service, base, warmCell, first } = yield* startService(weather, geocoder)

  if (which === undefined || which === "b") {
    console.log(`(b) replay of a stored gzip bundle (${first.body.length} bytes gzip) — target ≥ 0.90× the bare server`)
    const bare = yield* Effect.promise(() => bareServer(200, headersAsSent(first.headers), first.body))
    const result = yield* Effect.promise(() =>
      alternate(
        { run: () => load(warmCell, { "accept-encoding": "gzip" }), pid: service.child.pid! },
        { run: () => load(`http://127.0.0.1:${bare.port}/`, { "accept-encoding": "gzip" }), pid: bare.child.pid! }
      )
    )
    bare.child.kill("SIGKILL")
    report(["climate-grade /cell (stored gzip)", "bare node:http (same bytes)"], result)
  }

  if (which === undefined || which === "c") {
    const database = process.env.DATABASE_URL === undefined || process.env.DATABASE_URL === "" ? "embedded, on disk" : process.env.DATABASE_URL.startsWith("memory") ? "embedded, in memory" : "PostgreSQL"
    console.log(`(c) cold bundle for a new cell, 85-year history, upstreams on loopback, database ${database} — target ≤ 80 ms of the service's own time`)
    const own: Array<number> = []
    const totals: Array<number> = []
    const cpuBefore = cpuSeconds(service.child.pid!)
    for (let i = 0; i < 20; i++) {
      // Cold cells 1.1 s apart, as the client spaces them: the geocoder is paced at one call a
      // second for the whole process, and a cell arriving sooner waits for its turn.
      yield* Effect.sleep("1100 millis")
      const lat = (10 + i * 1.5).toFixed(2)
      const before = { a: weather.requests.archive.length, f: weather.requests.forecast.length, g: geocoder.requests.length }
      const t0 = performance.now()
      const answer = yield* Effect.promise(() => fetchRaw(`${base}/cell?lat=${lat}&lon=-40`, { "accept-encoding": "gzip" }))
      const total = performance.now() - t0
      if (answer.status !== 200) throw new Error(`status ${answer.status}`)
      // Upstream time as the upstreams saw it: from each request's arrival to its last byte.
      const spans = [
        ...weather.requests.archive.slice(before.a),
        ...weather.requests.forecast.slice(before.f),
        ...geocoder.requests.slice(before.g)
      ].map((r) => [r.at, r.at + (r.ms ?? 0)] as const)
      spans.sort((x, y) => x[0] - y[0])
      let covered = 0
      let until = Number.NEGATIVE_INFINITY
      for (const [s, e] of spans) {
        if (e <= until) continue
        covered += e - Math.max(s, until)
        until = e
      }
      totals.push(total)
      own.push(total - covered)
    }
    const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    console.log(`  end to end: median ${median(totals).toFixed(1)} ms, max ${Math.max(...totals).toFixed(1)} ms (20 cold cells)`)
    console.log(`  service's own time: median ${median(own).toFixed(1)} ms, max ${Math.max(...own).toFixed(1)} ms`)
    // CPU time is disturbed less than latency by a shared machine's load (it still counts the
    // background work between cells, such as a collection or the database's own housekeeping).
    const cpuMs = ((cpuSeconds(service.child.pid!) - cpuBefore) / 20) * 1000
    console.log(`  service's CPU time per cold cell: ${cpuMs.toFixed(1)} ms (load average ${loadavg().map((l) => l.toFixed(1)).join(" ")})`)
  }
})

Effect.runPromise(Effect.scoped(main)).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
