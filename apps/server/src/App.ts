/** The only place that knows every layer: configuration in, a running service out. */
import { fileURLToPath } from "node:url"
import { HttpServer } from "@effect/platform"
import type * as SqlClient from "@effect/sql/SqlClient"
import { NodeHttpClient } from "@effect/platform-node"
import { ChatBot } from "@climate-grade/chat"
import {
  AlertSettings,
  alertLeaseMs,
  Alerts,
  AuthSecret,
  type AuthSecrets,
  CellData,
  ColdCells,
  Crypto,
  DataViews,
  ForecastEvents,
  GradingCache,
  LoginThrottle,
  Providers,
  RETRY_FOR_MS,
  SecureRandom,
  WATCH_LIMIT
} from "@climate-grade/core"
import { Demo, FrontDoor, MetricsRoute, ResponseIndex, Server, Site } from "@climate-grade/http"
import { Argon2, Random } from "@climate-grade/node"
import { ProviderExchange } from "@climate-grade/oauth"
import {
  AccountRecordsRepo,
  AccountsRepo,
  AlertsRepo,
  BudgetLedgerRepo,
  CellStoreRepo,
  ColdCellSlotsRepo,
  Database,
  GeocoderPaceRepo,
  Health,
  LoginAttemptsRepo,
  Migrations,
  PayloadRepo,
  PlacesRepo,
  SessionsRepo,
  SettingsRepo
} from "@climate-grade/postgres"
import { Nominatim, NominatimPacer, OpenMeteo } from "@climate-grade/weather"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { AppConfig } from "./AppConfig.js"
import * as Control from "./Control.js"
import * as LogLines from "./LogLines.js"

/**
 * The configured secret, or one generated once and kept in the database (not in production: config
 * refuses that), beside the previous secret during a rotation.
 */
const authSecret = (config: AppConfig) =>
  Layer.effect(
    AuthSecret,
    Effect.map(
      Option.match(config.authSecret, {
        onSome: Effect.succeed,
        onNone: () =>
          Effect.gen(function* () {
            const random = yield* SecureRandom
            const secret = yield* SettingsRepo.getOrCreate("auth_secret", Effect.map(random.bytes(48), Crypto.base64Url))
            yield* Effect.logWarning("AUTH_SECRET is not set; using a generated secret kept in the database")
            return Redacted.make(secret)
          }).pipe(Effect.orDie)
      }),
      (current): AuthSecrets.Keys => ({ current, previous: config.authSecretPrevious })
    )
  )

/** The configured database, migrated before anything uses it. */
export const databaseLayer = (config: AppConfig): Layer.Layer<SqlClient.SqlClient> =>
  Layer.provideMerge(Migrations.layer, Database.layer(config.database).pipe(Layer.orDie))

/** What the core's sign-in rules know of each provider: enabled or not, and the public client id. */
const providerSettings = (config: AppConfig) =>
  Layer.succeed(Providers.ProviderSettings, {
    chat: { enabled: config.providers.chat.enabled, clientId: config.providers.chat.clientId },
    idp: { enabled: config.providers.idp.enabled, clientId: config.providers.idp.clientId }
  })

/**
 * The weather upstreams, the history store over them, the views over that and the limit on new
 * cells per client; place search beside them.
 */
const dataLayer = (config: AppConfig) =>
  Layer.merge(
    DataViews.layer,
    ColdCells.layer(config.coldCellsPerClient).pipe(Layer.provide(ColdCellSlotsRepo.layer))
  ).pipe(
    // One cache of gradings for the views and the alert evaluator (alertsLayer reads it from here).
    Layer.provideMerge(GradingCache.layer()),
    Layer.provideMerge(
      CellData.layer({ historyStart: config.historyStart, dailyUnits: config.weather.dailyUnits, shares: config.weather.shares })
    ),
    Layer.provide(
      Layer.mergeAll(
        OpenMeteo.layer({
          archiveUrl: config.weather.archiveUrl,
          forecastUrl: config.weather.forecastUrl,
          apiKey: config.weather.apiKey
        }),
        CellStoreRepo.layer,
        BudgetLedgerRepo.layer
      )
    ),
    // Nominatim's two ports (labels for CellData, place search for /places) share one pacer.
    Layer.provideMerge(
      Layer.merge(
        // One pacer for every Nominatim call of the process (labels and place search): one call a second.
        Nominatim.layer({
          url: config.geocoder.url,
          searchUrl: config.geocoder.searchUrl,
          userAgent: config.geocoder.userAgent
        }).pipe(Layer.provide(NominatimPacer.layer()), Layer.provide(GeocoderPaceRepo.layer)),
        PlacesRepo.layer
      )
    ),
    Layer.provideMerge(PayloadRepo.layer())
  )

/** Watches, evaluation, and (with a bot configured) delivery of alerts (docs/api.md "Alerts"). */
const alertsLayer = (config: AppConfig) => {
  const { alerts } = config
  const settings = Layer.succeed(AlertSettings, {
    daysAhead: alerts.daysAhead,
    deliveryConfigured: Option.isSome(alerts.bot),
    // Links need an absolute address; without PUBLIC_ORIGIN the listen address is the best guess.
    siteOrigin: Option.getOrElse(config.publicOrigin, () => `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${config.port}`),
    basePath: config.basePath,
    evaluateEveryMs: alerts.evaluateEveryMs,
    retryBaseMs: alerts.retryBaseMs,
    retryForMs: RETRY_FOR_MS,
    pollMs: alerts.pollMs,
    leaseMs: alertLeaseMs(alerts.sendTimeoutMs),
    watchLimit: WATCH_LIMIT
  })
  const bot = Option.match(alerts.bot, {
    onNone: () => Layer.empty,
    onSome: ({ apiUrl, token }) => ChatBot.layer({ apiUrl, token, timeout: alerts.sendTimeoutMs })
  })
  return Alerts.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(AlertsRepo.layer, settings, bot))
  )
}

/**
 * Every port over a given (migrated) database. No background work: the operator command runs on
 * this too, and must not evaluate watches or send messages; the server adds `alertsLayer`.
 */
export const servicesLayer = (config: AppConfig, database: Layer.Layer<SqlClient.SqlClient> = databaseLayer(config)) =>
  Layer.mergeAll(
    AccountsRepo.layer,
    AccountRecordsRepo.layer,
    SessionsRepo.layer,
    Health.layer,
    LoginAttemptsRepo.layer,
    Layer.succeed(LoginThrottle.LoginPolicy, config.login),
    authSecret(config),
    // The token and userinfo addresses and the secrets: the exchange adapter's configuration only.
    ProviderExchange.layer(config.providers),
    dataLayer(config)
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(Random.layer, Argon2.layer, providerSettings(config), NodeHttpClient.layer, ForecastEvents.layer)
    ),
    Layer.provideMerge(database)
  )

/**
 * Where `pnpm --filter @climate-grade/site build` writes the site: apps/site/dist. Resolved from
 * this module, which runs as apps/server/src/App.ts (tests, tsx) or inside apps/server/dist/main.js
 * (the bundle `pnpm start` runs); both sit two levels below apps/.
 */
export const SITE_DIRECTORY = fileURLToPath(new URL("../../site/dist", import.meta.url))

/** The built site, read into memory once; a missing build is said once here, not on every request. */
const loadSite = (directory: string) =>
  Effect.tap(Site.load(directory), (site) =>
    site._tag === "Site"
      ? Effect.logInfo(`serving the site from ${site.directory} (${site.files.size} files)`)
      : Effect.logWarning(
          `The site is not built (${site.reason}); run \`pnpm build\`. The API still answers; site pages answer 503.`
        )
  )

/**
 * Said loudly rather than refused: a proxy that passes only the names it serves keeps `Host`
 * honest, and a provider sends the browser back only to the redirect URIs registered with it;
 * but without `PUBLIC_ORIGIN` a forged `Host` still shapes the sign-in's redirect URI and a
 * place page's absolute addresses.
 */
const originWarning = (config: AppConfig) =>
  config.production && Option.isNone(config.publicOrigin)
    ? Layer.effectDiscard(
        Effect.logWarning(
          "PUBLIC_ORIGIN is not set (NODE_ENV=production): sign-in redirect URIs and shared pages' addresses follow each request's Host header, which clients write; set PUBLIC_ORIGIN to the public address, e.g. https://grades.example.org"
        )
      )
    : Layer.empty

/**
 * An embedded database belongs to the one process that opened it: instances started from one
 * unit without DATABASE_URL would each have a database of their own (or, on one DATA_DIR, be
 * refused), which round-robin would make look like lost accounts. Said at every production start.
 */
export const embeddedWarningLine = (dataDir: string) =>
  `The database is embedded (PGlite in DATA_DIR ${dataDir}) and local to this process: no other instance can share it (a second one on this DATA_DIR is refused); to run more than one instance, set DATABASE_URL to a PostgreSQL server`

const embeddedWarning = (config: AppConfig) =>
  config.production && config.database._tag === "Embedded"
    ? Layer.effectDiscard(Effect.logWarning(embeddedWarningLine(config.database.dataDir)))
    : Layer.empty

export interface HttpLayerOptions {
  /** The built site's directory; default `SITE_DIRECTORY`. */
  readonly siteDirectory?: string
  /** Where access lines go; default the process's batched standard output (`LogLines`). */
  readonly accessLines?: (line: string) => void
}

export const httpLayer = (config: AppConfig, database?: Layer.Layer<SqlClient.SqlClient>, options: HttpLayerOptions = {}) =>
  // The services (database, migrations) and the site's files are ready before the front door listens.
  Layer.unwrapEffect(
    Effect.map(loadSite(options.siteDirectory ?? SITE_DIRECTORY), (loaded) => {
      const site = config.demoData && loaded._tag === "Site" ? Demo.markSite(loaded) : loaded
      return Server.serve({
        basePath: config.basePath,
        publicOrigin: config.publicOrigin,
        trustedProxyHops: config.trustedProxyHops,
        providers: {
          chat: { authorizeUrl: config.providers.chat.authorizeUrl, label: config.providers.chat.label },
          idp: { authorizeUrl: config.providers.idp.authorizeUrl, label: config.providers.idp.label }
        },
        responses: ResponseIndex.make(),
        site,
        port: config.port,
        host: config.host,
        metricsToken: config.metrics.token,
        accessLog: {
          format: config.accessLog ? config.logFormat : "off",
          instance: config.instanceId,
          write: options.accessLines ?? LogLines.stdoutLine()
        },
        shutdownPauseMs: config.shutdownPauseMs
      }).pipe(Layer.provide(Layer.succeed(Demo.DemoData, config.demoData)))
    })
  ).pipe(
    // Built on the server, so released before it: the log line precedes the drain.
    (serving) => Layer.provideMerge(drainLayer(config), serving),
    // Metrics on a listener of their own, when asked for (METRICS_PORT).
    Layer.merge(
      Option.match(config.metrics.port, {
        onNone: () => Layer.empty,
        onSome: (port) => MetricsRoute.listener({ host: config.metrics.host, port, token: config.metrics.token }).pipe(Layer.orDie)
      })
    ),
    // The operator channel of the embedded database this process owns (not of a test's database).
    Layer.merge(
      database === undefined && config.database._tag === "Embedded" ? Control.layer(config.database.dataDir) : Layer.empty
    ),
    HttpServer.withLogAddress,
    Layer.merge(originWarning(config)),
    Layer.merge(embeddedWarning(config)),
    Layer.provideMerge(alertsLayer(config)),
    Layer.provideMerge(servicesLayer(config, database))
  )

/** After the listener closes, requests in flight get this long to finish; what is left is then cut. */
export const DRAIN_SECONDS = FrontDoor.TIMEOUTS.drainMs / 1000

/**
 * Says the drain has begun. The drain itself is the front door's (`Drain`): `/health` at 503 for
 * `SHUTDOWN_PAUSE_MS`, then the listener closed, every answer with `Connection: close`, idle
 * connections closed, and at most DRAIN_SECONDS for what is in flight.
 */
const drainLayer = (config: AppConfig) =>
  Layer.scopedDiscard(
    Effect.zipRight(
      HttpServer.HttpServer,
      Effect.addFinalizer(() =>
        Effect.logInfo(
          `shutting down: /health answers 503, the listener closes in ${config.shutdownPauseMs / 1000} s, then requests in flight have ${DRAIN_SECONDS} s to finish`
        )
      )
    )
  )

/** LOG_FORMAT: `json` is one JSON object per line (warnings and errors on stderr, the rest on stdout), batched per event-loop turn. */
export const loggerLayer = (config: AppConfig) =>
  Logger.replace(Logger.defaultLogger, config.logFormat === "json" ? LogLines.jsonLines() : prettyLeveled)

const prettyOut = Logger.prettyLogger()
const prettyErr = Logger.prettyLogger({ stderr: true })
/** The pretty format, with errors (a start-up failure among them) on stderr like the JSON one. */
const prettyLeveled = Logger.make<unknown, void>((options) =>
  LogLevel.greaterThanEqual(options.logLevel, LogLevel.Error) ? prettyErr.log(options) : prettyOut.log(options)
)

export const describeDatabase = (config: AppConfig) => Database.describe(config.database)
