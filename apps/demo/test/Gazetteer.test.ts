/** The demo's fake weather: each city its own time zone and a climate like its own. */
import { Cell, CivilDate } from "@climate-grade/core"
import * as FakeOpenMeteo from "@climate-grade/testing/FakeOpenMeteo"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Gazetteer from "../src/Gazetteer.js"

const at = (name: string) => {
  const place = Gazetteer.PLACES.find((p) => p.name === name)!
  return Cell.fromCoordinates(place.lat, place.lon)
}

const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length

describe("the demo's weather", () => {
  it.scoped("answers each city's cell in its own zone, with its offset and today", () =>
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      weather.local = Gazetteer.localOf
      for (const [name, zone] of [
        ["Sydney", "Australia/Sydney"],
        ["Tokyo", "Asia/Tokyo"],
        ["Paris", "Europe/Paris"],
        ["New York", "America/New_York"]
      ] as const) {
        const cell = at(name)
        const answer = yield* Effect.promise(() =>
          fetch(`${weather.forecastUrl}?latitude=${cell.lat}&longitude=${cell.lon}&past_days=0&forecast_days=1`).then((r) => r.json())
        )
        expect(answer.timezone, name).toBe(zone)
        expect(answer.daily.time[0], name).toBe(CivilDate.format(CivilDate.todayIn(weather.now(), zone)))
        // "GMT+11:00" → 39600 s.
        const offset = new Intl.DateTimeFormat("en", { timeZone: zone, timeZoneName: "longOffset" }).formatToParts(weather.now()).find((p) => p.type === "timeZoneName")!.value
        const [, sign = "+", h = "0", m = "0"] = /GMT([+-])(\d\d):(\d\d)/.exec(offset) ?? []
        expect(answer.utc_offset_seconds, name).toBe((sign === "-" ? -1 : 1) * (Number(h) * 3600 + Number(m) * 60))
      }
    })
  )

  it("has plausible climates: Sydney's summer in January, Mumbai warm all year, Reykjavík cool", () => {
    const days = (year: number, month: number) => Array.from({ length: 28 }, (_, i) => CivilDate.fromYmd({ year, month, day: i + 1 }))
    const highs = (name: string, month: number) => {
      const place = Gazetteer.PLACES.find((p) => p.name === name)!
      const local = Gazetteer.localOf(place.lat, place.lon)
      return mean(days(2020, month).map((d) => FakeOpenMeteo.weather(place.lat, place.lon, d, local.climate).tmax))
    }
    expect(highs("Sydney", 1)).toBeGreaterThan(highs("Sydney", 7) + 4)
    expect(highs("Berlin", 7)).toBeGreaterThan(highs("Berlin", 1) + 10)
    expect(highs("Mumbai", 1)).toBeGreaterThan(25)
    expect(highs("Reykjavík", 7)).toBeLessThan(18)
    // Far from every city: the longitude's hour.
    expect(Gazetteer.localOf(0, 100).timezone).toBe("Etc/GMT-7")
  })
})
