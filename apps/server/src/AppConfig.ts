/**
 * Every setting of docs/configuration.md, read once at start-up with Effect `Config`. A bad value
 * fails with a `ConfigError` whose path names the variable; `main` prints it as one line.
 */
import { CivilDate, ColdCells, LoginThrottle, Providers, UpstreamBudget } from "@climate-grade/core"
import { Database } from "@climate-grade/postgres"
import { OpenMeteo } from "@climate-grade/weather"
import { hostname } from "node:os"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

export const VERSION = "0.1.0"

/**
 * Long enough for a balancer that probes `/health` every second or so to see the 503 twice;
 * behind one that probes less often (or a Kubernetes endpoint update) set more, 0 for none.
 */
export const SHUTDOWN_PAUSE_MS = 2_000

/**
 * A provider's settings as read, with whether they enable it (the core's rule). App.ts hands each
 * part to the one that needs it: the core gets whether it is enabled and the public client id;
 * packages/http the authorize address and the label; packages/oauth the token and userinfo
 * addresses and the secret.
 */
export interface ProviderEnv {
  readonly enabled: boolean
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly label: string
  readonly authorizeUrl: string
  readonly tokenUrl: string
  readonly userinfoUrl: string
}

export interface AppConfig {
  readonly port: number
  readonly host: string
  readonly database: Database.DatabaseTarget
  readonly authSecret: Option.Option<Redacted.Redacted<string>>
  /** The secret before the last rotation: what it signed is still accepted. */
  readonly authSecretPrevious: Option.Option<Redacted.Redacted<string>>
  readonly production: boolean
  readonly basePath: string
  readonly publicOrigin: Option.Option<string>
  readonly trustedProxyHops: number
  readonly coldCellsPerClient: number
  readonly login: LoginThrottle.Policy
  readonly providers: { readonly chat: ProviderEnv; readonly idp: ProviderEnv }
  readonly weather: {
    readonly archiveUrl: string
    readonly forecastUrl: string
    readonly apiKey: Option.Option<Redacted.Redacted<string>>
    /** Open-Meteo cost units a UTC day may spend on new cells; null: unlimited. */
    readonly dailyUnits: number | null
    /** How the day is split between clients (percent of `dailyUnits`). */
    readonly shares: UpstreamBudget.Shares
  }
  readonly geocoder: { readonly url: string; readonly searchUrl: string; readonly userAgent: string }
  readonly historyStart: CivilDate.EpochDay
  readonly logFormat: "pretty" | "json"
  /**
   * Where `/metrics` is served: on a listener of its own (`port`, on `host`) and, with a `token`,
   * also on the public listener to a bearer of it.
   */
  readonly metrics: {
    readonly port: Option.Option<number>
    readonly host: string
    readonly token: Option.Option<Redacted.Redacted<string>>
  }
  /** ACCESS_LOG: one line per request, or none (for a deployment that logs at its proxy). */
  readonly accessLog: boolean
  /** DEMO_DATA: the weather comes from fakes (`pnpm demo`), and every page, shared head and card says so. */
  readonly demoData: boolean
  /** INSTANCE_ID, else `hostname:pid`: which process an access line came from. */
  readonly instanceId: string
  /** After SIGTERM, how long the server keeps serving with `/health` at 503 before it stops listening. */
  readonly shutdownPauseMs: number
  readonly alerts: AlertsConfig
}

/**
 * Alerts (docs/configuration.md; the bot in docs/deploy.md); the `…_MS` settings are tuning
 * knobs, there so tests can make the waits short.
 */
export interface AlertsConfig {
  /** CHAT_BOT_TOKEN and CHAT_API_URL; delivery is on only when both are set. */
  readonly bot: Option.Option<{ readonly token: Redacted.Redacted<string>; readonly apiUrl: string }>
  readonly daysAhead: number
  readonly evaluateEveryMs: number
  readonly retryBaseMs: number
  readonly pollMs: number
  readonly sendTimeoutMs: number
}

/**
 * Validation that keeps the variable's name in the error (`Config.validate` loses it). Apply it
 * directly to the primitive `Config.string(name)`, whose name `mapOrFail` prefixes to the path.
 */
const check =
  (message: string, ok: (value: string) => boolean) =>
  (config: Config.Config<string>): Config.Config<string> =>
    Config.mapOrFail(config, (value) =>
      ok(value) ? Either.right(value) : Either.left(ConfigError.InvalidData([], `${message}, got "${value}"`))
    )

const isHttpUrl = (s: string) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol)

const httpUrl = (name: string) => Config.string(name).pipe(check("Expected an http(s) URL", isHttpUrl))

/** An optional setting: unset, or set to nothing but blanks (`FOO=` in an env file), is None. */
const optional = (name: string): Config.Config<Option.Option<string>> =>
  Config.map(Config.option(Config.string(name)), Option.filter((s) => s.trim() !== ""))

/** An optional http(s) URL, validated only when given. */
const optionalHttpUrl = (name: string): Config.Config<Option.Option<string>> =>
  Config.mapOrFail(optional(name), (url) =>
    Option.isNone(url) || isHttpUrl(url.value)
      ? Either.right(url)
      : Either.left(ConfigError.InvalidData([name], `Expected an http(s) URL, got "${url.value}"`))
  )

/**
 * A path prefix: empty, or `/`-separated segments of URL path characters, none empty, `.` or `..`.
 * `//evil.example` would make every account redirect leave the site; `/a/../b` would be normalised
 * elsewhere than where it is served.
 */
export const isBasePath = (s: string): boolean =>
  s === "" ||
  (s.startsWith("/") &&
    s
      .slice(1)
      .split("/")
      .every((segment) => /^(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})+$/.test(segment) && segment !== "." && segment !== ".."))

const basePath = Config.string("BASE_PATH").pipe(
  check("Expected empty or a path like /grades: a leading slash, segments without . or .., no trailing slash", isBasePath),
  Config.withDefault("")
)

/** A whole number from `min` up, named in the error when it is not one. */
const wholeNumber = (name: string, min: number, fallback: number) =>
  Config.string(name).pipe(
    check(`Expected a whole number of at least ${min}`, (s) => /^\d{1,9}$/.test(s.trim()) && Number(s) >= min),
    Config.map(Number),
    Config.withDefault(fallback)
  )

/** A percentage from `min` to `max` (`20` or `20%`; decimals allowed), named in the error when it is not one. */
const percent = (name: string, min: number, max: number, fallback: number) =>
  Config.string(name).pipe(
    check(`Expected a percentage from ${min} to ${max}, like 20 or 20%`, (s) => {
      const match = /^\s*(\d{1,3}(?:\.\d{1,4})?)\s*%?\s*$/.exec(s)
      return match !== null && Number(match[1]) >= min && Number(match[1]) <= max
    }),
    Config.map((s) => Number(s.replace("%", "").trim())),
    Config.withDefault(fallback)
  )

const login: Config.Config<LoginThrottle.Policy> = Config.all({
  accountFailures: wholeNumber("LOGIN_ACCOUNT_FAILURES", 1, LoginThrottle.DEFAULT_POLICY.accountFailures),
  addressFailures: wholeNumber("LOGIN_ADDRESS_FAILURES", 1, LoginThrottle.DEFAULT_POLICY.addressFailures),
  windowMillis: Config.map(
    wholeNumber("LOGIN_WINDOW_SECONDS", 1, LoginThrottle.DEFAULT_POLICY.windowMillis / 1000),
    (seconds) => seconds * 1000
  )
})

const provider = (prefix: "CHAT" | "IDP", defaultLabel: string): Config.Config<ProviderEnv> =>
  Config.all({
    clientId: Config.string(`${prefix}_CLIENT_ID`).pipe(Config.withDefault("")),
    // Trimmed as the enabling rule reads it: a mounted secret often ends in a newline.
    clientSecret: Config.redacted(`${prefix}_CLIENT_SECRET`).pipe(
      Config.map((secret) => Redacted.make(Redacted.value(secret).trim())),
      Config.withDefault(Redacted.make(""))
    ),
    label: Config.string(`${prefix}_LABEL`).pipe(Config.withDefault(defaultLabel)),
    authorizeUrl: optionalHttpUrl(`${prefix}_AUTHORIZE_URL`),
    tokenUrl: optionalHttpUrl(`${prefix}_TOKEN_URL`),
    userinfoUrl: optionalHttpUrl(`${prefix}_USERINFO_URL`)
  }).pipe(
    Config.mapOrFail(({ authorizeUrl, clientId, clientSecret, label, tokenUrl, userinfoUrl }) => {
      const enabled = Providers.isEnabled({ clientId, clientSecret })
      const urls = [
        ["AUTHORIZE_URL", authorizeUrl],
        ["TOKEN_URL", tokenUrl],
        ["USERINFO_URL", userinfoUrl]
      ] as const
      // An enabled provider must have all three addresses; a disabled one may have none.
      const missing = enabled ? urls.find(([, url]) => Option.isNone(url)) : undefined
      if (missing !== undefined) {
        return Either.left(
          ConfigError.MissingData([`${prefix}_${missing[0]}`], `Required when the ${prefix.toLowerCase()} provider is enabled`)
        )
      }
      return Either.right({
        clientId: clientId.trim(),
        clientSecret,
        label,
        enabled,
        authorizeUrl: Option.getOrElse(authorizeUrl, () => ""),
        tokenUrl: Option.getOrElse(tokenUrl, () => ""),
        userinfoUrl: Option.getOrElse(userinfoUrl, () => "")
      })
    })
  )

/** A whole number of milliseconds, at least `min`. */
const millis = (name: string, fallback: number, min = 1) =>
  Config.string(name).pipe(
    check(`Expected a whole number of milliseconds, at least ${min}`, (v) => /^\d{1,10}$/.test(v) && Number(v) >= min),
    Config.map(Number),
    Config.withDefault(fallback)
  )

const alerts: Config.Config<AlertsConfig> = Config.all({
  token: Config.map(optional("CHAT_BOT_TOKEN"), Option.map((t) => Redacted.make(t.trim()))),
  apiUrl: optionalHttpUrl("CHAT_API_URL"),
  daysAhead: Config.string("ALERT_DAYS_AHEAD").pipe(
    check(
      `Expected a whole number of days from 0 to ${OpenMeteo.FORECAST_REACH}`,
      (v) => /^\d{1,2}$/.test(v) && Number(v) <= OpenMeteo.FORECAST_REACH
    ),
    Config.map(Number),
    Config.withDefault(3)
  ),
  evaluateEveryMs: millis("ALERT_EVALUATE_EVERY_MS", 15 * 60 * 1000, 10),
  retryBaseMs: millis("ALERT_RETRY_BASE_MS", 30_000),
  pollMs: millis("ALERT_POLL_MS", 10_000, 10),
  sendTimeoutMs: millis("ALERT_SEND_TIMEOUT_MS", 10_000, 10)
}).pipe(
  Config.map(({ apiUrl, token, ...rest }) => ({
    ...rest,
    bot: Option.all({ token, apiUrl })
  }))
)

const dataDir = Config.string("DATA_DIR").pipe(Config.withDefault("./.data"))

const database = Config.all({
  url: optional("DATABASE_URL"),
  dataDir,
  // Connections each instance opens to PostgreSQL (or PgBouncer): docs/deploy.md's connection budget.
  poolSize: wholeNumber("DATABASE_POOL_SIZE", 2, Database.POOL_SIZE)
}).pipe(
  Config.mapOrFail(({ dataDir, poolSize, url }) => {
    const target = Database.targetFromUrl(Option.getOrUndefined(url), dataDir, poolSize)
    return target === undefined
      ? Either.left(ConfigError.InvalidData(["DATABASE_URL"], "Expected unset, memory://, postgres://… or postgresql://…"))
      : Either.right(target)
  })
)

const secretOf = (name: string) =>
  Config.mapOrFail(optional(name), (secret) =>
    Option.isNone(secret) || secret.value.length >= 32
      ? Either.right(Option.map(secret, Redacted.make))
      : Either.left(ConfigError.InvalidData([name], "Expected at least 32 characters"))
  )

const authSecret = Config.all({
  secret: secretOf("AUTH_SECRET"),
  previous: secretOf("AUTH_SECRET_PREVIOUS"),
  production: Config.string("NODE_ENV").pipe(
    Config.withDefault(""),
    Config.map((env) => env === "production")
  )
}).pipe(
  Config.mapOrFail(({ previous, production, secret }) =>
    production && Option.isNone(secret)
      ? Either.left(ConfigError.MissingData(["AUTH_SECRET"], "Required when NODE_ENV=production"))
      : Either.right({ secret, previous, production })
  )
)

export const appConfig: Config.Config<AppConfig> = Config.all({
  // 0 asks the OS for a free port (tests); Config.port refuses it.
  port: Config.string("PORT").pipe(
    check("Expected a port number from 0 to 65535", (s) => /^\d{1,5}$/.test(s) && Number(s) <= 65535),
    Config.map(Number),
    Config.withDefault(8080)
  ),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  database,
  auth: authSecret,
  basePath,
  publicOrigin: Config.map(optionalHttpUrl("PUBLIC_ORIGIN"), Option.map((s) => new URL(s).origin)),
  trustedProxyHops: wholeNumber("TRUSTED_PROXY_HOPS", 0, 0),
  coldCellsPerClient: wholeNumber("COLD_CELLS_PER_CLIENT", 1, ColdCells.DEFAULT_PER_CLIENT),
  login,
  providers: Config.all({ chat: provider("CHAT", "Chat"), idp: provider("IDP", "Identity provider") }),
  weather: Config.all({
    archiveUrl: httpUrl("WEATHER_ARCHIVE_URL").pipe(Config.withDefault("https://archive-api.open-meteo.com/v1/archive")),
    forecastUrl: httpUrl("WEATHER_FORECAST_URL").pipe(Config.withDefault("https://api.open-meteo.com/v1/forecast")),
    apiKey: Config.map(optional("WEATHER_API_KEY"), Option.map(Redacted.make)),
    dailyUnits: Config.mapOrFail(optional("WEATHER_DAILY_UNITS"), (units) =>
      Option.isNone(units) ||
      units.value.trim() === "unlimited" ||
      (/^\d{1,12}$/.test(units.value.trim()) && Number(units.value) >= 1)
        ? Either.right(units)
        : Either.left(
            ConfigError.InvalidData(["WEATHER_DAILY_UNITS"], `Expected a whole number of at least 1 or "unlimited", got "${units.value}"`)
          )
    ),
    // A share above 0 of a day, and at least some of the day left to anonymous clients.
    shares: Config.all({
      client: percent("WEATHER_CLIENT_SHARE", 0.1, 100, UpstreamBudget.DEFAULT_SHARES.client),
      signedIn: percent("WEATHER_SIGNED_IN_SHARE", 0, 99, UpstreamBudget.DEFAULT_SHARES.signedIn)
    })
  }).pipe(
    // Unset: the free tier's 10,000 without an API key; with a key, the plan is the operator's
    // to state, so unlimited unless set.
    Config.map(({ dailyUnits, ...weather }) => ({
      ...weather,
      dailyUnits: Option.match(dailyUnits, {
        onNone: () => (Option.isNone(weather.apiKey) ? OpenMeteo.FREE_TIER_DAILY_UNITS : null),
        onSome: (units) => (units.trim() === "unlimited" ? null : Number(units))
      })
    }))
  ),
  geocoder: Config.all({
    url: httpUrl("GEOCODER_URL").pipe(Config.withDefault("https://nominatim.openstreetmap.org/reverse")),
    searchUrl: httpUrl("GEOCODER_SEARCH_URL").pipe(Config.withDefault("https://nominatim.openstreetmap.org/search")),
    userAgent: Config.string("GEOCODER_USER_AGENT").pipe(Config.withDefault(`climate-grade/${VERSION}`))
  }),
  historyStart: Config.string("HISTORY_START").pipe(
    Config.withDefault("1940-01-01"),
    Config.mapOrFail((s) =>
      Option.match(Option.fromNullable(CivilDate.parse(s)), {
        onNone: () => Either.left(ConfigError.InvalidData(["HISTORY_START"], "Expected a date YYYY-MM-DD")),
        onSome: Either.right
      })
    )
  ),
  logFormat: Config.literal("pretty", "json")("LOG_FORMAT").pipe(Config.withDefault("pretty" as const)),
  metrics: Config.all({
    port: Config.mapOrFail(optional("METRICS_PORT"), (port) =>
      Option.isNone(port) || (/^\d{1,5}$/.test(port.value.trim()) && Number(port.value) <= 65535)
        ? Either.right(Option.map(port, Number))
        : Either.left(ConfigError.InvalidData(["METRICS_PORT"], `Expected a port number from 0 to 65535, got "${port.value}"`))
    ),
    host: Config.string("METRICS_HOST").pipe(Config.withDefault("127.0.0.1")),
    token: Config.mapOrFail(optional("METRICS_TOKEN"), (token) =>
      Option.isNone(token) || /^\S{16,}$/.test(token.value.trim())
        ? Either.right(Option.map(token, (t) => Redacted.make(t.trim())))
        : Either.left(ConfigError.InvalidData(["METRICS_TOKEN"], "Expected at least 16 characters, without spaces"))
    ),
    // Gone: it served the metrics to whoever seemed to come from loopback, which a proxy on the
    // same host made everyone. Refused rather than ignored, so no one believes it still applies.
    legacy: Config.mapOrFail(optional("METRICS_PUBLIC"), (flag) =>
      Option.isNone(flag) || flag.value.trim() === "0"
        ? Either.right(undefined)
        : Either.left(
            ConfigError.InvalidData(
              ["METRICS_PUBLIC"],
              "No longer read: serve metrics on METRICS_PORT (a listener of their own, loopback by default) or require METRICS_TOKEN"
            )
          )
    )
  }).pipe(Config.map(({ host, port, token }) => ({ host, port, token }))),
  accessLog: Config.literal("on", "off")("ACCESS_LOG").pipe(
    Config.withDefault("on" as const),
    Config.map((flag) => flag === "on")
  ),
  demoData: Config.literal("on", "off")("DEMO_DATA").pipe(
    Config.withDefault("off" as const),
    Config.map((flag) => flag === "on")
  ),
  instanceId: Config.string("INSTANCE_ID").pipe(
    check("Expected letters, digits and . _ : - only, at most 64", (s) => /^[A-Za-z0-9._:-]{1,64}$/.test(s)),
    Config.withDefault(`${hostname()}:${process.pid}`)
  ),
  shutdownPauseMs: Config.string("SHUTDOWN_PAUSE_MS").pipe(
    check("Expected a whole number of milliseconds from 0 to 60000", (v) => /^\d{1,5}$/.test(v) && Number(v) <= 60_000),
    Config.map(Number),
    Config.withDefault(SHUTDOWN_PAUSE_MS)
  ),
  alerts
}).pipe(
  Config.map(({ auth, ...rest }) => ({
    ...rest,
    authSecret: auth.secret,
    authSecretPrevious: auth.previous,
    production: auth.production
  }))
)

/** One line that names the variable at fault, for the operator. */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  const leaves: Array<string> = []
  const walk = (e: ConfigError.ConfigError): void => {
    switch (e._op) {
      case "And":
      case "Or":
        walk(e.left)
        walk(e.right)
        return
      default:
        leaves.push(`${e.path.join("_") || "configuration"}: ${e.message}`)
    }
  }
  walk(error)
  return `Invalid configuration: ${leaves[0] ?? String(error)}`
}
