/**
 * The Equal Earth projection (Šavrič, Patterson, Jenny 2018) as d3-geo writes it, forward and
 * inverse, for the world map's marker and clicks. The outlines themselves are projected once at build
 * time by d3-geo (scripts/worldMap.mjs); this module carries only the two formulas, so the page needs
 * no projection library. Checked against d3-geo's `geoEqualEarth` in test/EqualEarth.test.ts.
 */

const A1 = 1.340264
const A2 = -0.081106
const A3 = 0.000893
const A4 = 0.003796
const M = Math.sqrt(3) / 2
const RADIANS = Math.PI / 180

/** The projection as fitted at build time: x = tx + k·X, y = ty − k·Y. */
export interface Fit {
  readonly k: number
  readonly tx: number
  readonly ty: number
}

const raw = (lambda: number, phi: number): [number, number] => {
  const l = Math.asin(M * Math.sin(phi))
  const l2 = l * l
  const l6 = l2 * l2 * l2
  return [(lambda * Math.cos(l)) / (M * (A1 + 3 * A2 * l2 + l6 * (7 * A3 + 9 * A4 * l2))), l * (A1 + A2 * l2 + l6 * (A3 + A4 * l2))]
}

const rawInvert = (x: number, y: number): [number, number] => {
  let l = y
  let l2 = l * l
  let l6 = l2 * l2 * l2
  for (let i = 0; i < 12; i++) {
    const fy = l * (A1 + A2 * l2 + l6 * (A3 + A4 * l2)) - y
    const fpy = A1 + 3 * A2 * l2 + l6 * (7 * A3 + 9 * A4 * l2)
    const delta = fy / fpy
    l -= delta
    l2 = l * l
    l6 = l2 * l2 * l2
    if (Math.abs(delta) < 1e-12) break
  }
  return [(M * x * (A1 + 3 * A2 * l2 + l6 * (7 * A3 + 9 * A4 * l2))) / Math.cos(l), Math.asin(Math.sin(l) / M)]
}

/** [lon, lat] in degrees to map units. */
export const project = (fit: Fit, lon: number, lat: number): [number, number] => {
  const [x, y] = raw(lon * RADIANS, lat * RADIANS)
  return [fit.tx + fit.k * x, fit.ty - fit.k * y]
}

/** Map units to [lon, lat] in degrees, or null outside the Earth's outline. */
export const invert = (fit: Fit, x: number, y: number): [number, number] | null => {
  const [lambda, phi] = rawInvert((x - fit.tx) / fit.k, (fit.ty - y) / fit.k)
  const lon = lambda / RADIANS
  const lat = phi / RADIANS
  return Number.isFinite(lon) && Number.isFinite(lat) && Math.abs(lon) <= 180 && Math.abs(lat) <= 90 ? [lon, lat] : null
}

/** The Earth's outline (the sphere's edge), traced along the two edge meridians. */
export const outline = (fit: Fit): string => {
  const points: Array<string> = []
  for (let lat = -90; lat <= 90; lat += 2) points.push(project(fit, -180, lat).map((v) => v.toFixed(1)).join(","))
  for (let lat = 90; lat >= -90; lat -= 2) points.push(project(fit, 180, lat).map((v) => v.toFixed(1)).join(","))
  return `M${points.join("L")}Z`
}
