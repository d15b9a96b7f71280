/**
 * The coordinate rule (latitude −90..90, longitude −180..180) and the 0.25° cell a point snaps
 * to (`round(x * 4) / 4`), without IO.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cell } from "@climate-grade/core"
import * as fc from "effect/FastCheck"

const axes = ["lat", "lon"] as const

describe("Cell", () => {
  it.prop("a finite value is in range exactly when its magnitude is within the axis's limit", [fc.constantFrom(...axes), fc.double({ noNaN: true, noDefaultInfinity: true })], ([axis, value]) => {
    expect(Cell.inRange(axis, value)).toBe(Math.abs(value) <= Cell.LIMIT[axis])
  })

  it("takes the ends of each range and refuses what is past them, NaN and the infinities", () => {
    for (const axis of axes) {
      const limit = Cell.LIMIT[axis]
      expect([limit, -limit, 0].map((v) => Cell.inRange(axis, v))).toEqual([true, true, true])
      const refused = [limit + 1e-9, -limit - 1e-9, Number.NaN, Infinity, -Infinity]
      expect(refused.map((v) => Cell.inRange(axis, v))).toEqual(refused.map(() => false))
    }
    expect(Cell.rangeText("lat")).toBe("between -90 and 90")
    expect(Cell.rangeText("lon")).toBe("between -180 and 180")
  })

  it.prop(
    "every point in range snaps to a cell centre in range, within 0.125° of it, with the centre's own key",
    [fc.double({ min: -90, max: 90, noNaN: true }), fc.double({ min: -180, max: 180, noNaN: true })],
    ([lat, lon]) => {
      const cell = Cell.fromCoordinates(lat, lon)
      expect(Cell.inRange("lat", cell.lat) && Cell.inRange("lon", cell.lon)).toBe(true)
      expect(Math.abs(cell.lat - lat)).toBeLessThanOrEqual(0.125)
      expect(Math.abs(cell.lon - lon)).toBeLessThanOrEqual(0.125)
      expect(Cell.fromCoordinates(cell.lat, cell.lon)).toEqual(cell)
      expect(cell.key).toMatch(/^-?\d{1,2}\.\d\d,-?\d{1,3}\.\d\d$/)
      expect(cell.key.startsWith("-0.00") || cell.key.includes(",-0.00")).toBe(false)
    }
  )
})
