import "./RuntimeFlags.js"
import { NodeRuntime } from "@effect/platform-node"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { DRAIN_SECONDS, describeDatabase, httpLayer, loggerLayer } from "./App.js"
import { appConfig, describeConfigError } from "./AppConfig.js"
import { describeStartupFailure } from "./Startup.js"

const config = Effect.runSync(Effect.either(appConfig))
if (Either.isLeft(config)) {
  // One line naming the variable, and nothing started half-configured.
  process.stderr.write(`${describeConfigError(config.left)}\n`)
  process.exit(1)
}

// The drain is bounded in the server (the pause, then DRAIN_SECONDS); this is the backstop
// should closing anything else (the database) hang after it.
const backstop = () => {
  setTimeout(() => {
    process.stderr.write(`${JSON.stringify({ message: "shutdown did not finish; exiting", logLevel: "ERROR" })}\n`)
    process.exit(1)
  }, config.right.shutdownPauseMs + (DRAIN_SECONDS + 5) * 1000).unref()
}
// Ctrl-C in a terminal signals the whole process group, and `pnpm start` forwards the signal
// again: the runtime's own listener is gone after the first, and without a listener Node's default
// would end the process by the second, mid-drain (and pnpm would report the command failed). So a
// listener stays for the whole shutdown; repeats are ignored, the backstop bounds it.
let stopping = false
const onSignal = () => {
  if (stopping) return
  stopping = true
  backstop()
}
process.on("SIGTERM", onSignal)
process.on("SIGINT", onSignal)

Effect.logInfo(`starting climate-grade on ${describeDatabase(config.right)}`).pipe(
  Effect.zipRight(Layer.launch(httpLayer(config.right))),
  // Launch only ends by failing to start (or by a signal, which is an interruption).
  Effect.tapErrorCause((cause) =>
    Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logFatal(describeStartupFailure(cause))
  ),
  Effect.provide(loggerLayer(config.right)),
  // Our logger (LOG_FORMAT) replaces the default one; runMain's pretty logger would replace it
  // back, and its error report would print the whole cause: the line above says it.
  (program) => NodeRuntime.runMain(program, { disablePrettyLogger: true, disableErrorReporting: true })
)
