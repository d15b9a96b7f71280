/**
 * The configuration (the settings of docs/configuration.md) that points a service under test at the fakes on
 * loopback, written once for every test, bench and preview that starts one.
 */
import type { FakeNominatim } from "./FakeNominatim.js"
import type { FakeOpenMeteo } from "./FakeOpenMeteo.js"

/**
 * The weather source's two endpoints and the geocoder's two, with a user agent as Nominatim asks.
 * The fakes cost nothing, so the daily budget is unlimited (a test of the budget sets its own):
 * the free tier's default would give one client two or three new places a day.
 */
export const upstreams = (weather: FakeOpenMeteo, geocoder: FakeNominatim): Record<string, string> => ({
  WEATHER_ARCHIVE_URL: weather.archiveUrl,
  WEATHER_FORECAST_URL: weather.forecastUrl,
  WEATHER_DAILY_UNITS: "unlimited",
  GEOCODER_URL: geocoder.reverseUrl,
  GEOCODER_SEARCH_URL: geocoder.searchUrl,
  GEOCODER_USER_AGENT: "climate-grade/test"
})

/** What a fake OAuth provider (FakeChatProvider, OidcIdp) registers the service with. */
export interface ProviderClient {
  readonly clientId: string
  readonly clientSecret: string
  readonly authorizeUrl: string
  readonly tokenUrl: string
  readonly userinfoUrl: string
}

/** A provider's five settings, under its prefix (`CHAT_…` or `IDP_…`). */
export const provider = (prefix: "CHAT" | "IDP", client: ProviderClient): Record<string, string> => ({
  [`${prefix}_CLIENT_ID`]: client.clientId,
  [`${prefix}_CLIENT_SECRET`]: client.clientSecret,
  [`${prefix}_AUTHORIZE_URL`]: client.authorizeUrl,
  [`${prefix}_TOKEN_URL`]: client.tokenUrl,
  [`${prefix}_USERINFO_URL`]: client.userinfoUrl
})
