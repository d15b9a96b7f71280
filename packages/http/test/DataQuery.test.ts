import { describe, expect, it } from "@effect/vitest"
import { Api, DataQuery } from "@climate-grade/http"
import { OpenApi } from "@effect/platform"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

const detail = <A>(effect: Effect.Effect<A, { readonly detail: string }>) =>
  Either.match(Effect.runSync(Effect.either(effect)), { onLeft: (e) => e.detail, onRight: () => "ok" })

/** A route's query decoded as the HttpApi decodes it: the value, or the first refusal's words. */
const decode =
  <F extends Schema.Struct.Fields>(fields: F) =>
  (query: Record<string, string | Array<string>>) =>
    Either.mapLeft(
      Schema.decodeUnknownEither(Schema.Struct(fields) as unknown as Schema.Schema<Schema.Struct.Type<F>, unknown>)(query),
      (error) => ParseResult.ArrayFormatter.formatErrorSync(error)[0]!.message
    )

describe("DataQuery", () => {
  it("snaps lat and lon to the 0.25° cell", () => {
    const cell = Effect.runSync(DataQuery.cell({ lat: "47.61", lon: "-122.33" }))
    expect(cell).toEqual({ lat: 47.5, lon: -122.25, key: "47.50,-122.25" })
    expect(Effect.runSync(DataQuery.cell({ lat: "-0.1", lon: "0.1" })).key).toBe("0.00,0.00")
    expect(Effect.runSync(DataQuery.cell({ lat: "90", lon: "-180" })).key).toBe("90.00,-180.00")
  })

  it("every bad coordinate is a 400 whose detail names the parameter", () => {
    const cases: ReadonlyArray<[Record<string, string | Array<string>>, string]> = [
      [{ lon: "1" }, "Query parameter 'lat' is required."],
      [{ lat: "1" }, "Query parameter 'lon' is required."],
      [{}, "Query parameter 'lat' is required."],
      [{ lat: "", lon: "1" }, "Query parameter 'lat' is required."],
      [{ lat: "abc", lon: "1" }, "Query parameter 'lat' must be a number, got 'abc'."],
      [{ lat: "1", lon: "0x10" }, "Query parameter 'lon' must be a number, got '0x10'."],
      [{ lat: "Infinity", lon: "1" }, "Query parameter 'lat' must be a number, got 'Infinity'."],
      [{ lat: "NaN", lon: "1" }, "Query parameter 'lat' must be a number, got 'NaN'."],
      [{ lat: "90.01", lon: "1" }, "Query parameter 'lat' must be between -90 and 90, got '90.01'."],
      [{ lat: "1", lon: "-180.5" }, "Query parameter 'lon' must be between -180 and 180, got '-180.5'."],
      [{ lat: "1e3", lon: "1" }, "Query parameter 'lat' must be between -90 and 90, got '1e3'."],
      [{ lat: ["1", "2"], lon: "1" }, "Query parameter 'lat' is given more than once."]
    ]
    for (const [query, message] of cases) {
      expect(detail(DataQuery.cell(query))).toBe(message)
      expect(decode(DataQuery.Where)(query)).toEqual(Either.left(message))
    }
    expect(decode(DataQuery.Where)({ lat: ["47.5"], lon: "8" })).toEqual(Either.right({ lat: 47.5, lon: 8 }))
  })

  it("dates are strict calendar dates, decoded to the day they name", () => {
    const day = decode({ date: DataQuery.date("date", "") })
    expect(day({ date: "2024-02-29" })).toEqual(Either.right({ date: 19782 }))
    expect(day({})).toEqual(Either.right({}))
    for (const bad of ["2024-02-30", "2023-02-29", "2024-1-5", "2024-01-05T00:00:00Z", "20240105", "", "2024-13-01"]) {
      expect(decode({ start: DataQuery.date("start", "") })({ start: bad })).toEqual(
        Either.left(`Query parameter 'start' must be a calendar date YYYY-MM-DD, got '${bad}'.`)
      )
    }
  })

  it("months, prefetch and units", () => {
    const months = decode({ months: DataQuery.wholeNumber("months", "") })
    expect(months({ months: "24" })).toEqual(Either.right({ months: 24 }))
    expect(months({ months: "0" })).toEqual(Either.right({ months: 0 }))
    expect(months({ months: "99999999999999999999" })).toEqual(Either.right({ months: 1e20 }))
    for (const bad of ["-1", "1.5", "abc", "", "+5", "1e3"]) {
      expect(months({ months: bad })).toEqual(Either.left(`Query parameter 'months' must be a whole number (0 or more), got '${bad}'.`))
    }
    const prefetch = decode({ prefetch: DataQuery.prefetch })
    expect(prefetch({})).toEqual(Either.right({}))
    expect(prefetch({ prefetch: "1" })).toEqual(Either.right({ prefetch: true }))
    expect(prefetch({ prefetch: "0" })).toEqual(Either.right({ prefetch: false }))
    expect(prefetch({ prefetch: "yes" })).toEqual(Either.left("Query parameter 'prefetch' must be 1 when given, got 'yes'."))
    const units = decode({ units: DataQuery.units })
    expect(units({ units: "imperial" })).toEqual(Either.right({ units: "imperial" }))
    expect(units({ units: "kelvin" })).toEqual(Either.left("Query parameter 'units' must be metric or imperial when given, got 'kelvin'."))
  })

  it("the OpenAPI document gives each parameter its real type", () => {
    const doc = OpenApi.fromApi(Api) as unknown as {
      paths: Record<string, { get: { parameters: Array<{ name: string; required: boolean; schema: Record<string, unknown> }> } }>
    }
    const params = (path: string) => Object.fromEntries(doc.paths[path]!.get.parameters.map((p) => [p.name, p]))
    for (const path of ["/api/v2/grade", "/api/v2/forecast", "/api/v2/calendar", "/api/v2/day", "/api/v2/trend", "/api/v2/cell", "/api/v2/card.png"]) {
      const { lat, lon } = params(path)
      expect([path, lat!.required, lat!.schema]).toEqual([path, true, expect.objectContaining({ type: "number", minimum: -90, maximum: 90 })])
      expect([path, lon!.required, lon!.schema]).toEqual([path, true, expect.objectContaining({ type: "number", minimum: -180, maximum: 180 })])
    }
    const calendar = params("/api/v2/calendar")
    expect(calendar.start!.schema).toMatchObject({ type: "string", format: "date" })
    expect(calendar.months!.schema).toMatchObject({ type: "integer", minimum: 0 })
    expect(calendar.months!.required).toBe(false)
    expect(params("/api/v2/day").date!.schema).toMatchObject({ type: "string", format: "date" })
    expect(params("/api/v2/cell").prefetch!.schema).toMatchObject({ type: "string", enum: ["0", "1"] })
    expect(params("/api/v2/card.png").units!.schema).toMatchObject({ type: "string", enum: ["metric", "imperial"] })
  })
})
