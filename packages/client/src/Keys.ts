/**
 * Cache keys and neighbour cells (docs/architecture.md "Client library"): plain functions, no IO.
 * A key is the request's path with `lat`/`lon` snapped to the 0.25° cell and every query parameter
 * sorted, so two calls that the server answers alike share one entry, and the key doubles as the
 * path the request is sent to.
 */
import { Cell } from "@climate-grade/core/rules"
import type { SliceName, ViewName } from "./Views.js"

export interface CellCoordinates {
  readonly lat: number
  readonly lon: number
}

/** The server's cell: the core's snapping to the 0.25° grid. */
export const cellOf = (lat: number, lon: number): CellCoordinates => ({ lat: Cell.snap(lat), lon: Cell.snap(lon) })

/** `path?` and the parameters sorted by name; `lat`/`lon` given as arguments win over `params`. */
const keyOf = (path: string, cell: CellCoordinates, params: Readonly<Record<string, string>>): string => {
  const all: Record<string, string> = { ...params, lat: cell.lat.toFixed(2), lon: cell.lon.toFixed(2) }
  const query = new URLSearchParams()
  for (const name of Object.keys(all).sort()) query.append(name, all[name]!)
  return `${path}?${query.toString()}`
}

export const viewKey = (
  view: ViewName,
  lat: number,
  lon: number,
  params: Readonly<Record<string, string>> = {}
): string => keyOf(`/${view}`, cellOf(lat, lon), params)

/** The bundle's own entry (its ETag and the slices' ETags). */
export const bundleKey = (cell: CellCoordinates): string => keyOf("/cell", cell, {})

/** The warm-up request of a neighbour: never stored under this key. */
export const prefetchPath = (cell: CellCoordinates): string => keyOf("/cell", cell, { prefetch: "1" })

/**
 * The keys a full bundle's slices answer: the view requests a caller makes for "now"
 * (calendar of the last 24 months, the day view without a date).
 */
export const sliceKeys = (cell: CellCoordinates): Readonly<Record<SliceName, string>> => ({
  grade: keyOf("/grade", cell, {}),
  forecast: keyOf("/forecast", cell, {}),
  calendar: keyOf("/calendar", cell, { months: "24" }),
  day: keyOf("/day", cell, {})
})

/** Longitude wrapped into [-180, 180). */
const wrapLon = (lon: number): number => {
  const w = ((((lon + 180) % 360) + 360) % 360) - 180
  return w === 0 ? 0 : w
}

/**
 * The 8 cells around a cell: lat ±0.25, lon ±0.25; longitude wraps at ±180, latitudes beyond ±90
 * are skipped (so a polar cell has 5). Nearest first: the four sides, then the corners.
 */
export const neighbours = (cell: CellCoordinates): ReadonlyArray<CellCoordinates> => {
  const steps: ReadonlyArray<readonly [number, number]> = [
    [1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1]
  ]
  const out: Array<CellCoordinates> = []
  for (const [dLat, dLon] of steps) {
    const lat = cell.lat + dLat * Cell.SIZE
    if (lat > 90 || lat < -90) continue
    out.push(cellOf(lat, wrapLon(cell.lon + dLon * Cell.SIZE)))
  }
  return out
}

export const MIN_NEIGHBOUR_SPACING_MS = 1100

/** The warm-up's spacing: the option, raised to the floor of 1.1 s between neighbour requests. */
export const neighbourSpacing = (option: number | undefined): number =>
  Math.max(MIN_NEIGHBOUR_SPACING_MS, option !== undefined && Number.isFinite(option) ? option : 0)
