/**
 * A fake Open-Meteo on loopback: `/v1/archive` and `/v1/forecast` answer in the real shape
 * (`daily_units`, `timezone_abbreviation`, nulls at the archive's tail where ERA5 lags), with
 * deterministic synthetic weather per coordinate, error bodies, and queued faults.
 */
import { CivilDate } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type Fault, type Logged, play, record, send, serve } from "./FakeUpstream.js"

export interface FakeOpenMeteo {
  readonly origin: string
  readonly archiveUrl: string
  readonly forecastUrl: string
  readonly requests: { readonly archive: Array<Logged>; readonly forecast: Array<Logged> }
  readonly faults: { archive: Array<Fault>; forecast: Array<Fault> }
  /** Epoch ms that the fake takes as now; the archive's last `lag` days before today are null. */
  now: () => number
  lag: number
  timezone: string
  /** Cells (`"lat,lon"` as sent) whose archive holds only nulls. */
  readonly empty: Set<string>
  /** Added to every answer, to make concurrent requests overlap. */
  delayMs: number
  /** Replaces the forecast's values for a coordinate (as sent) and day where it answers something. */
  forecastOverride: ((lat: number, lon: number, day: number) => Partial<ReturnType<typeof weather>> | undefined) | undefined
  /**
   * A coordinate's own time zone and climate (the demo's cities), else `timezone` and the default
   * climate: its days, its "today" and the zone named in answers are then that place's.
   */
  local: ((lat: number, lon: number) => Local | undefined) | undefined
}

/** A place's climate for the synthetic weather: means in °C, the share of wet days and how wet they are. */
export interface Climate {
  /** The mean daily high over the year, and half its yearly swing (warmest month minus the mean). */
  readonly meanHigh: number
  readonly swing: number
  /** The mean difference between the day's high and low. */
  readonly dailyRange: number
  /** The share of days with precipitation (0–1), and a wet day's typical amount (mm). */
  readonly wetShare: number
  readonly wetAmount: number
}

export interface Local {
  readonly timezone: string
  readonly climate: Climate
}

/** The default: a mid-latitude climate, the same for every place (the tests' weather). */
export const DEFAULT_CLIMATE: Climate = { meanHigh: 14, swing: 10, dailyRange: 9, wetShare: 0.35, wetAmount: 3 }

const hash = (a: number, b: number, c: number) => {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b ^ 0xc2b2ae35, 0x27d4eb2f) ^ Math.imul(c, 0x165667b1)
  h ^= h >>> 15
  h = Math.imul(h, 0x2c1b3c6d)
  h ^= h >>> 12
  return (h >>> 0) / 2 ** 32
}

/** Plausible seasonal weather, one decimal, the same for the same place and day (seasons turned round south of the equator). */
export const weather = (lat: number, lon: number, day: number, climate?: Climate) => {
  const a = Math.round(lat * 100)
  const b = Math.round(lon * 100)
  const season = Math.sin((2 * Math.PI * (day - 110)) / 365.25) * (lat < 0 ? -1 : 1)
  if (climate === undefined) {
    const tmax = Math.round((14 + 10 * season + 8 * (hash(a, b, day) - 0.5)) * 10) / 10
    const tmin = Math.round((tmax - 6 - 6 * hash(b, a, day)) * 10) / 10
    const wet = hash(a + 1, b, day)
    const precip = wet < 0.65 ? 0 : Math.round(30 * (wet - 0.65) ** 2 * 100) / 10
    return { tmax, tmin, precip }
  }
  const tmax = Math.round((climate.meanHigh + climate.swing * season + 8 * (hash(a, b, day) - 0.5)) * 10) / 10
  const tmin = Math.round((tmax - climate.dailyRange * (0.6 + 0.8 * hash(b, a, day))) * 10) / 10
  const wet = hash(a + 1, b, day)
  const dryShare = 1 - climate.wetShare
  // Wet days' amounts spread from a trace to several times the typical one.
  const precip = wet < dryShare ? 0 : Math.round(climate.wetAmount * 3 * ((wet - dryShare) / climate.wetShare) ** 2 * 10) / 10
  return { tmax, tmin, precip }
}

/** A zone's offset from UTC at an instant (seconds) and its short name there, as Open-Meteo gives them. */
const zoneFacts = (timezone: string, at: number) => {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: timezone, timeZoneName: "short", hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" }).formatToParts(at)
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0)
  const local = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"))
  return { offset: Math.round((local - Math.floor(at / 1000) * 1000) / 1000), abbreviation: parts.find((p) => p.type === "timeZoneName")?.value ?? "GMT" }
}

const body = (
  lat: number,
  lon: number,
  timezone: string,
  from: number,
  to: number,
  value: (day: number) => ReturnType<typeof weather> | null,
  facts?: { readonly offset: number; readonly abbreviation: string }
) => {
  const time: Array<string> = []
  const tmax: Array<number | null> = []
  const tmin: Array<number | null> = []
  const precip: Array<number | null> = []
  for (let d = from; d <= to; d++) {
    const v = value(d)
    time.push(CivilDate.format(d))
    tmax.push(v?.tmax ?? null)
    tmin.push(v?.tmin ?? null)
    precip.push(v?.precip ?? null)
  }
  return {
    latitude: lat,
    longitude: lon,
    generationtime_ms: 1.2,
    utc_offset_seconds: facts?.offset ?? 0,
    timezone,
    timezone_abbreviation: facts?.abbreviation ?? (timezone === "GMT" ? "GMT" : "CET"),
    elevation: 38,
    daily_units: { time: "iso8601", temperature_2m_max: "°C", temperature_2m_min: "°C", precipitation_sum: "mm" },
    daily: { time, temperature_2m_max: tmax, temperature_2m_min: tmin, precipitation_sum: precip }
  }
}

export const make = Effect.gen(function* () {
  const state = {
    requests: { archive: [] as Array<Logged>, forecast: [] as Array<Logged> },
    faults: { archive: [] as Array<Fault>, forecast: [] as Array<Fault> },
    now: () => Date.now(),
    lag: 5,
    timezone: "Europe/Berlin",
    empty: new Set<string>(),
    delayMs: 0,
    forecastOverride: undefined as FakeOpenMeteo["forecastOverride"],
    local: undefined as FakeOpenMeteo["local"]
  }
  const { origin } = yield* serve((req, res, url) => {
    const endpoint = url.pathname === "/v1/archive" ? "archive" : url.pathname === "/v1/forecast" ? "forecast" : undefined
    if (endpoint === undefined) return send(res, 404, { error: true, reason: "Not found" })
    const { query } = record(state.requests[endpoint], req, res, url)
    const answer = () => {
      if (play(state.faults[endpoint].shift(), res)) return
      const lat = Number(query.latitude)
      const lon = Number(query.longitude)
      if (!Number.isFinite(lat) || !Number.isFinite(lon)) {
        return send(res, 400, { error: true, reason: "Parameter 'latitude' and 'longitude' must be set" })
      }
      const local = state.local?.(lat, lon)
      const timezone = local?.timezone ?? state.timezone
      const facts = local === undefined ? undefined : zoneFacts(local.timezone, state.now())
      const weatherAt = (d: number) => weather(lat, lon, d, local?.climate)
      // An unknown zone is a fault the client must catch; the fake's own dates stay in UTC then.
      const today = CivilDate.todayIn(state.now(), CivilDate.isTimeZone(timezone) ? timezone : "UTC")
      if (endpoint === "archive") {
        const from = Option.fromNullable(CivilDate.parse(query.start_date ?? ""))
        const to = Option.fromNullable(CivilDate.parse(query.end_date ?? ""))
        if (Option.isNone(from) || Option.isNone(to) || from.value > to.value) {
          return send(res, 400, { error: true, reason: "Parameter 'start_date' and 'end_date' must be valid dates" })
        }
        const empty = state.empty.has(`${query.latitude},${query.longitude}`)
        return send(
          res,
          200,
          body(lat, lon, timezone, from.value, to.value, (d) => (empty || d > today - state.lag ? null : weatherAt(d)), facts)
        )
      }
      const past = Number(query.past_days ?? 0)
      const days = Number(query.forecast_days ?? 7)
      return send(
        res,
        200,
        body(
          lat,
          lon,
          timezone,
          today - past,
          today + days - 1,
          (d) => ({
            ...weatherAt(d),
            ...state.forecastOverride?.(lat, lon, d)
          }),
          facts
        )
      )
    }
    if (state.delayMs > 0) setTimeout(answer, state.delayMs)
    else answer()
  })
  return Object.assign(state, { origin, archiveUrl: `${origin}/v1/archive`, forecastUrl: `${origin}/v1/forecast` }) as FakeOpenMeteo
})
