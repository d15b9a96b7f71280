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
import { batched, plainJsonLine } from "../src/LogLines.js"

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

  it("lines are written together at the end of the turn, in order; a full batch and flush() write at once", async () => {
    const chunks: Array<string> = []
    const sink = batched({ write: (chunk: Uint8Array | string) => chunks.push(Buffer.from(chunk).toString()) }, { maxBytes: 100 })
    sink.write("one")
    sink.write("two")
    expect(chunks).toEqual([])
    await new Promise((resolve) => setImmediate(resolve))
    expect(chunks).toEqual(["one\ntwo\n"])
    // A line of 9 characters takes 10 bytes with its newline but might take 28: after eight of them
    // (80 bytes) a ninth might not fit in 100, so the eight go first.
    for (let i = 0; i < 9; i++) sink.write(`line ${String(i).padStart(4, "0")}`)
    expect(chunks).toHaveLength(2)
    expect(chunks[1]).toBe(Array.from({ length: 8 }, (_, i) => `line 000${i}\n`).join(""))
    sink.flush()
    // Text beyond ASCII is written as UTF-8, whole; a line longer than a batch goes alone.
    sink.write("Zürich — 東京")
    sink.write("x".repeat(40))
    expect(chunks.slice(2)).toEqual(["line 0008\n", "Zürich — 東京\n", `${"x".repeat(40)}\n`])
    sink.write("last")
    sink.flush()
    expect(chunks.at(-1)).toBe("last\n")
    await new Promise((resolve) => setImmediate(resolve))
    expect(chunks).toHaveLength(6)
  })

  it("with a delay, lines wait for it (not for the end of the turn), then go together", async () => {
    const chunks: Array<string> = []
    const sink = batched({ write: (chunk: Uint8Array | string) => chunks.push(Buffer.from(chunk).toString()) }, { delayMs: 30 })
    sink.write("one")
    await new Promise((resolve) => setImmediate(resolve))
    sink.write("two")
    expect(chunks).toEqual([])
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(chunks).toEqual(["one\ntwo\n"])
    sink.write("three")
    sink.flush()
    expect(chunks).toEqual(["one\ntwo\n", "three\n"])
    // The cleared timer writes nothing more.
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(chunks).toHaveLength(2)
  })
})
