/**
 * The world map's projection, written out so the page needs no projection library, agrees with the
 * d3-geo projection that drew the outlines at build time: the marker lands on the outlines, a click
 * picks the point under it.
 */
import { describe, expect, it } from "@effect/vitest"
import { geoEqualEarth } from "d3-geo"
import * as FastCheck from "effect/FastCheck"
import { invert, outline, project } from "../src/map/equalEarth.js"
import { HEIGHT, WIDTH, worldMap } from "../scripts/worldMap.mjs"

const built = worldMap()
const fit = built.world.fit
const d3 = geoEqualEarth().fitExtent(
  [
    [4, 4],
    [WIDTH - 4, HEIGHT - 4]
  ],
  { type: "Sphere" }
)

const lon = FastCheck.double({ min: -180, max: 180, noNaN: true })
const lat = FastCheck.double({ min: -90, max: 90, noNaN: true })

describe("Equal Earth", () => {
  it("the build's fit is d3-geo's", () => {
    expect(fit.k).toBe(d3.scale())
    expect([fit.tx, fit.ty]).toEqual(d3.translate())
  })

  it.prop("projects every point where d3-geo does, to a thousandth of a unit", [lon, lat], ([x, y]) => {
    const mine = project(fit, x, y)
    const theirs = d3([x, y])!
    expect(Math.abs(mine[0] - theirs[0])).toBeLessThan(1e-3)
    expect(Math.abs(mine[1] - theirs[1])).toBeLessThan(1e-3)
  })

  it.prop(
    "a click picks the point under it: invert undoes project (away from the poles' and edges' singular points)",
    [FastCheck.double({ min: -179.9, max: 179.9, noNaN: true }), FastCheck.double({ min: -89.9, max: 89.9, noNaN: true })],
    ([x, y]) => {
      const [px, py] = project(fit, x, y)
      const back = invert(fit, px, py)!
      expect(back).not.toBeNull()
      expect(Math.abs(back[0] - x)).toBeLessThan(1e-6)
      expect(Math.abs(back[1] - y)).toBeLessThan(1e-6)
      const theirs = d3.invert!([px, py])!
      expect(Math.abs(back[0] - theirs[0])).toBeLessThan(1e-6)
    }
  )

  it("a click outside the Earth's outline picks nothing; its middle is 0°N 0°E", () => {
    expect(invert(fit, 2, 2)).toBeNull()
    expect(invert(fit, WIDTH - 2, HEIGHT - 2)).toBeNull()
    const middle = invert(fit, WIDTH / 2, HEIGHT / 2)!
    expect(Math.abs(middle[0])).toBeLessThan(1e-9)
    expect(Math.abs(middle[1])).toBeLessThan(1e-9)
  })

  it("the outline fills the map's box inside its 4-unit margin, centred", () => {
    const numbers = outline(fit).match(/-?\d+(\.\d+)?/g)!.map(Number)
    const xs = numbers.filter((_, i) => i % 2 === 0)
    const ys = numbers.filter((_, i) => i % 2 === 1)
    expect(Math.min(...xs)).toBeGreaterThan(3.9)
    expect(Math.min(...ys)).toBeGreaterThan(3.9)
    expect(Math.min(...xs) + Math.max(...xs)).toBeCloseTo(WIDTH, 0)
    expect(Math.min(...ys) + Math.max(...ys)).toBeCloseTo(HEIGHT, 0)
    // It touches the margin on one axis at least.
    expect(Math.min(Math.min(...xs), Math.min(...ys))).toBeCloseTo(4, 0)
  })

  it("the outlines are drawn in whole units, and the close-up's in fiftieths of a degree", () => {
    expect(built.world.land).toMatch(/^M\d+ \d+l/)
    expect(built.world.land).not.toMatch(/\./)
    expect(built.degrees.perDegree).toBe(50)
    expect(built.degrees.borders).not.toMatch(/\./)
  })
})
