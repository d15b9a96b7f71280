/**
 * Preloaded into the service by `pnpm bench:soak flood` (`--expose-gc --require` this file): on
 * SIGUSR2 it collects garbage (twice: weak references and finalizers let go of more on the second)
 * and writes one line to standard error, `bench-memory {…}`, with `process.memoryUsage()` then and
 * what each of V8's heap spaces holds resident (`spaces`: name → [physical, used] bytes). RSS
 * read from outside straight after it counts what is live, not what the next GC would free (it
 * still counts freed memory the allocator has not returned to the system).
 */
const { getHeapSpaceStatistics } = require("node:v8")

process.on("SIGUSR2", () => {
  if (typeof globalThis.gc === "function") {
    globalThis.gc()
    globalThis.gc()
  }
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics()
      .filter((s) => s.physical_space_size > 0)
      .map((s) => [s.space_name, [s.physical_space_size, s.space_used_size]])
  )
  process.stderr.write(`bench-memory ${JSON.stringify({ ...process.memoryUsage(), spaces })}\n`)
})
