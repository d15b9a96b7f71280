import { NodeRuntime } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { describeDatabase, httpLayer, loggerLayer } from "./App.js"
import { appConfig, describeConfigError } from "./AppConfig.js"

const config = Effect.runSync(Effect.either(appConfig))
if (Either.isLeft(config)) {
  // One line naming the variable, and nothing started half-configured.
  process.stderr.write(`${describeConfigError(config.left)}\n`)
  process.exit(1)
}

Effect.logInfo(`starting climate-grade on ${describeDatabase(config.right)}`).pipe(
  Effect.zipRight(Layer.launch(httpLayer(config.right))),
  Effect.provide(loggerLayer(config.right)),
  NodeRuntime.runMain
)
