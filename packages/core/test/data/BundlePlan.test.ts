import { describe, expect, it } from "@effect/vitest"
import { Cell, DataViews, FreshnessToken } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Option from "effect/Option"

const cell = Cell.fromCoordinates(52.52, 13.4)
const info = { lat: 52.5, lon: 13.4, label: "Berlin", timezone: "Europe/Berlin" }

const planArb = (view: FreshnessToken.View) =>
  FastCheck.record({
    token: FastCheck.hexaString({ minLength: 32, maxLength: 32 }),
    storable: FastCheck.boolean(),
    validUntil: FastCheck.oneof(FastCheck.constant(0), FastCheck.nat())
  }).map(
    ({ token, storable, validUntil }): DataViews.Plan<{ readonly view: string }> => ({
      cell: info,
      key: { cell: cell.key, view, params: "p" },
      token,
      storable,
      validUntil,
      build: Effect.succeed({ view })
    })
  )

describe("DataViews.bundlePlan", () => {
  it("combines its slices' tokens in order, is storable only when every slice is, holds until the first slice may change, and assembles from values", () => {
    let prefetches = 0
    FastCheck.assert(
      FastCheck.property(
        FastCheck.boolean(),
        planArb("grade"),
        planArb("forecast"),
        planArb("calendar"),
        planArb("day"),
        (prefetch, grade, forecast, calendar, day) => {
          if (prefetch) prefetches++
          const slices = { grade: prefetch ? null : grade, forecast: prefetch ? null : forecast, calendar, day }
          // The slices' payload types do not matter to the plan: only their tokens, flags and data.
          const plan = DataViews.bundlePlan(cell, prefetch, slices as unknown as DataViews.BundlePlan["slices"])
          const order = [slices.grade, slices.forecast, calendar, day]
          expect(plan.token).toBe(FreshnessToken.combine(order.map((p) => p?.token ?? null)))
          expect(plan).not.toHaveProperty("etag")
          expect(plan.key).toEqual({ cell: cell.key, view: "bundle", params: prefetch ? "prefetch" : "full" })
          expect(plan.storable).toBe(order.every((p) => p === null || p.storable))
          expect(plan.validUntil).toBe(Math.min(...order.map((p) => (p === null ? Infinity : p.validUntil))))
          const data = { grade: { view: "grade" }, forecast: { view: "forecast" }, calendar: { view: "calendar" }, day: { view: "day" } }
          const assembled = plan.assemble({
            grade: prefetch ? null : data.grade,
            forecast: prefetch ? null : data.forecast,
            calendar: data.calendar,
            day: data.day
          } as unknown as Parameters<DataViews.BundlePlan["assemble"]>[0])
          // The bytes clients have always received: keys in this order, a slice is {etag, data} or
          // null, its etag the weak ETag of the slice's token (what the slice's endpoint sends).
          const slice = (p: { token: string } | null, d: unknown) =>
            p === null ? "null" : `{"etag":${JSON.stringify(`W/"${p.token}"`)},"data":${JSON.stringify(d)}}`
          expect(JSON.stringify(assembled)).toBe(
            `{"v":${FreshnessToken.PAYLOAD_VER.bundle},"cell":${JSON.stringify(info)},"grade":${slice(slices.grade, data.grade)},"forecast":${slice(slices.forecast, data.forecast)},"calendar":${slice(calendar, data.calendar)},"day":${slice(day, data.day)}}`
          )
        }
      ),
      { numRuns: 200 }
    )
    expect(prefetches).toBeGreaterThan(20)
    expect(prefetches).toBeLessThan(180)
  })

  it("carries the last 24 months of the record", () => {
    expect(DataViews.BUNDLE_CALENDAR).toEqual({ start: Option.none(), end: Option.none(), months: Option.some(24) })
  })
})
