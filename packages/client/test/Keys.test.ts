/** The client's pure rules: keys and neighbour cells, property-style, no IO. */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { bundleKey, cellOf, neighbours, prefetchPath, sliceKeys, viewKey } from "../src/Keys.js"

const lat = FastCheck.double({ min: -90, max: 90, noNaN: true })
const lon = FastCheck.double({ min: -180, max: 180, noNaN: true })

describe("keys", () => {
  it("a view's key is its path, lat/lon snapped to the cell, parameters sorted", () => {
    expect(viewKey("calendar", 47.61, -122.33, { months: "24", end: "2024-05-01" })).toBe(
      "/calendar?end=2024-05-01&lat=47.50&lon=-122.25&months=24"
    )
    expect(viewKey("grade", -0.1, 0.1)).toBe("/grade?lat=0.00&lon=0.00")
    expect(viewKey("day", 1, 2, { date: "2024-01-05", lat: "9", lon: "9" })).toBe("/day?date=2024-01-05&lat=1.00&lon=2.00")
  })

  it.prop("every point of one cell shares its keys; the order of parameters never matters", [lat, lon], ([a, b]) => {
    const cell = cellOf(a, b)
    expect(viewKey("grade", a, b)).toBe(viewKey("grade", cell.lat, cell.lon))
    expect(viewKey("calendar", a, b, { months: "3", start: "2020-01-01" })).toBe(
      viewKey("calendar", cell.lat, cell.lon, { start: "2020-01-01", months: "3" })
    )
    expect(Math.abs(cell.lat - a)).toBeLessThanOrEqual(0.125)
    expect(Math.abs(cell.lon - b)).toBeLessThanOrEqual(0.125)
    expect(Object.is(cell.lat, -0) || Object.is(cell.lon, -0)).toBe(false)
  })

  it("a bundle's slices are stored under the keys of the view requests they answer", () => {
    const cell = cellOf(52.52, 13.4)
    expect(sliceKeys(cell)).toEqual({
      grade: "/grade?lat=52.50&lon=13.50",
      forecast: "/forecast?lat=52.50&lon=13.50",
      calendar: "/calendar?lat=52.50&lon=13.50&months=24",
      day: "/day?lat=52.50&lon=13.50"
    })
    expect(sliceKeys(cell).calendar).toBe(viewKey("calendar", 52.52, 13.4, { months: "24" }))
    expect(bundleKey(cell)).toBe("/cell?lat=52.50&lon=13.50")
    expect(prefetchPath(cell)).toBe("/cell?lat=52.50&lon=13.50&prefetch=1")
  })
})

describe("neighbours", () => {
  it.prop("8 distinct cells one step away, longitude wrapped, latitudes within ±90", [lat, lon], ([a, b]) => {
    const cell = cellOf(a, b)
    const around = neighbours(cell)
    const polar = cell.lat === 90 || cell.lat === -90
    expect(around).toHaveLength(polar ? 5 : 8)
    const keys = new Set(around.map((n) => bundleKey(n)))
    expect(keys.size).toBe(around.length)
    expect(keys.has(bundleKey(cell))).toBe(false)
    for (const n of around) {
      expect(Math.abs(n.lat)).toBeLessThanOrEqual(90)
      expect(n.lon).toBeGreaterThanOrEqual(-180)
      expect(n.lon).toBeLessThan(180)
      expect(Math.abs(n.lat - cell.lat)).toBeLessThanOrEqual(0.25)
      // One step east or west, or none, on the circle.
      const dLon = Math.abs(((n.lon - cell.lon + 540) % 360) - 180)
      expect([0, 0.25]).toContain(dLon)
      expect(cellOf(n.lat, n.lon)).toEqual(n)
    }
  })

  it("at the poles the cells beyond ±90 are skipped", () => {
    expect(neighbours(cellOf(90, 10)).map((n) => [n.lat, n.lon])).toEqual([
      [89.75, 10],
      [90, 10.25],
      [90, 9.75],
      [89.75, 10.25],
      [89.75, 9.75]
    ])
    expect(neighbours(cellOf(-89.9, 0)).every((n) => n.lat >= -90)).toBe(true)
    expect(neighbours(cellOf(-89.9, 0))).toHaveLength(5)
  })

  it("across ±180 the longitude wraps", () => {
    const east = neighbours(cellOf(10, 179.9)).map((n) => n.lon)
    // The cell of 179.9 is lon 180, the same meridian as -180: its column is written as -180.
    expect(new Set(east)).toEqual(new Set([-180, -179.75, 179.75]))
    const west = neighbours(cellOf(10, -179.9)).map((n) => n.lon)
    expect(new Set(west)).toEqual(new Set([-180, -179.75, 179.75]))
    expect(neighbours(cellOf(0, 179.75)).map((n) => n.lon)).toContain(-180)
  })
})
