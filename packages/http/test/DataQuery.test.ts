import { describe, expect, it } from "@effect/vitest"
import { DataQuery } from "@climate-grade/http"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"

const detail = <A>(effect: Effect.Effect<A, { readonly detail: string }>) =>
  Either.match(Effect.runSync(Effect.either(effect)), { onLeft: (e) => e.detail, onRight: () => "ok" })

describe("DataQuery", () => {
  it("snaps lat and lon to the 0.25° cell", () => {
    const cell = Effect.runSync(DataQuery.cell({ lat: "47.61", lon: "-122.33" }))
    expect(cell).toEqual({ lat: 47.5, lon: -122.25, key: "47.50,-122.25" })
    expect(Effect.runSync(DataQuery.cell({ lat: "-0.1", lon: "0.1" })).key).toBe("0.00,0.00")
    expect(Effect.runSync(DataQuery.cell({ lat: "90", lon: "-180" })).key).toBe("90.00,-180.00")
  })

  it("every bad coordinate is a 400 whose detail names the parameter", () => {
    const cases: ReadonlyArray<[Record<string, string | Array<string>>, RegExp]> = [
      [{ lon: "1" }, /'lat' is required/],
      [{ lat: "1" }, /'lon' is required/],
      [{ lat: "", lon: "1" }, /'lat' is required/],
      [{ lat: "abc", lon: "1" }, /'lat' must be a number/],
      [{ lat: "1", lon: "0x10" }, /'lon' must be a number/],
      [{ lat: "Infinity", lon: "1" }, /'lat' must be a number/],
      [{ lat: "NaN", lon: "1" }, /'lat' must be a number/],
      [{ lat: "90.01", lon: "1" }, /'lat' must be between -90 and 90/],
      [{ lat: "1", lon: "-180.5" }, /'lon' must be between -180 and 180/],
      [{ lat: "1e3", lon: "1" }, /'lat' must be between/],
      [{ lat: ["1", "2"], lon: "1" }, /'lat' is given more than once/]
    ]
    for (const [query, message] of cases) expect(detail(DataQuery.cell(query))).toMatch(message)
  })

  it("dates are strict calendar dates", () => {
    expect(Effect.runSync(DataQuery.date({ date: "2024-02-29" }, "date"))).toEqual(Option.some(19782))
    expect(Effect.runSync(DataQuery.date({}, "date"))).toEqual(Option.none())
    for (const bad of ["2024-02-30", "2023-02-29", "2024-1-5", "2024-01-05T00:00:00Z", "20240105", "", "2024-13-01"]) {
      expect(detail(DataQuery.date({ start: bad }, "start"))).toMatch(/'start' must be a calendar date YYYY-MM-DD/)
    }
  })

  it("months and prefetch", () => {
    expect(Effect.runSync(DataQuery.wholeNumber({ months: "24" }, "months"))).toEqual(Option.some(24))
    expect(Effect.runSync(DataQuery.wholeNumber({ months: "0" }, "months"))).toEqual(Option.some(0))
    expect(Effect.runSync(DataQuery.wholeNumber({ months: "99999999999999999999" }, "months"))).toEqual(Option.some(1e20))
    for (const bad of ["-1", "1.5", "abc", "", "+5", "1e3"]) {
      expect(detail(DataQuery.wholeNumber({ months: bad }, "months"))).toMatch(/'months' must be a whole number/)
    }
    expect(Effect.runSync(DataQuery.prefetch({}))).toBe(false)
    expect(Effect.runSync(DataQuery.prefetch({ prefetch: "1" }))).toBe(true)
    expect(detail(DataQuery.prefetch({ prefetch: "yes" }))).toMatch(/'prefetch' must be 1/)
  })
})
