import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as FastCheck from "effect/FastCheck"
import * as FiberId from "effect/FiberId"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as List from "effect/List"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as LogSpan from "effect/LogSpan"
import { batched, GATHER_MS, plainJsonLine } from "../src/LogLines.js"

/** Past the end of a gathering of lines. */
const gathered = () => new Promise((resolve) => setTimeout(resolve, GATHER_MS + 20))

const plainArb = FastCheck.oneof(
  FastCheck.string(),
  FastCheck.boolean(),
  FastCheck.constant(null),
  FastCheck.double({ noNaN: true, noDefaultInfinity: true }),
  FastCheck.integer()
)

const options = (over: Partial<Logger.Logger.Options<unknown>>): Logger.Logger.Options<unknown> => ({
  fiberId: FiberId.none,
  logLevel: LogLevel.Info,
  message: "GET /api/v2/health 200 1.2ms",
  cause: Cause.empty,
  context: FiberRefs.empty(),
  spans: List.empty(),
  annotations: HashMap.empty(),
  date: new Date(0),
  ...over
})

describe("LogLines", () => {
  it.prop(
    "a plain line is byte for byte what Effect's jsonLogger writes",
    [
      FastCheck.string(),
      FastCheck.constantFrom(LogLevel.Debug, LogLevel.Info, LogLevel.Warning, LogLevel.Error, LogLevel.Fatal),
      FastCheck.dictionary(FastCheck.string({ minLength: 1 }), plainArb, { maxKeys: 6 }),
      FastCheck.date({ min: new Date(0), max: new Date("2100-01-01"), noInvalidDate: true }),
      FastCheck.constantFrom(FiberId.none, FiberId.make(7, 0))
    ],
    ([message, logLevel, annotations, date, fiberId]) => {
      const o = options({ message, logLevel, annotations: HashMap.fromIterable(Object.entries(annotations)), date, fiberId })
      expect(plainJsonLine(o)).toBe(Logger.jsonLogger.log(o))
    }
  )

  it("anything else is left to jsonLogger: a structured message, a cause, a span, an object annotation", () => {
    for (const o of [
      options({ message: ["a", "b"] }),
      options({ message: { nested: true } }),
      options({ cause: Cause.fail("boom") }),
      options({ spans: List.make(LogSpan.make("span", 0)) }),
      options({ annotations: HashMap.make(["user", { id: 1 }]) }),
      options({ annotations: HashMap.make(["n", Number.NaN]) })
    ]) {
      expect(plainJsonLine(o)).toBeUndefined()
    }
  })

  it("without a delay, the lines gathered go in one write at its end, in order; more than a batch in parts", async () => {
    const chunks: Array<string> = []
    const sink = batched({ write: (chunk: Uint8Array | string) => chunks.push(Buffer.from(chunk).toString()) }, { maxBytes: 100 })
    sink.write("one")
    sink.write("two")
    expect(chunks).toEqual([])
    await gathered()
    expect(chunks).toEqual(["one\ntwo\n"])
    // A line of 9 characters takes 10 bytes with its newline but might take 28: four of them might
    // not fit in 100 bytes, so every fourth line writes what was gathered so far.
    for (let i = 0; i < 9; i++) sink.write(`line ${String(i).padStart(4, "0")}`)
    const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `line 000${from + i}\n`).join("")
    expect(chunks.slice(1)).toEqual([lines(0, 4), lines(4, 8)])
    sink.flush()
    expect(chunks.slice(3)).toEqual([lines(8, 9)])
    // Text beyond ASCII is written as UTF-8, whole.
    sink.write("Zürich — 東京")
    sink.write("last")
    await gathered()
    expect(chunks.slice(4)).toEqual(["Zürich — 東京\nlast\n"])
    await gathered()
    expect(chunks).toHaveLength(5)
  })

  it("with a delay, the pending bytes are written before lines that would not fit after them; lines longer than a batch go alone", async () => {
    const chunks: Array<string> = []
    const sink = batched({ write: (chunk: Uint8Array | string) => chunks.push(Buffer.from(chunk).toString()) }, { delayMs: 60_000, maxBytes: 100 })
    // 10 bytes each: three might take 84, so the lines are encoded after each third one (30 bytes pending).
    for (let i = 0; i < 9; i++) sink.write(`line ${String(i).padStart(4, "0")}`)
    expect(chunks).toEqual([])
    // 90 bytes pending: the next line might not fit, and its exact size (10) still fits in 100.
    sink.write("xxxxxxxxx")
    sink.flush()
    expect(chunks).toEqual([`${Array.from({ length: 9 }, (_, i) => `line 000${i}\n`).join("")}xxxxxxxxx\n`])
    sink.write("pending")
    await gathered()
    expect(chunks).toHaveLength(1)
    // 126 bytes gathered: what was pending first, then those on their own.
    sink.write("short")
    sink.write("y".repeat(119))
    expect(chunks.slice(1)).toEqual(["pending\n", `short\n${"y".repeat(119)}\n`])
    sink.flush()
    expect(chunks).toHaveLength(3)
  })

  it("the pending bytes are used again only once a write has taken them whole", () => {
    // A stream that keeps chunks to write later: each batch must stay as it was written.
    const kept: Array<Uint8Array> = []
    const later = batched({ write: (chunk: Uint8Array | string) => kept.push(chunk as Uint8Array), writableLength: 1 }, { delayMs: 60_000 })
    later.write("first")
    later.flush()
    later.write("second")
    later.flush()
    expect(kept.map((c) => Buffer.from(c).toString())).toEqual(["first\n", "second\n"])
    // One that writes at once (a file, a pipe Node writes synchronously): the same bytes again.
    const taken: Array<Uint8Array> = []
    const now = batched({ write: (chunk: Uint8Array | string) => taken.push(chunk as Uint8Array), writableLength: 0 }, { delayMs: 60_000 })
    now.write("first")
    now.flush()
    now.write("again")
    now.flush()
    expect(taken[0]!.buffer).toBe(taken[1]!.buffer)
  })

  it("with a delay, lines wait for it (not only for the end of their gathering), then go together", async () => {
    const chunks: Array<string> = []
    const sink = batched({ write: (chunk: Uint8Array | string) => chunks.push(Buffer.from(chunk).toString()) }, { delayMs: 500 })
    sink.write("one")
    await gathered()
    sink.write("two")
    await gathered()
    expect(chunks).toEqual([])
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(chunks).toEqual(["one\ntwo\n"])
    sink.write("three")
    sink.flush()
    expect(chunks).toEqual(["one\ntwo\n", "three\n"])
    // The cleared timer writes nothing more.
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(chunks).toHaveLength(2)
  })
})
