/**
 * The map outlines for the site, drawn once here rather than in every browser: Natural Earth's
 * 1:110m land and borders (world-atlas) as SVG path data, projected by d3-geo.
 *   - world: Equal Earth fitted to a 2000 × 974 box (one unit is half a pixel at 1000 px wide), with
 *     the fit's scale and translation so the page can place a marker and invert a click;
 *   - degrees: the same outlines unprojected, x = lon and y = −lat in units of 1/50 degree, which the
 *     close-up (an equirectangular view of a few degrees) shows through its viewBox.
 * Coordinates are whole units, written relative ("l3-2"), which gzip well.
 */
import { createRequire } from "node:module"
import { geoEqualEarth, geoGraticule10, geoIdentity, geoPath } from "d3-geo"
import { feature, mesh } from "topojson-client"

const require = createRequire(import.meta.url)

/** A d3-geo path context writing whole units, relative after each move. */
const relativePath = (scale) => {
  let out = ""
  let x0 = 0
  let y0 = 0
  let started = false
  return {
    moveTo(x, y) {
      x0 = Math.round(x * scale)
      y0 = Math.round(y * scale)
      out += `M${x0} ${y0}`
      started = false
    },
    lineTo(x, y) {
      const x1 = Math.round(x * scale)
      const y1 = Math.round(y * scale)
      const dx = x1 - x0
      const dy = y1 - y0
      if (dx === 0 && dy === 0) return
      out += `${started ? (dx < 0 ? "" : " ") : "l"}${dx}${dy < 0 ? "" : " "}${dy}`
      started = true
      x0 = x1
      y0 = y1
    },
    closePath() {
      out += "z"
    },
    arc() {
      throw new Error("no points are drawn")
    },
    result() {
      const text = out
      out = ""
      return text
    }
  }
}

export const WIDTH = 2000
export const HEIGHT = 974
/** Close-up units per degree. */
export const PER_DEGREE = 50

export const worldMap = () => {
  const topology = require("world-atlas/countries-110m.json")
  const land = feature(topology, topology.objects.land)
  const borders = mesh(topology, topology.objects.countries, (a, b) => a !== b)
  const projection = geoEqualEarth().fitExtent(
    [
      [4, 4],
      [WIDTH - 4, HEIGHT - 4]
    ],
    { type: "Sphere" }
  )
  const draw = (proj, scale, geometry) => {
    const context = relativePath(scale)
    geoPath(proj, context)(geometry)
    return context.result()
  }
  const degrees = geoIdentity().reflectY(true)
  const [tx, ty] = projection.translate()
  return {
    world: {
      width: WIDTH,
      height: HEIGHT,
      fit: { k: projection.scale(), tx, ty },
      graticule: draw(projection, 1, geoGraticule10()),
      land: draw(projection, 1, land),
      borders: draw(projection, 1, borders)
    },
    degrees: {
      perDegree: PER_DEGREE,
      land: draw(degrees, PER_DEGREE, land),
      borders: draw(degrees, PER_DEGREE, borders)
    }
  }
}
