/**
 * `pnpm bench:client-warmup`: what the client's neighbour warm-up costs the page's main thread, in
 * Chromium. The built client (`packages/client/dist/index.js`, or the ES module `CLIENT_BUNDLE`
 * names, to compare another build) runs in a page at the API's origin, against the built service
 * with fake upstreams, on the real IndexedDB. The 8 neighbours already hold history, so every
 * `prefetch=1` answers 200 with a calendar and a day to store: the heaviest warm-up there is.
 *
 * Per run, from `load()` resolving (when a page shows the grades) to the warm-up's end:
 *   - long tasks as the Long Tasks API reports them (over 50 ms): how many, the longest;
 *   - every task of the page's main thread, from the DevTools trace (`RunTask`): the longest, and the
 *     most script (and garbage collection) time within one task;
 *   - `IDBObjectStore.put`'s own time, where IndexedDB clones what it is given: the sum, the longest.
 * At 1× CPU (a desktop) and 4× (Lighthouse's mobile throttling; `BENCH_RATES=1,4` by default),
 * `BENCH_RUNS` runs each (default 3). `BENCH_DEBUG=1` also lists, for each task with over 20 ms of
 * script, the trace events in it (with function names: point `CLIENT_BUNDLE` at an unminified build).
 * Timings on a shared machine are noisy: read them with the load average printed.
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { Chromium, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import { cellOf, neighbours } from "../packages/client/src/Keys.js"
import { root, startService } from "./support/SiteServer.js"

type Browser = Awaited<ReturnType<typeof Chromium.launch>>

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const RATES = (process.env.BENCH_RATES ?? "1,4").split(",").map(Number)

interface Sample {
  readonly prefetched: ReadonlyArray<number>
  readonly longTasks: ReadonlyArray<number>
  readonly longestTask: number
  readonly longestScript: number
  readonly puts: ReadonlyArray<number>
}

/** The page's side: the client from `/__client/index.js`, a long-task observer, put() timed, prefetch answers counted. */
const pageScript = (baseUrl: string, lat: number, lon: number) => `(async () => {
  const bench = { longTasks: [], puts: [], prefetched: [], loadedAt: 0 }
  window.__bench = bench
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) bench.longTasks.push({ start: e.startTime, duration: e.duration })
  }).observe({ type: "longtask", buffered: true })
  const put = IDBObjectStore.prototype.put
  IDBObjectStore.prototype.put = function (...args) {
    const t = performance.now()
    try { return put.apply(this, args) } finally { bench.puts.push({ at: t, ms: performance.now() - t }) }
  }
  const counting = async (input, init) => {
    const response = await fetch(input, init)
    if (String(input).includes("prefetch=1")) bench.prefetched.push(response.status)
    return response
  }
  const m = await import("/__client/index.js")
  const client = m.createClient({ baseUrl: ${JSON.stringify(baseUrl)}, store: m.indexedDbStore("bench"), fetch: counting })
  await client.load(${lat}, ${lon})
  bench.loadedAt = performance.now()
  performance.mark("bench:loaded")
  // Waited for here, not polled from outside: a poll is a task of its own on this thread.
  while (bench.prefetched.length < 8) await new Promise((resolve) => setTimeout(resolve, 250))
  // The last answer's body is read, split and written after its headers arrive.
  await new Promise((resolve) => setTimeout(resolve, 2000))
  await client.close()
})()`

/**
 * Trace events that are the page's script (or its garbage collection) running. Not their wrappers
 * (`TimerFire`, `EventDispatch`): under throttling or on a busy machine a wrapper grows by the time
 * the thread waits, with the same script inside.
 */
const SCRIPT = new Set(["FunctionCall", "EvaluateScript", "RunMicrotasks", "V8.Execute", "MinorGC", "MajorGC"])

/**
 * From a Chromium trace, the renderer's main-thread tasks (`RunTask`) that end after the
 * `bench:loaded` mark: the longest one, and the most script time within one task (its script
 * events, nested ones counted once). A task can be long with little script in it when the machine
 * is busy (the thread waits for a core) or under CPU throttling: the second figure is the client's.
 */
const tasksAfterMark = (trace: Buffer): { readonly longest: number; readonly script: number } => {
  const events = (JSON.parse(trace.toString("utf8")) as { traceEvents: Array<Record<string, unknown>> }).traceEvents
  const mains = new Set(
    events
      .filter((e) => e.ph === "M" && e.name === "thread_name" && (e.args as { name?: string }).name === "CrRendererMain")
      .map((e) => `${e.pid}:${e.tid}`)
  )
  const mark = events.find((e) => e.name === "bench:loaded")
  const from = typeof mark?.ts === "number" ? mark.ts : 0
  const onMain = events.filter((e) => e.ph === "X" && mains.has(`${e.pid}:${e.tid}`)).sort((a, b) => (a.ts as number) - (b.ts as number))
  let longest = 0
  let script = 0
  for (const task of onMain) {
    if (task.name !== "RunTask") continue
    const start = task.ts as number
    const end = start + (task.dur as number)
    if (end < from) continue
    longest = Math.max(longest, (task.dur as number) / 1000)
    let inTask = 0
    let covered = start
    for (const e of onMain) {
      const t = e.ts as number
      if (t < start || t >= end || !SCRIPT.has(e.name as string) || e.tid !== task.tid || e.pid !== task.pid) continue
      const stop = Math.min(end, t + (e.dur as number))
      if (stop <= covered) continue
      inTask += stop - Math.max(t, covered)
      covered = stop
    }
    if (process.env.BENCH_DEBUG !== undefined && inTask > 20_000) {
      const inside = onMain
        .filter((e) => (e.ts as number) >= start && (e.ts as number) < end && e !== task && (e.dur as number) > 1000)
        .map((e) => {
          const data = (e.args as { data?: { functionName?: string; url?: string; lineNumber?: number } } | undefined)?.data
          return `${e.name}${data?.functionName ? `:${data.functionName}@${data.lineNumber}` : ""} ${((e.dur as number) / 1000).toFixed(1)}`
        })
      console.log(`    task +${((start - from) / 1000).toFixed(0)} ms, ${((task.dur as number) / 1000).toFixed(1)} ms: ${inside.join(" | ")}`)
    }
    script = Math.max(script, inTask / 1000)
  }
  return { longest, script }
}

const run = async (browser: Browser, origin: string, bundle: string, centre: { lat: number; lon: number }, rate: number): Promise<Sample> => {
  const context = await browser.newContext()
  await context.route(`${origin}/__client/**`, (route) =>
    new URL(route.request().url()).pathname.endsWith(".js")
      ? route.fulfill({ status: 200, contentType: "text/javascript", body: bundle })
      : route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>warm-up</title>" })
  )
  const page = await context.newPage()
  await page.goto(`${origin}/__client/`)
  const cdp = await context.newCDPSession(page)
  await cdp.send("Emulation.setCPUThrottlingRate", { rate })
  await browser.startTracing(page, { categories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing"] })
  await page.evaluate(pageScript(`${origin}/api/v2`, centre.lat, centre.lon))
  const trace = tasksAfterMark(await browser.stopTracing())
  const bench = (await page.evaluate("window.__bench")) as {
    longTasks: Array<{ start: number; duration: number }>
    puts: Array<{ at: number; ms: number }>
    prefetched: Array<number>
    loadedAt: number
  }
  await context.close()
  return {
    prefetched: bench.prefetched,
    longTasks: bench.longTasks.filter((t) => t.start >= bench.loadedAt).map((t) => t.duration),
    longestTask: trace.longest,
    longestScript: trace.script,
    puts: bench.puts.filter((p) => p.at >= bench.loadedAt).map((p) => p.ms)
  }
}

const program = Effect.gen(function* () {
  const weather = yield* FakeOpenMeteo.make
  const geocoder = yield* FakeNominatim.make
  const bundlePath = process.env.CLIENT_BUNDLE ?? join(root, "packages/client/dist/index.js")
  if (process.env.CLIENT_BUNDLE === undefined) {
    execFileSync(process.execPath, ["build.mjs"], { cwd: join(root, "packages/client"), stdio: "inherit" })
  }
  const bundle = readFileSync(bundlePath, "utf8")
  execFileSync(process.execPath, ["build.mjs"], { cwd: join(root, "apps/server"), stdio: "inherit" })
  const service = yield* Effect.acquireRelease(
    Effect.promise(() =>
      startService({
        PORT: "0",
        DATABASE_URL: "memory://",
        AUTH_SECRET: "w".repeat(40),
        LOG_FORMAT: "json",
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: "1980-01-01",
        WEATHER_DAILY_UNITS: "unlimited",
        COLD_CELLS_PER_CLIENT: "100"
      })
    ),
    ({ child }) => Effect.sync(() => child.kill("SIGKILL"))
  )
  const browser = yield* Effect.acquireRelease(Effect.promise(Chromium.launch), (b) => Effect.promise(() => b.close()))
  const origin = `http://127.0.0.1:${service.port}`
  console.log(`client: ${bundlePath}`)
  for (const rate of RATES) {
    const samples: Array<Sample> = []
    for (let i = 0; i < RUNS; i++) {
      const centre = cellOf(30 + rate * 5 + i * 1.5, 10 + i * 2)
      // The neighbours hold history: each one's full bundle once, so its prefetch answers 200.
      for (const n of neighbours(centre)) {
        yield* Effect.promise(() => fetch(`${origin}/api/v2/cell?lat=${n.lat}&lon=${n.lon}`).then((r) => r.arrayBuffer()))
      }
      samples.push(yield* Effect.promise(() => run(browser, origin, bundle, centre, rate)))
    }
    const ms = (x: number) => `${x.toFixed(1)} ms`
    const max = (xs: ReadonlyArray<number>) => (xs.length === 0 ? 0 : Math.max(...xs))
    const sum = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0)
    console.log(`CPU ${rate}× (${RUNS} runs), from load() resolving to the end of the warm-up:`)
    console.log(`  prefetch answers        ${samples.map((s) => s.prefetched.filter((x) => x === 200).length + "×200").join(", ")}`)
    console.log(`  long tasks (> 50 ms)    ${samples.map((s) => s.longTasks.length).join(", ")}; longest ${samples.map((s) => ms(max(s.longTasks))).join(", ")}`)
    console.log(`  longest main-thread task ${samples.map((s) => ms(s.longestTask)).join(", ")}`)
    console.log(`  most script in one task ${samples.map((s) => ms(s.longestScript)).join(", ")}`)
    console.log(`  IDB put() calls         ${samples.map((s) => s.puts.length).join(", ")}; their time ${samples.map((s) => ms(sum(s.puts))).join(", ")}; longest ${samples.map((s) => ms(max(s.puts))).join(", ")}`)
  }
  console.log(`load average (1 min) at the end: ${loadavg()[0]!.toFixed(1)}`)
})

Effect.runPromise(Effect.scoped(program)).catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
