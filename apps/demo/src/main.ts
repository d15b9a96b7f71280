/** `pnpm demo` (after its build): starts the demo, prints where to go, runs until Ctrl-C. */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Demo from "./Demo.js"

const port = (name: string) => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return undefined
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) {
    process.stderr.write(`${name} must be a port number, got '${raw}'\n`)
    process.exit(1)
  }
  return Number(raw)
}

const options: Demo.DemoOptions = {
  ...(process.env.DEMO_DIR === undefined ? {} : { dir: process.env.DEMO_DIR }),
  ...(port("DEMO_PORT") === undefined ? {} : { port: port("DEMO_PORT")! }),
  ...(port("DEMO_INBOX_PORT") === undefined ? {} : { inboxPort: port("DEMO_INBOX_PORT")! })
}

const program = Effect.gen(function* () {
  const demo = yield* Demo.start(options)
  process.stdout.write(Demo.banner(demo))
  yield* Effect.addFinalizer(() => Effect.sync(() => process.stdout.write("demo: stopping…\n")))
  return yield* Effect.never
}).pipe(Effect.scoped)

// Ctrl-C reaches this process more than once (from the terminal, and again from pnpm, which passes
// signals on to its child): the first stops the demo, the others are ignored, and the handlers stay
// in place so that no later signal finds the default action (or tsx's) and kills the process mid-way.
const fiber = Effect.runFork(program)
let stopping = false
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    Effect.runFork(Fiber.interrupt(fiber))
  })
}
fiber.addObserver((exit) => {
  if (Exit.isFailure(exit) && !Exit.isInterrupted(exit)) {
    process.stderr.write(`demo: ${Cause.pretty(exit.cause)}\n`)
    process.exit(1)
  }
  process.exit(0)
})
