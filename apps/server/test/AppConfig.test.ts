/**
 * The configuration (docs/configuration.md) read from a map, as `main` reads it from the environment:
 * what an empty value means, and which variable a refusal names.
 */
import { describe, expect, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type AppConfig, appConfig, describeConfigError } from "../src/AppConfig.js"

const read = (env: Record<string, string>) =>
  Effect.either(Effect.withConfigProvider(appConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))

const valid = (env: Record<string, string>) =>
  Effect.flatMap(read(env), (result): Effect.Effect<AppConfig> => {
    if (Either.isLeft(result)) throw new Error(describeConfigError(result.left))
    return Effect.succeed(result.right)
  })

const refusal = (env: Record<string, string>) =>
  Effect.map(read(env), (result) => (Either.isLeft(result) ? describeConfigError(result.left) : "accepted"))

describe("AppConfig", () => {
  it.effect("the defaults docs/configuration.md lists", () =>
    Effect.gen(function* () {
      const config = yield* valid({})
      expect(config).toMatchObject({ port: 8080, host: "127.0.0.1", basePath: "", logFormat: "pretty", production: false })
      expect(config.database).toEqual({ _tag: "Embedded", dataDir: "./.data" })
      expect(config.providers.chat).toMatchObject({ label: "Chat", enabled: false })
      expect(config.providers.idp).toMatchObject({ label: "Identity provider", enabled: false })
      expect(config.weather).toMatchObject({
        archiveUrl: "https://archive-api.open-meteo.com/v1/archive",
        forecastUrl: "https://api.open-meteo.com/v1/forecast",
        apiKey: Option.none()
      })
      expect(config.geocoder.url).toBe("https://nominatim.openstreetmap.org/reverse")
      expect(config.geocoder.userAgent).toMatch(/^climate-grade\//)
    }))

  it.effect("an optional setting left empty (`FOO=` in an env file) is unset, not a refusal", () =>
    Effect.gen(function* () {
      const config = yield* valid({
        CHAT_AUTHORIZE_URL: "",
        CHAT_TOKEN_URL: " ",
        IDP_USERINFO_URL: "",
        PUBLIC_ORIGIN: "",
        DATABASE_URL: "",
        AUTH_SECRET: "",
        WEATHER_API_KEY: " "
      })
      expect(config.publicOrigin).toEqual(Option.none())
      expect(config.authSecret).toEqual(Option.none())
      expect(config.weather.apiKey).toEqual(Option.none())
      expect(config.database._tag).toBe("Embedded")
      expect(config.providers.chat.enabled).toBe(false)
      // Empty is still unset where unset is refused.
      expect(yield* refusal({ NODE_ENV: "production", AUTH_SECRET: "" })).toMatch(/^Invalid configuration: AUTH_SECRET: /)
      expect(yield* refusal({ AUTH_SECRET_PREVIOUS: "too short" })).toMatch(/^Invalid configuration: AUTH_SECRET_PREVIOUS: /)
      expect((yield* valid({ AUTH_SECRET_PREVIOUS: "" })).authSecretPrevious).toEqual(Option.none())
      expect(yield* refusal({ CHAT_CLIENT_ID: "id", CHAT_CLIENT_SECRET: "s", CHAT_AUTHORIZE_URL: "" })).toMatch(
        /^Invalid configuration: CHAT_AUTHORIZE_URL: /
      )
    }))

  it.effect("a bad optional URL is refused, naming its variable", () =>
    Effect.gen(function* () {
      expect(yield* refusal({ PUBLIC_ORIGIN: "grades.example.org" })).toMatch(/^Invalid configuration: PUBLIC_ORIGIN: /)
      expect(yield* refusal({ IDP_TOKEN_URL: "ftp://x" })).toMatch(/^Invalid configuration: IDP_TOKEN_URL: /)
      expect((yield* valid({ PUBLIC_ORIGIN: "https://grades.example.org/ignored/path" })).publicOrigin).toEqual(
        Option.some("https://grades.example.org")
      )
    }))

  it.effect("the client secret is trimmed as the enabling rule reads it", () =>
    Effect.gen(function* () {
      const config = yield* valid({
        CHAT_CLIENT_ID: " id ",
        CHAT_CLIENT_SECRET: "secret\n",
        CHAT_AUTHORIZE_URL: "http://a",
        CHAT_TOKEN_URL: "http://b",
        CHAT_USERINFO_URL: "http://c",
        IDP_CLIENT_ID: "id",
        IDP_CLIENT_SECRET: "  "
      })
      expect(config.providers.chat.enabled).toBe(true)
      expect(config.providers.chat.clientId).toBe("id")
      expect(Redacted.value(config.providers.chat.clientSecret)).toBe("secret")
      expect(config.providers.idp.enabled).toBe(false)
    }))

  it.effect("BASE_PATH must be a path on this site: one line naming it for anything else", () =>
    Effect.gen(function* () {
      // `//evil.example` turned every account redirect into a redirect to another host.
      for (const bad of ["//evil.example", "/a/", "a", "/a?b", "/a/../b", "/./a", "/a//b", "/a#b", "/a b", "/", "/%zz"]) {
        const line = yield* refusal({ BASE_PATH: bad })
        expect([bad, line]).toEqual([bad, expect.stringMatching(/^Invalid configuration: BASE_PATH: /)])
        expect(line).not.toContain("\n")
      }
      for (const good of ["", "/grades", "/a/b-c_d.e~f", "/caf%C3%A9", "/v1.2"]) {
        expect((yield* valid({ BASE_PATH: good })).basePath).toBe(good)
      }
    }))

  it.effect("metrics: no listener and no token by default; METRICS_PORT, METRICS_HOST, METRICS_TOKEN of 16 characters or more; METRICS_PUBLIC refused", () =>
    Effect.gen(function* () {
      expect((yield* valid({})).metrics).toEqual({ port: Option.none(), host: "127.0.0.1", token: Option.none() })
      const set = (yield* valid({ METRICS_PORT: "9464", METRICS_HOST: "::1", METRICS_TOKEN: " 0123456789abcdef\n" })).metrics
      expect([set.port, set.host, Option.map(set.token, Redacted.value)]).toEqual([Option.some(9464), "::1", Option.some("0123456789abcdef")])
      expect((yield* valid({ METRICS_PORT: "0" })).metrics.port).toEqual(Option.some(0))
      expect(yield* refusal({ METRICS_PORT: "70000" })).toMatch(/^Invalid configuration: METRICS_PORT: /)
      expect(yield* refusal({ METRICS_TOKEN: "short" })).toMatch(/^Invalid configuration: METRICS_TOKEN: Expected at least 16 characters/)
      expect((yield* valid({ METRICS_PUBLIC: "0" })).metrics.token).toEqual(Option.none())
      expect(yield* refusal({ METRICS_PUBLIC: "1" })).toMatch(/^Invalid configuration: METRICS_PUBLIC: No longer read: serve metrics on METRICS_PORT/)
    }))

  it.effect("SHUTDOWN_PAUSE_MS is whole milliseconds from 0 to 60000, default 2000", () =>
    Effect.gen(function* () {
      expect((yield* valid({})).shutdownPauseMs).toBe(2_000)
      expect((yield* valid({ SHUTDOWN_PAUSE_MS: "0" })).shutdownPauseMs).toBe(0)
      expect((yield* valid({ SHUTDOWN_PAUSE_MS: "60000" })).shutdownPauseMs).toBe(60_000)
      for (const bad of ["60001", "-1", "1.5", "2s", ""]) {
        expect([bad, yield* refusal({ SHUTDOWN_PAUSE_MS: bad })]).toEqual([bad, expect.stringMatching(/^Invalid configuration: SHUTDOWN_PAUSE_MS: /)])
      }
    }))
})
