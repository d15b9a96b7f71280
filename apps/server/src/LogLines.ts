/**
 * Log lines for `LOG_FORMAT=json`, written in batches. Node writes to a pipe or a file
 * synchronously, one system call per `console.log`, and there is an access-log line per request:
 * for a revalidation the response index answers, the log line cost more than the answer. Measured
 * with `pnpm bench:http a` (output to a file): ~13,600 req/s through `console`, ~16,900 batched
 * per turn of the event loop, ~21,400 batched with the plain line below (~48,700 with no line).
 * Standard output (where access lines go) is written at most `STDOUT_DELAY_MS` after a line
 * arrives, or when the next line would not fit in the 64 KB pending, as nginx's
 * `access_log … buffer= flush=` does: fewer, larger writes than one per turn of the event loop.
 * Standard error (warnings and errors) is written within `GATHER_MS`. Lines keep their order within each stream, and
 * whatever is pending is written when the process exits (by its own end, a signal it handles or
 * an uncaught error; a SIGKILL loses them).
 */
import * as Cause from "effect/Cause"
import * as FiberId from "effect/FiberId"
import * as List from "effect/List"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

/** Bytes pending at most before a write. */
export const MAX_PENDING_BYTES = 64 * 1024
/** How long lines are kept as strings before they are encoded into the pending bytes (or written, without a delay). */
export const GATHER_MS = 1
/** How long an access line may wait on standard output. */
export const STDOUT_DELAY_MS = 20

export interface BatchOptions {
  /** 0: written `GATHER_MS` after the first line; else at most this long after the first pending line. */
  readonly delayMs?: number
  readonly maxBytes?: number
}

/**
 * A line writer for one stream: lines gathered, then written together. Lines are kept as they are
 * for at most `GATHER_MS` and then joined and encoded into the pending bytes at once: one join
 * builds one flat string, where encoding each line as it came meant flattening it first (a
 * template's line is a chain of pieces) and a call into Node's buffer code per line, most of a
 * line's cost. One timer, re-armed (not made anew) when the first line of a gathering comes, ends
 * it: ending each turn of the event loop instead meant an immediate (an object, and a callback)
 * per turn, and under load a turn holds only ~3.4 answers. Kept longer, lines would outlive the young generation's
 * collections, which then copy them: lines kept as strings for the whole 20 ms batch cost ~12,000
 * instructions more per 304 answered from the index. The pending bytes are reused once the stream
 * has written them (a file, or a pipe Node writes synchronously); a stream that keeps a chunk to
 * write later gets new bytes for the next.
 */
export const batched = (
  stream: { write(chunk: Uint8Array | string): unknown; readonly writableLength?: number },
  { delayMs = 0, maxBytes = MAX_PENDING_BYTES }: BatchOptions = {}
) => {
  let pending = Buffer.allocUnsafeSlow(maxBytes)
  let used = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  /** The lines gathered, and their length in UTF-16 units with their newlines. */
  const lines: Array<string> = []
  let units = 0
  let gathering = false
  const write = (chunk: Buffer) => {
    stream.write(chunk)
    // Taken whole (nothing of it left in the stream's queue): the same bytes can take the next lines.
    if (stream.writableLength !== 0) pending = Buffer.allocUnsafeSlow(maxBytes)
  }
  const writePending = () => {
    if (timer !== undefined) {
      clearTimeout(timer)
      timer = undefined
    }
    if (used === 0) return
    const chunk = pending.subarray(0, used)
    used = 0
    write(chunk)
  }
  /**
   * The lines gathered, joined: without a delay, written at once; else into the pending bytes,
   * those written first when the lines might not fit after them (the exact size is worked out only
   * then), and the lines alone when they would not fit in a batch at all.
   */
  const endGathering = () => {
    gathering = false
    if (lines.length === 0) return
    lines.push("")
    const text = lines.join("\n")
    lines.length = 0
    // A UTF-16 unit takes at most 3 bytes in UTF-8.
    let most = units * 3
    units = 0
    if (delayMs === 0) {
      stream.write(text)
      return
    }
    if (used + most > maxBytes) {
      most = Buffer.byteLength(text)
      if (used + most > maxBytes) writePending()
      if (most > maxBytes) {
        stream.write(text)
        return
      }
    }
    used += pending.write(text, used, "utf8")
    // The process's exit writes what is pending: the timer need not keep it alive.
    if (timer === undefined) timer = setTimeout(writePending, delayMs).unref()
  }
  // One timer for every gathering, re-armed by `refresh`, which starts again a timer that has run
  // (its first run finds nothing gathered).
  const gather = setTimeout(endGathering, GATHER_MS).unref()
  return {
    write: (line: string) => {
      lines.push(line)
      units += line.length + 1
      // Lines that might not fit in what is left of the batch end the gathering at once.
      if (units * 3 > maxBytes - used) endGathering()
      else if (!gathering) {
        gathering = true
        gather.refresh()
      }
    },
    flush: () => {
      endGathering()
      writePending()
    }
  }
}

let sinks: { readonly out: ReturnType<typeof batched>; readonly err: ReturnType<typeof batched> } | undefined

/** One pair of sinks per process (stdout, stderr), flushed on exit. */
const processSinks = () => {
  if (sinks === undefined) {
    const created = { out: batched(process.stdout, { delayMs: STDOUT_DELAY_MS }), err: batched(process.stderr) }
    process.once("exit", () => {
      created.out.flush()
      created.err.flush()
    })
    sinks = created
  }
  return sinks
}

/** A line to standard output, batched with the process's other lines (the access log's sink). */
export const stdoutLine = (): ((line: string) => void) => processSinks().out.write

const isPlain = (u: unknown) => u === null || typeof u === "string" || typeof u === "boolean" || (typeof u === "number" && Number.isFinite(u))

/**
 * Effect's `jsonLogger` line for a message that is one string, with no cause, no span and only
 * plain annotation values (an access-log line, most lines): the same bytes, made by one
 * `JSON.stringify` instead of its circular-safe, redaction-aware walk. Anything else: undefined.
 */
export const plainJsonLine = (options: Logger.Logger.Options<unknown>): string | undefined => {
  if (typeof options.message !== "string" || !Cause.isEmpty(options.cause) || List.isCons(options.spans)) return undefined
  const annotations: Record<string, unknown> = {}
  for (const [key, value] of options.annotations) {
    if (!isPlain(value)) return undefined
    annotations[key] = value
  }
  return JSON.stringify({
    message: options.message,
    logLevel: options.logLevel.label,
    timestamp: options.date.toISOString(),
    annotations,
    spans: {},
    fiberId: FiberId.threadName(options.fiberId)
  })
}

/** One JSON object per line: warnings and errors on stderr (as `console.warn`/`console.error` put them), the rest on stdout. */
export const jsonLines = (): Logger.Logger<unknown, void> => {
  const { out, err } = processSinks()
  return Logger.make((options) => {
    const line = plainJsonLine(options) ?? Logger.jsonLogger.log(options)
    if (LogLevel.greaterThanEqual(options.logLevel, LogLevel.Warning)) err.write(line)
    else out.write(line)
  })
}
