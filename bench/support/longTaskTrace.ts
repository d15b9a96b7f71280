/**
 * What a long task was, from a Chromium performance trace (`browser.startTracing`): the page's main
 * thread's top-level tasks over 50 ms, each with where its time went (self time by kind of work:
 * script by file and function, style, layout, paint, parsing, garbage collection, …).
 *
 * The page's clock and the trace's are tied by a User Timing mark the page sets (`performance.mark`),
 * which the trace records on the page's own main thread: that also says which renderer is the page's.
 */

/** The categories the DevTools performance panel records, less the screenshots and the stacks. */
export const TRACE_CATEGORIES = [
  "-*",
  "toplevel",
  "devtools.timeline",
  "disabled-by-default-devtools.timeline",
  "blink.user_timing",
  "v8.execute",
  "disabled-by-default-v8.compile",
  "v8"
]

interface TraceEvent {
  readonly name: string
  readonly cat: string
  readonly ph: string
  readonly ts: number
  readonly dur?: number
  /** The thread's CPU time in it (µs), where the trace has it. */
  readonly tdur?: number
  readonly pid: number
  readonly tid: number
  readonly args?: { readonly name?: string; readonly data?: Record<string, unknown>; readonly beginData?: Record<string, unknown> }
}

export interface TracedTask {
  /** Start on the page's clock (ms since its navigation started), like the Long Tasks API's `startTime`. */
  readonly start: number
  readonly duration: number
  /**
   * The main thread's CPU time in it. Far less than `duration` means the thread was waiting for a
   * core: other processes (Chromium's own, the server, anything else on the machine) held them.
   */
  readonly cpu: number
  /** The largest parts of its CPU time, biggest first: `what` and milliseconds. */
  readonly parts: ReadonlyArray<readonly [string, number]>
  /** The Chromium threads that used the most CPU meanwhile, other than this one: `process/thread` and ms. */
  readonly meanwhile: ReadonlyArray<readonly [string, number]>
}

const fileOf = (url: unknown): string | null => {
  if (typeof url !== "string" || url === "") return null
  try {
    const u = new URL(url)
    return u.pathname.split("/").pop() || u.pathname
  } catch {
    return url
  }
}

/** A short name for one traced event: its kind, and for script the file (and function) it ran. */
const describe = (e: TraceEvent, script: string | null): string => {
  const data = e.args?.data ?? e.args?.beginData ?? {}
  switch (e.name) {
    case "FunctionCall": {
      const fn = typeof data.functionName === "string" && data.functionName !== "" ? data.functionName : "(anonymous)"
      return `script ${fileOf(data.url) ?? script ?? "?"} ${fn}${typeof data.lineNumber === "number" ? `:${data.lineNumber}:${data.columnNumber ?? 0}` : ""}`
    }
    case "EvaluateScript":
    case "v8.evaluateModule":
      return `evaluate ${fileOf(data.url) ?? script ?? "?"}`
    case "v8.compile":
    case "v8.compileModule":
    case "V8.CompileCode":
    case "v8.parseOnBackground":
      return `compile ${fileOf(data.url ?? (e.args as { fileName?: string } | undefined)?.fileName) ?? script ?? "?"}`
    case "UpdateLayoutTree":
    case "RecalculateStyles":
      return "style recalculation"
    case "Layout":
      return "layout"
    case "Paint":
    case "PaintImage":
    case "PrePaint":
    case "Layerize":
    case "UpdateLayer":
    case "UpdateLayerTree":
    case "Commit":
      return "paint"
    case "ParseHTML":
      return "parse HTML"
    case "ParseAuthorStyleSheet":
      return "parse CSS"
    case "MajorGC":
    case "MinorGC":
    case "V8.GC_SCAVENGER":
    case "V8.GCCompactor":
    case "V8.GCFinalizeMC":
    case "BlinkGC.AtomicPhase":
      return "garbage collection"
    case "HitTest":
      return "hit test"
    case "EventDispatch":
      return `script ${script ?? "?"} (event ${String(data.type ?? "?")})`
    case "TimerFire":
    case "FireAnimationFrame":
    case "FireIdleCallback":
    case "RunMicrotasks":
    case "v8.run":
    case "V8.Execute":
    case "RunTask":
    case "ThreadControllerImpl::RunTask":
      return script === null ? `other (${e.name})` : `script ${script}`
    default:
      return script === null ? e.name : `script ${script} (${e.name})`
  }
}

export interface TraceTasks {
  /** The page's main-thread tasks longer than the threshold (wall time), in order. */
  readonly long: ReadonlyArray<TracedTask>
  /** The main-thread tasks after the mark that used the most CPU, most first: the page's own biggest pieces of work. */
  readonly heaviestAfter: ReadonlyArray<TracedTask>
}

/**
 * The page's main-thread tasks from the trace, on the page's clock: those over `threshold` ms and
 * the heaviest after the mark. `mark` is the User Timing mark's name and `markAt` its `startTime`
 * in the page.
 */
export const tasksOfTrace = (trace: Buffer | string, mark: string, markAt: number, threshold = 50): TraceTasks => {
  const parsed = JSON.parse(String(trace)) as { traceEvents?: ReadonlyArray<TraceEvent> } | ReadonlyArray<TraceEvent>
  const events = Array.isArray(parsed) ? (parsed as ReadonlyArray<TraceEvent>) : ((parsed as { traceEvents?: ReadonlyArray<TraceEvent> }).traceEvents ?? [])
  const marker = events.find((e) => e.name === mark && e.cat.includes("user_timing"))
  if (marker === undefined) return { long: [], heaviestAfter: [] }
  const { pid, tid } = marker
  const processes = new Map<number, string>()
  const threads = new Map<string, string>()
  for (const e of events) {
    if (e.ph !== "M" || e.args?.name === undefined) continue
    if (e.name === "process_name") processes.set(e.pid, e.args.name)
    if (e.name === "thread_name") threads.set(`${e.pid}:${e.tid}`, e.args.name)
  }
  const threadName = (e: TraceEvent) =>
    `${e.pid === pid ? "this page's renderer" : (processes.get(e.pid) ?? `process ${e.pid}`)}/${threads.get(`${e.pid}:${e.tid}`) ?? e.tid}`
  const topLevel = events.filter(
    (e) => e.ph === "X" && e.tdur !== undefined && e.dur !== undefined && (e.name === "ThreadControllerImpl::RunTask" || e.name === "RunTask")
  )
  // Trace time (µs) of the page's time 0.
  const origin = marker.ts - markAt * 1000
  const thread = events.filter((e) => e.pid === pid && e.tid === tid && e.ph === "X" && e.dur !== undefined)
  // The thread's tasks, each once (a task inside a task, or the same one under two names, counts at the outermost).
  const outer: Array<TraceEvent> = []
  for (const e of thread
    .filter((e) => e.name === "RunTask" || e.name === "ThreadControllerImpl::RunTask")
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!)) {
    const last = outer.at(-1)
    if (last === undefined || e.ts >= last.ts + last.dur!) outer.push(e)
  }
  const attribute = (task: TraceEvent): TracedTask => {
    const end = task.ts + task.dur!
    const inside = thread
      .filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur! <= end)
      .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!)
    // CPU time where the trace has it (wall time stands in where not).
    const cpuOf = (e: TraceEvent) => e.tdur ?? e.dur!
    const self = new Map<string, number>()
    const add = (what: string, us: number) => self.set(what, (self.get(what) ?? 0) + us)
    // A walk down the nesting: each event's own time, less its children's, under its name (script by
    // the nearest enclosing script's file).
    const stack: Array<{ e: TraceEvent; script: string | null; children: number }> = []
    const close = (upTo: number) => {
      while (stack.length > 0 && stack.at(-1)!.e.ts + stack.at(-1)!.e.dur! <= upTo) {
        const done = stack.pop()!
        add(describe(done.e, done.script), Math.max(0, cpuOf(done.e) - done.children))
      }
    }
    let childrenOfTask = 0
    for (const e of inside) {
      close(e.ts)
      const parent = stack.at(-1)
      if (parent === undefined) childrenOfTask += cpuOf(e)
      else parent.children += cpuOf(e)
      const data = e.args?.data ?? e.args?.beginData ?? {}
      const own = e.name === "FunctionCall" || e.name === "EvaluateScript" || e.name.startsWith("v8.compile") ? fileOf(data.url) : null
      stack.push({ e, script: own ?? parent?.script ?? null, children: 0 })
    }
    close(Number.POSITIVE_INFINITY)
    add("other (task itself)", Math.max(0, cpuOf(task) - childrenOfTask))
    const parts = [...self.entries()]
      .map(([what, us]) => [what, us / 1000] as const)
      .filter(([, ms]) => ms >= 1)
      .sort((a, b) => b[1] - a[1])
    // The other threads' CPU time within the task's span (a top-level task counted by its overlap).
    const busy = new Map<string, number>()
    for (const e of topLevel) {
      if (e.pid === pid && e.tid === tid) continue
      const overlap = Math.min(end, e.ts + e.dur!) - Math.max(task.ts, e.ts)
      if (overlap <= 0 || e.dur! <= 0) continue
      const name = threadName(e)
      busy.set(name, (busy.get(name) ?? 0) + (e.tdur! * overlap) / e.dur!)
    }
    const meanwhile = [...busy.entries()]
      .map(([what, us]) => [what, us / 1000] as const)
      .filter(([, ms]) => ms >= 1)
      .sort((a, b) => b[1] - a[1])
    return { start: (task.ts - origin) / 1000, duration: task.dur! / 1000, cpu: cpuOf(task) / 1000, parts, meanwhile }
  }
  return {
    long: outer.filter((t) => t.dur! > threshold * 1000).map(attribute),
    heaviestAfter: outer
      .filter((t) => t.ts >= marker.ts && t.tdur !== undefined)
      .sort((a, b) => b.tdur! - a.tdur!)
      .slice(0, 3)
      .map(attribute)
  }
}
