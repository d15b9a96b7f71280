/**
 * Cards drawn on a few worker threads (node:worker_threads), never on the server's event loop: a
 * long label or a slow drawing holds a worker, not every other request. The pool is bounded in
 * threads and in drawings waiting; each drawing has one time limit from the moment it is asked
 * for (waiting and drawing alike), and is dropped when its caller stops waiting (an AbortSignal):
 * taken out of the queue, or its thread ended and a new one started for the next drawing.
 *
 * A pool of its own rather than a library's: it needs exactly this (end the thread under a
 * drawing that is abandoned or late), in a hundred lines.
 */
import { createRequire } from "node:module"
import { availableParallelism } from "node:os"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import type { GradePayload } from "@climate-grade/core/data/Payloads"
import type { Language } from "@climate-grade/core/i18n/Languages"
import type { NotableSpell } from "@climate-grade/core/spells/Notable"
import type { Rendered } from "./CardPng.js"
import type { Reply } from "./CardWorker.js"
import type { Words } from "@climate-grade/core/rules"

type Units = Words.Units

/** How long one drawing may take from the moment it is asked for. */
export const DRAW_TIMEOUT_MS = 5_000

/** Threads: one core is left to the event loop; at most four (a card is small). */
export const defaultSize = () => Math.max(1, Math.min(4, availableParallelism() - 1))

/** Drawings waiting for a thread at most, all clients together; past it a drawing is refused at once. */
export const QUEUE_LIMIT = 32

export class PoolFull extends Error {
  override readonly name = "PoolFull"
}
export class DrawTimeout extends Error {
  override readonly name = "DrawTimeout"
}
export class DrawAborted extends Error {
  override readonly name = "DrawAborted"
}

/**
 * The worker's code: the bundled `card-worker.js` beside this module (apps/server/build.mjs writes
 * it into dist/ with the server's chunks), or, run from source (tests, tsx), the TypeScript file
 * loaded through tsx's hooks, registered in the thread first.
 */
const workerCode = (): { readonly code: string | URL; readonly eval: boolean; readonly execArgv?: ReadonlyArray<string> } => {
  if (!import.meta.url.endsWith(".ts")) return { code: new URL("./card-worker.js", import.meta.url), eval: false }
  // tsx's ESM entry (its `import` condition) beside the CommonJS one `require` finds.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href
  const source = new URL("./CardWorker.ts", import.meta.url).href
  return {
    code: `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(source)}) })`,
    eval: true,
    // The workspace's packages from their sources, as the tests and tsx read them, not a built dist/.
    execArgv: [...process.execArgv, "--conditions=source"]
  }
}

interface Job {
  readonly grade: GradePayload
  readonly units: Units
  readonly spell: NotableSpell | null
  readonly lang: Language
  readonly demo: boolean
  readonly resolve: (rendered: Rendered) => void
  readonly reject: (error: Error) => void
  readonly started: number
  timer: ReturnType<typeof setTimeout> | undefined
  cleanup: () => void
}

interface Slot {
  worker: Worker | undefined
  job: Job | undefined
}

export interface Pool {
  readonly draw: (
    grade: GradePayload,
    units: Units,
    signal?: AbortSignal,
    spell?: NotableSpell | null,
    lang?: Language,
    /** The weather is made up: the card carries the demo's stamp. */
    demo?: boolean
  ) => Promise<Rendered>
  /** Drawings under way and waiting. */
  readonly load: () => { readonly drawing: number; readonly waiting: number }
  readonly close: () => Promise<void>
}

export const make = (
  options: { readonly size?: number; readonly queueLimit?: number; readonly timeoutMs?: number } = {}
): Pool => {
  const size = options.size ?? defaultSize()
  const queueLimit = options.queueLimit ?? QUEUE_LIMIT
  const timeoutMs = options.timeoutMs ?? DRAW_TIMEOUT_MS
  const file = workerCode()
  const slots: Array<Slot> = Array.from({ length: size }, () => ({ worker: undefined, job: undefined }))
  const queue: Array<Job> = []

  /** Ends the slot's thread (a late or abandoned drawing): the next drawing starts a new one. */
  const stop = (slot: Slot) => {
    const worker = slot.worker
    slot.worker = undefined
    if (worker !== undefined) void worker.terminate()
  }

  /** The slot's drawing is over: its caller told, the next waiting drawing started. */
  const finish = (slot: Slot, outcome: (job: Job) => void) => {
    const job = slot.job
    slot.job = undefined
    if (job !== undefined) {
      job.cleanup()
      outcome(job)
    }
    pump()
  }

  const spawn = (slot: Slot): Worker => {
    const worker = new Worker(file.code, { eval: file.eval, ...(file.execArgv === undefined ? {} : { execArgv: [...file.execArgv] }) })
    // An idle pool does not keep the process alive.
    worker.unref()
    worker.on("message", (reply: Reply) => {
      if (slot.worker !== worker) return
      finish(slot, (job) =>
        "error" in reply
          ? job.reject(new Error(reply.error))
          : job.resolve({ png: reply.png, ms: performance.now() - job.started })
      )
    })
    const lost = (error: Error) => {
      if (slot.worker !== worker) return
      slot.worker = undefined
      finish(slot, (job) => job.reject(error))
    }
    worker.on("error", lost)
    worker.on("exit", (code) => lost(new Error(`card worker exited (${code})`)))
    slot.worker = worker
    return worker
  }

  const pump = () => {
    for (const slot of slots) {
      if (slot.job !== undefined) continue
      const job = queue.shift()
      if (job === undefined) return
      slot.job = job
      ;(slot.worker ?? spawn(slot)).postMessage({ grade: job.grade, units: job.units, spell: job.spell, lang: job.lang, demo: job.demo })
    }
  }

  /** Takes a drawing out wherever it is: the queue, or a thread (which is ended). */
  const drop = (job: Job, error: Error) => {
    const waiting = queue.indexOf(job)
    if (waiting >= 0) {
      queue.splice(waiting, 1)
      job.cleanup()
      job.reject(error)
      return
    }
    const slot = slots.find((s) => s.job === job)
    if (slot === undefined) return
    stop(slot)
    finish(slot, (j) => j.reject(error))
  }

  const draw = (
    grade: GradePayload,
    units: Units,
    signal?: AbortSignal,
    spell: NotableSpell | null = null,
    lang: Language = "en",
    demo = false
  ) =>
    new Promise<Rendered>((resolve, reject) => {
      if (signal?.aborted) return reject(new DrawAborted("nobody waits for this card"))
      if (queue.length >= queueLimit) return reject(new PoolFull(`${queueLimit} cards are waiting to be drawn`))
      const onAbort = () => drop(job, new DrawAborted("nobody waits for this card"))
      const job: Job = {
        grade,
        units,
        spell,
        lang,
        demo,
        resolve,
        reject,
        started: performance.now(),
        timer: undefined,
        cleanup: () => {
          clearTimeout(job.timer)
          signal?.removeEventListener("abort", onAbort)
        }
      }
      job.timer = setTimeout(() => drop(job, new DrawTimeout(`the card was not drawn within ${timeoutMs} ms`)), timeoutMs)
      signal?.addEventListener("abort", onAbort, { once: true })
      queue.push(job)
      pump()
    })

  return {
    draw,
    load: () => ({ drawing: slots.filter((s) => s.job !== undefined).length, waiting: queue.length }),
    close: async () => {
      for (const job of [...queue, ...slots.flatMap((s) => (s.job === undefined ? [] : [s.job]))]) {
        drop(job, new DrawAborted("the card pool is closing"))
      }
      await Promise.all(slots.map((s) => s.worker?.terminate()))
    }
  }
}
