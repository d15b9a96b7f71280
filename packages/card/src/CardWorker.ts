/**
 * A worker thread of the card pool (CardPool): draws one card per message, the whole drawing
 * (layout, text measuring, rasterising, PNG encoding) off the server's event loop. The pool ends
 * the thread itself when a drawing runs past its time or nobody waits for it any more.
 */
import { parentPort } from "node:worker_threads"
import type { GradePayload } from "@climate-grade/core/data/Payloads"
import type { Language } from "@climate-grade/core/i18n/Languages"
import type { NotableSpell } from "@climate-grade/core/spells/Notable"
import { drawSync } from "./CardPng.js"
import type { Words } from "@climate-grade/core/rules"

type Units = Words.Units

export interface Job {
  readonly grade: GradePayload
  readonly units: Units
  readonly spell: NotableSpell | null
  readonly lang?: Language
  /** The weather is made up: the card carries the demo's stamp. */
  readonly demo?: boolean
}

export type Reply = { readonly png: Uint8Array; readonly ms: number } | { readonly error: string }

const port = parentPort
if (port === null) throw new Error("CardWorker runs as a worker thread")
port.on("message", (job: Job) => {
  let reply: Reply
  try {
    reply = drawSync(job.grade, job.units, job.spell, job.lang ?? "en", job.demo ?? false)
  } catch (error) {
    reply = { error: error instanceof Error ? error.message : String(error) }
  }
  port.postMessage(reply, "png" in reply ? [reply.png.buffer as ArrayBuffer] : [])
})
