/** A 0.25° grid cell: every point that snaps to the same centre (`round(x * 4) / 4`) shares one cell. */
export interface Cell {
  readonly lat: number
  readonly lon: number
  /** `"{lat},{lon}"` with two decimals. */
  readonly key: string
}

/** How far each coordinate may go either side of zero (latitude −90..90, longitude −180..180). */
export const LIMIT = { lat: 90, lon: 180 } as const
export type Axis = keyof typeof LIMIT

/** Whether `value` is a coordinate on `axis`: a finite number within its range, ends included. */
export const inRange = (axis: Axis, value: number): boolean => Number.isFinite(value) && Math.abs(value) <= LIMIT[axis]

/** The range as a refusal states it: `between -90 and 90`. */
export const rangeText = (axis: Axis): string => `between -${LIMIT[axis]} and ${LIMIT[axis]}`

/** Degrees across a cell, north to south and west to east: the grid's step. */
export const SIZE = 0.25

/** A coordinate snapped to its cell's centre, a multiple of `SIZE`; never -0 (no "-0.00" keys). */
export const snap = (x: number): number => {
  // Exact: SIZE is a power of two, so dividing and multiplying by it rounds nothing.
  const v = Math.round(x / SIZE) * SIZE
  return v === 0 ? 0 : v
}

export const fromCoordinates = (lat: number, lon: number): Cell => {
  const sLat = snap(lat)
  const sLon = snap(lon)
  return { lat: sLat, lon: sLon, key: `${sLat.toFixed(2)},${sLon.toFixed(2)}` }
}

/** The coordinate label used when the geocoder knows no place here, e.g. `47.25°N 130.00°W`. */
export const coordinateLabel = (cell: Cell): string =>
  `${Math.abs(cell.lat).toFixed(2)}°${cell.lat < 0 ? "S" : "N"} ${Math.abs(cell.lon).toFixed(2)}°${cell.lon < 0 ? "W" : "E"}`
