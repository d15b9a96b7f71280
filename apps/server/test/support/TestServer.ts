/**
 * The whole service on a loopback port, configured from a plain record of environment
 * variables (as an operator would), over a test database. Tests talk to it with real HTTP.
 */
import { HttpServer } from "@effect/platform"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as App from "../../src/App.js"
import * as AppConfig from "../../src/AppConfig.js"
import * as Clock from "effect/Clock"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

export class TestServer extends Context.Tag("@climate-grade/server/test/TestServer")<
  TestServer,
  {
    readonly url: (path: string) => string
    readonly origin: string
    readonly config: AppConfig.AppConfig
    /** The headers that open `/metrics` on the public listener (its METRICS_TOKEN), when one is set. */
    readonly metricsHeaders: Readonly<Record<string, string>>
  }
>() {}

export interface TestServerOptions {
  /** When given, every log line at every level, access lines included, is appended here (and nothing is printed). */
  readonly logs?: Array<string>
  /** The built site to serve; default the real build (apps/site/dist). */
  readonly siteDirectory?: string
}

const logging = (options: TestServerOptions) =>
  options.logs === undefined
    ? Logger.minimumLogLevel(process.env.TEST_LOG === "1" ? LogLevel.Debug : LogLevel.Error)
    : Layer.merge(
        Logger.replace(
          Logger.defaultLogger,
          Logger.map(Logger.logfmtLogger, (line) => void options.logs!.push(line))
        ),
        Logger.minimumLogLevel(LogLevel.All)
      )

export const testServerLayer = (
  env: Readonly<Record<string, string>>,
  database: Layer.Layer<SqlClient.SqlClient>,
  options: TestServerOptions = {}
) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      // No balancer probes a test's server: it stops listening at once when closed.
      const config = yield* AppConfig.appConfig.pipe(
        Effect.withConfigProvider(
          ConfigProvider.fromJson({ PORT: "0", AUTH_SECRET: "t".repeat(40), METRICS_TOKEN: "m".repeat(24), SHUTDOWN_PAUSE_MS: "0", ...env })
        ),
        Effect.orDie
      )
      const server = Layer.effect(
        TestServer,
        Effect.map(HttpServer.HttpServer, (http) => {
          const address = http.address as HttpServer.TcpAddress
          const origin = `http://127.0.0.1:${address.port}`
          const metricsHeaders = Option.match(config.metrics.token, {
            onNone: (): Record<string, string> => ({}),
            onSome: (token) => ({ authorization: `Bearer ${Redacted.value(token)}` })
          })
          return { origin, config, metricsHeaders, url: (path: string) => `${origin}${path}` }
        })
      )
      return server.pipe(Layer.provideMerge(
        App.httpLayer(config, database, {
          ...(options.siteDirectory === undefined ? {} : { siteDirectory: options.siteDirectory }),
          // Access lines beside the log lines when they are captured; else nowhere, like the rest.
          accessLines: options.logs === undefined ? () => {} : (line) => void options.logs!.push(line)
        })
      ))
    })
  ).pipe(
    Layer.provide(logging(options)),
    // The service runs on real time, like in production, whatever clock the test itself uses.
    Layer.provide(Layer.setClock(Clock.make())),
    Layer.orDie
  )
