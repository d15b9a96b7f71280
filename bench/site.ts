/**
 * `pnpm bench:site [timing] [lighthouse] [tasks]` (all three without an argument): the site in
 * Chromium against the built service (fake upstreams on loopback).
 *   - timing: time from navigation to the grades being visible: a cold cell, the same cell on
 *     reload (target < 300 ms), and offline (API requests aborted); what a reload transfers: every
 *     answer's status as the server sent it (its access log: the service worker's fetches revalidate
 *     through the HTTP cache, which the page never sees) and the bytes on the wire (target: only
 *     304s for the page, its assets and the data). Bytes are the encoded sizes (headers and body)
 *     of every request that reached the network, the page's and its service worker's.
 *   - lighthouse: Lighthouse 12 at its default mobile settings (simulated slow 4G, 4x CPU) on a
 *     place the server already holds, in a fresh profile each run, median of 3: performance score,
 *     total blocking time, LCP, JavaScript transferred, DOM elements, unused JavaScript, main-thread
 *     work and the longest tasks. Chromium is `CHROME_PATH` (default Debian's /usr/bin/chromium),
 *     started by chrome-launcher.
 *   - tasks: desktop Chromium (no throttling), a held place opened in a fresh profile and then
 *     reloaded: the JavaScript fetched before the grades show (gzip bytes on the wire) and every
 *     long task (Long Tasks API, > 50 ms) after the grades show, until the neighbour warm-up is over.
 *     Each load is traced (as DevTools' Performance panel records): every task over 50 ms is printed
 *     with its main-thread CPU time, its largest parts and the CPU Chromium's other threads used
 *     meanwhile, then the heaviest tasks after the grades. On a shared machine a long task with
 *     little CPU is the thread waiting for a core, not the page's work. TASK_RUNS (default 3),
 *     TASK_TRACE=0 (no trace), TASK_TRACE_DIR=dir (keep the traces, for DevTools),
 *     TASK_VIEWPORT=phone (Lighthouse's phone size: only the first screen is drawn).
 * LH_TRACE_DIR=dir keeps each Lighthouse run's trace there (`lighthouse-N.json`, for DevTools) and
 * prints its long tasks with where they start and the script Lighthouse blames.
 * `BENCH_LANG=de` (any of the seven languages) opens every page with `lang=` in its address, so the
 * page also fetches that language's words before its first draw.
 */
import { mkdir, writeFile } from "node:fs/promises"
import { loadavg } from "node:os"
import { join } from "node:path"
import { Chromium } from "@climate-grade/testing"
import * as chromeLauncher from "chrome-launcher"
import * as Effect from "effect/Effect"
import lighthouse from "lighthouse"
import { TRACE_CATEGORIES, type TracedTask, type TraceTasks, tasksOfTrace } from "./support/longTaskTrace.js"
import { siteServer } from "./support/SiteServer.js"

type Page = Awaited<ReturnType<typeof Chromium.openPage>>["page"]
type Browser = Parameters<typeof Chromium.openPage>[0]

const RUNS = Number(process.env.BENCH_RUNS ?? 5)
/** `&lang=…` for every page opened, when BENCH_LANG names a language. */
const LANG = /^[a-z]{2}$/.test(process.env.BENCH_LANG ?? "") ? `&lang=${process.env.BENCH_LANG}` : ""
const LIGHTHOUSE_RUNS = 3
const TASK_RUNS = Number(process.env.TASK_RUNS ?? 3)
/** TASK_TRACE=0 measures the long tasks without a performance trace (which costs the page a little). */
const TASK_TRACE = process.env.TASK_TRACE !== "0"
/**
 * TASK_VIEWPORT=phone opens the pages as Lighthouse's phone (412×823 at 1.75×, touch), whose first
 * screen holds only the grades: the sections below are not near enough to be drawn.
 */
const TASK_PAGE = process.env.TASK_VIEWPORT === "phone" ? { viewport: { width: 412, height: 823 }, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true } : {}
const TASK_VIEWPORT_NOTE = process.env.TASK_VIEWPORT === "phone" ? " at a phone's size" : ""
/** TASK_TRACE_DIR=path keeps each trace there (open it in DevTools' Performance panel). */
const TASK_TRACE_DIR = process.env.TASK_TRACE_DIR
let traceCount = 0
/** The User Timing mark the page gets when the grades show: it ties the trace's clock to the page's. */
const GRADES_MARK = "cg-grades-shown"

const parts = new Set(process.argv.slice(2))
const wants = (part: "timing" | "lighthouse" | "tasks") => parts.size === 0 || parts.has(part)

const gradesVisible = (page: Page) => page.locator(".grade-card").nth(2).waitFor({ timeout: 60_000 })

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

const load = () => `load average (1 min) ${loadavg()[0]!.toFixed(1)}`

/** The server fetches and keeps the place's record, so the page measured finds it held. */
const hold = (origin: string, lat: number, lon: number) =>
  Effect.promise(async () => {
    const r = await fetch(`${origin}/api/v2/cell?lat=${lat}&lon=${lon}`)
    if (r.status !== 200) throw new Error(`holding ${lat},${lon}: /cell answered ${r.status}`)
    await r.arrayBuffer()
  })

/** The access log's answers in the service's output from `from` on: status and path. */
const answers = (log: string, from: number) =>
  log
    .slice(from)
    .split("\n")
    .flatMap((line) => {
      try {
        // An access line is one flat object (LOG_FORMAT=json): `access`, `path`, `status`, ….
        const a = JSON.parse(line) as { access?: boolean; path?: string; status?: number }
        return a.access === true && a.path !== undefined && a.status !== undefined ? [{ path: a.path, status: a.status }] : []
      } catch {
        return []
      }
    })

const timing = (browser: Browser, url: (path: string) => string, serverLog: () => string) =>
  Effect.gen(function* () {
    const cold: Array<number> = []
    const reload: Array<number> = []
    const offline: Array<number> = []
    const reloadDom: Array<number> = []
    let transfer: Array<{ path: string; status: number }> = []
    let bytes = 0
    for (let run = 0; run < RUNS; run++) {
      const { context, page } = yield* Effect.promise(() => Chromium.openPage(browser))
      const place = url(`/?lat=${(10 + run * 1.75).toFixed(2)}&lon=${(20 + run * 2.5).toFixed(2)}${LANG}`)
      yield* Effect.promise(async () => {
        let t = performance.now()
        await page.goto(place, { waitUntil: "commit" })
        await gradesVisible(page)
        cold.push(performance.now() - t)
        // Let the neighbour warm-up finish, as a visitor reading the page would.
        await page.waitForTimeout(10_000)

        // Every request that reaches the network (the page's own, and its service worker's) and its size.
        const sized: Array<Promise<number>> = []
        context.on("requestfinished", (request) => {
          sized.push(
            (async () => {
              const response = await request.response()
              if (response === null || response.fromServiceWorker() || request.url().startsWith("data:")) return 0
              const s = await request.sizes()
              return s.responseHeadersSize + Math.max(0, s.responseBodySize)
            })()
          )
        })
        const mark = serverLog().length
        t = performance.now()
        await page.reload({ waitUntil: "domcontentloaded" })
        reloadDom.push(performance.now() - t)
        await gradesVisible(page)
        reload.push(performance.now() - t)
        await page.waitForTimeout(600)
        context.removeAllListeners("requestfinished")
        transfer = answers(serverLog(), mark)
        bytes = (await Promise.all(sized)).reduce((n, b) => n + b, 0)

        await page.route("**/api/v2/**", (route) => route.abort("internetdisconnected"))
        t = performance.now()
        await page.reload({ waitUntil: "commit" })
        await gradesVisible(page)
        offline.push(performance.now() - t)
        await page.getByText(/offline/i).first().waitFor({ timeout: 20_000 })
        await context.close()
      })
    }
    const ms = (xs: ReadonlyArray<number>) =>
      `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)}, ${xs.length} runs)`
    console.log(`\ntime from navigation to the grades being visible (${load()})`)
    console.log(`  cold cell                 ${ms(cold)}`)
    console.log(`  stored cell on reload     ${ms(reload)}   target < 300 ms: ${median(reload) < 300 ? "met" : "NOT met"}`)
    console.log(`    of which to DOMContentLoaded ${ms(reloadDom)}`)
    console.log(`  offline (API aborted)     ${ms(offline)}`)
    console.log("a reload (last run), until the grades are visible + 0.6 s, as the server answered it:")
    for (const r of transfer) console.log(`  ${String(r.status).padStart(3)}  ${r.path}`)
    // The neighbour warm-up's prefetches in the window are new requests, not revalidations.
    const not304 = transfer.filter((r) => r.status !== 304 && !r.path.includes("prefetch=1"))
    console.log(`  ${transfer.length} answers, ${bytes} bytes on the wire; ${not304.length === 0 ? "all 304 (target met)" : `${not304.length} not 304`}`)
  })

interface LighthouseRun {
  readonly performance: number
  readonly accessibility: number
  readonly bestPractices: number
  readonly seo: number
  readonly tbt: number
  readonly lcp: number
  readonly fcp: number
  readonly cls: number
  readonly js: number
  readonly dom: number
  readonly unusedJs: number
  readonly mainThread: number
  readonly longest: ReadonlyArray<number>
  /** Main-thread time by Lighthouse's groups (script evaluation, style and layout, …), in ms. */
  readonly groups: ReadonlyArray<readonly [string, number]>
  /** Script evaluation and parsing per script, the heaviest first, in ms. */
  readonly scripts: ReadonlyArray<readonly [string, number]>
}

const lighthouseRuns = (origin: string) =>
  Effect.gen(function* () {
    const lat = 52.52
    const lon = 13.4
    yield* hold(origin, lat, lon)
    const target = `${origin}/?lat=${lat}&lon=${lon}${LANG}`
    const chrome = yield* Effect.acquireRelease(
      Effect.promise(() =>
        chromeLauncher.launch({
          chromePath: process.env.CHROME_PATH ?? Chromium.executablePath(),
          chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--lang=en-GB"]
        })
      ),
      (c) => Effect.sync(() => c.kill())
    )
    const runs: Array<LighthouseRun> = []
    const loads: Array<number> = []
    for (let i = 0; i < LIGHTHOUSE_RUNS; i++) {
      loads.push(loadavg()[0]!)
      const result = yield* Effect.promise(() => lighthouse(target, { port: chrome.port, output: "json", logLevel: "error" }))
      if (result === undefined) throw new Error("Lighthouse returned nothing")
      const { audits, categories, runtimeError } = result.lhr
      if (runtimeError !== undefined) throw new Error(`Lighthouse: ${runtimeError.code} ${runtimeError.message}`)
      if (process.env.LH_TRACE_DIR !== undefined) {
        const trace = (result.artifacts as unknown as { Trace?: unknown }).Trace
        yield* Effect.promise(() => writeFile(join(process.env.LH_TRACE_DIR!, `lighthouse-${i + 1}.json`), JSON.stringify(trace)))
        const lt = audits["long-tasks"]?.details
        console.log(`run ${i + 1} long tasks`, JSON.stringify(lt !== undefined && "items" in lt ? lt.items : []))
      }
      const num = (id: string) => audits[id]?.numericValue ?? Number.NaN
      const items = (id: string) => {
        const details = audits[id]?.details
        return details !== undefined && "items" in details ? (details.items as ReadonlyArray<Record<string, unknown>>) : []
      }
      const savings = audits["unused-javascript"]?.details
      runs.push({
        performance: Math.round((categories.performance?.score ?? 0) * 100),
        accessibility: Math.round((categories.accessibility?.score ?? 0) * 100),
        bestPractices: Math.round((categories["best-practices"]?.score ?? 0) * 100),
        seo: Math.round((categories.seo?.score ?? 0) * 100),
        tbt: num("total-blocking-time"),
        lcp: num("largest-contentful-paint"),
        fcp: num("first-contentful-paint"),
        cls: num("cumulative-layout-shift"),
        js: Number(items("resource-summary").find((r) => r.resourceType === "script")?.transferSize ?? 0),
        dom: num("dom-size"),
        unusedJs:
          savings !== undefined && "overallSavingsBytes" in savings && typeof savings.overallSavingsBytes === "number"
            ? savings.overallSavingsBytes
            : 0,
        mainThread: num("mainthread-work-breakdown"),
        longest: items("long-tasks")
          .map((t) => Number(t.duration))
          .sort((a, b) => b - a)
          .slice(0, 5),
        groups: items("mainthread-work-breakdown")
          .map((g) => [String(g.groupLabel ?? g.group), Number(g.duration)] as const)
          .sort((a, b) => b[1] - a[1]),
        scripts: items("bootup-time")
          .map((s) => [String(s.url).replace(origin, ""), Number(s.scripting) + Number(s.scriptParseCompile)] as const)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 6)
      })
    }
    const col = (f: (r: LighthouseRun) => number, show: (n: number) => string) =>
      `median ${show(median(runs.map(f)))}  (runs: ${runs.map((r) => show(f(r))).join(", ")})`
    const ms = (n: number) => `${n.toFixed(0)} ms`
    console.log(`\nLighthouse 12 at default mobile settings, ${target} (held), ${LIGHTHOUSE_RUNS} runs`)
    console.log(`  load average (1 min) at each run start: ${loads.map((l) => l.toFixed(1)).join(", ")}`)
    console.log(`  performance score     ${col((r) => r.performance, String)}   target >= 95`)
    console.log(`  total blocking time   ${col((r) => r.tbt, ms)}   target <= 200 ms`)
    console.log(`  largest contentful p. ${col((r) => r.lcp, ms)}`)
    console.log(`  first contentful p.   ${col((r) => r.fcp, ms)}`)
    console.log(`  cumulative layout sh. ${col((r) => r.cls, (n) => n.toFixed(3))}`)
    console.log(`  JavaScript (transfer) ${col((r) => r.js, kb)}`)
    console.log(`  unused JavaScript     ${col((r) => r.unusedJs, kb)}`)
    console.log(`  DOM elements          ${col((r) => r.dom, String)}   Lighthouse warns past 1,400`)
    console.log(`  main-thread work      ${col((r) => r.mainThread, ms)}`)
    console.log(`  accessibility ${col((r) => r.accessibility, String)}; best practices ${median(runs.map((r) => r.bestPractices))}; SEO ${median(runs.map((r) => r.seo))}`)
    for (const [i, r] of runs.entries()) console.log(`  run ${i + 1} longest tasks: ${r.longest.map(ms).join(", ") || "none"}`)
    const list = (pairs: ReadonlyArray<readonly [string, number]>) => pairs.map(([k, v]) => `${k} ${ms(v)}`).join("; ")
    for (const [i, r] of runs.entries()) console.log(`  run ${i + 1} main thread: ${list(r.groups)}`)
    for (const [i, r] of runs.entries()) console.log(`  run ${i + 1} script evaluation and parsing: ${list(r.scripts)}`)
  })

/** Installed before any page script: long tasks as they happen, and when the third grade card appears. */
const OBSERVE = () => {
  const w = window as unknown as { __tasks: Array<[number, number]>; __gradesAt: number | null }
  w.__tasks = []
  w.__gradesAt = null
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__tasks.push([e.startTime, e.duration])
  }).observe({ type: "longtask", buffered: true })
  new MutationObserver((_, observer) => {
    if (document.querySelectorAll(".grade-card").length >= 3) {
      w.__gradesAt = performance.now()
      // The name is GRADES_MARK's (this function runs in the page, so it cannot read the constant).
      performance.mark("cg-grades-shown", { startTime: w.__gradesAt })
      observer.disconnect()
    }
  }).observe(document, { childList: true, subtree: true })
}

interface TaskRun {
  readonly gradesAt: number
  readonly jsBefore: number
  readonly jsFiles: number
  readonly after: ReadonlyArray<number>
  readonly before: ReadonlyArray<number>
  readonly dom: number
  /** The same tasks as the trace saw them (when traced), with where their time went. */
  readonly traced: TraceTasks | null
}

/** Navigates with `go` and measures the long tasks until the neighbour warm-up is over, traced or not. */
const measureTasks = (browser: Browser, page: Page, go: () => Promise<unknown>) =>
  Effect.promise(async (): Promise<TaskRun> => {
    if (TASK_TRACE) await browser.startTracing(undefined, { categories: TRACE_CATEGORIES, screenshots: false })
    await go()
    await gradesVisible(page)
    // The neighbour warm-up: eight requests at least 1.1 s apart, and their storage.
    await page.waitForTimeout(11_000)
    const trace = TASK_TRACE ? await browser.stopTracing() : null
    if (trace !== null && TASK_TRACE_DIR !== undefined) {
      await mkdir(TASK_TRACE_DIR, { recursive: true })
      await writeFile(join(TASK_TRACE_DIR, `tasks-${++traceCount}.json`), trace)
    }
    const run = await page.evaluate(() => {
      const w = window as unknown as { __tasks: Array<[number, number]>; __gradesAt: number }
      const scripts = performance
        .getEntriesByType("resource")
        .filter((e): e is PerformanceResourceTiming => /\.m?js$/.test(new URL(e.name).pathname) && e.startTime < w.__gradesAt)
      return {
        gradesAt: w.__gradesAt,
        jsBefore: scripts.reduce((n, e) => n + e.encodedBodySize, 0),
        jsFiles: scripts.length,
        after: w.__tasks.filter(([start]) => start >= w.__gradesAt).map(([, d]) => d),
        before: w.__tasks.filter(([start]) => start < w.__gradesAt).map(([, d]) => d),
        dom: document.getElementsByTagName("*").length
      }
    })
    return { ...run, traced: trace === null ? null : tasksOfTrace(trace, GRADES_MARK, run.gradesAt) }
  })

const tasks = (browser: Browser, origin: string) =>
  Effect.gen(function* () {
    const first: Array<TaskRun> = []
    const again: Array<TaskRun> = []
    const loads: Array<number> = []
    for (let run = 0; run < TASK_RUNS; run++) {
      const lat = 30 + run * 1.75
      const lon = -40 + run * 2.5
      yield* hold(origin, lat, lon)
      loads.push(loadavg()[0]!)
      const { context, page } = yield* Effect.promise(() => Chromium.openPage(browser, TASK_PAGE))
      // A new context is a new browser window, and headless Chromium (156) builds its omnibox popup
      // (a WebUI page of ~0.25 s of script in a renderer of its own) for each: on two cores that
      // work lands on top of the page's first load and stretches its tasks. A visitor's browser is
      // already open, so the window settles on about:blank first; the profile (cache, storage,
      // service worker) is as fresh as before.
      yield* Effect.promise(async () => {
        await page.goto("about:blank")
        await page.waitForTimeout(3_000)
      })
      yield* Effect.promise(() => page.addInitScript(OBSERVE))
      first.push(yield* measureTasks(browser, page, () => page.goto(`${origin}/?lat=${lat}&lon=${lon}${LANG}`, { waitUntil: "commit" })))
      again.push(yield* measureTasks(browser, page, () => page.reload({ waitUntil: "commit" })))
      yield* Effect.promise(() => context.close())
    }
    const ms = (xs: ReadonlyArray<number>) => (xs.length === 0 ? "none" : xs.map((d) => `${d.toFixed(0)} ms`).join(", "))
    console.log(`\ndesktop Chromium${TASK_VIEWPORT_NOTE}, a held place${TASK_TRACE ? ", traced" : ""} (load average (1 min) at each run start: ${loads.map((l) => l.toFixed(1)).join(", ")})`)
    for (const [name, runs] of [
      ["first visit (fresh profile)", first],
      ["reload (stored copy)", again]
    ] as const) {
      console.log(`  ${name}`)
      // On a reload the scripts are revalidated (304) or served by the worker: no body on the wire.
      if (runs === first)
        console.log(
          `    JavaScript before the grades show: median ${kb(median(runs.map((r) => r.jsBefore)))} gzip on the wire (runs: ${runs
            .map((r) => `${kb(r.jsBefore)} in ${r.jsFiles} files`)
            .join(", ")})   budget 50 KB`
        )
      console.log(`    grades shown at: ${runs.map((r) => `${r.gradesAt.toFixed(0)} ms`).join(", ")}; DOM elements: ${runs.map((r) => r.dom).join(", ")}`)
      for (const [i, r] of runs.entries()) {
        console.log(`    run ${i + 1}: ${r.after.length} long tasks after the grades show (${ms(r.after)}); before: ${ms(r.before)}`)
        if (r.traced === null) continue
        // What each was, from the trace: its start relative to the grades showing, its CPU time and
        // largest parts, and what else used the cores meanwhile.
        const show = (label: string, t: TracedTask, meanwhile: boolean) => {
          const when = t.start - r.gradesAt
          const parts = t.parts
            .slice(0, 4)
            .map(([what, d]) => `${what} ${d.toFixed(0)} ms`)
            .join("; ")
          const others = t.meanwhile
            .slice(0, 3)
            .map(([what, d]) => `${what} ${d.toFixed(0)} ms`)
            .join("; ")
          console.log(`      ${label} ${t.duration.toFixed(0)} ms, CPU ${t.cpu.toFixed(0)} ms, at ${when >= 0 ? "+" : ""}${when.toFixed(0)} ms from the grades: ${parts || "—"}`)
          if (meanwhile && t.duration > 50) {
            // Wall time the thread did not run: it waited for a core, held by Chromium's other threads
            // (listed) or by processes outside Chromium (the server, anything else on the machine), or
            // on a synchronous call into the browser (localStorage's first read, document.cookie).
            const chromium = t.meanwhile.reduce((n, [, d]) => n + d, 0)
            console.log(
              `        not running for ${(t.duration - t.cpu).toFixed(0)} ms (waiting for a core, or a synchronous call); meanwhile Chromium's other threads used ${chromium.toFixed(0)} ms of CPU (${others || "none over 1 ms"}); processes outside Chromium had the rest (${load()} as this prints)`
            )
          }
        }
        // The trace's tasks over 50 ms (the Long Tasks API leaves out some that belong to no frame).
        for (const t of r.traced.long) show("traced task", t, true)
        for (const t of r.traced.heaviestAfter) show("heaviest after the grades:", t, false)
      }
    }
    const worst = Math.max(0, ...[...first, ...again].flatMap((r) => r.after))
    console.log(`  longest task after the grades show: ${worst.toFixed(0)} ms   target: none over 50 ms`)
    if (TASK_TRACE) {
      const heaviest = Math.max(0, ...[...first, ...again].flatMap((r) => r.traced?.heaviestAfter.map((t) => t.cpu) ?? []))
      console.log(`  most CPU in one main-thread task after the grades show: ${heaviest.toFixed(0)} ms (what the page itself asks of a core in one piece)`)
      // A task over 50 ms of CPU is long whatever else the machine runs: the page's own doing.
      const own = [...first, ...again].flatMap((r) => r.traced?.long.filter((t) => t.start >= r.gradesAt && t.cpu > 50) ?? []).length
      console.log(`  tasks after the grades show with over 50 ms of main-thread CPU: ${own}   (a long task with less was mostly waiting)`)
    }
  })

const program = Effect.gen(function* () {
  const { browser, origin, url, serverLog } = yield* siteServer
  console.log(load())
  if (wants("timing")) yield* timing(browser, url, serverLog)
  if (wants("tasks")) yield* tasks(browser, origin)
  if (wants("lighthouse")) yield* lighthouseRuns(origin)
})

Effect.runPromise(Effect.scoped(program)).catch((e) => {
  console.error(e)
  process.exit(1)
})
