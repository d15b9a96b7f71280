/** `pnpm demo` (after its build): starts the demo, prints where to go, runs until Ctrl-C. */
import { NodeRuntime } from "@effect/platform-node"
import * as Effect from "effect/Effect"
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
}).pipe(
  Effect.scoped,
  Effect.tapErrorCause((cause) => Effect.sync(() => process.stderr.write(`demo: ${String(cause.toString())}\n`)))
)

NodeRuntime.runMain(program, { disableErrorReporting: true })
