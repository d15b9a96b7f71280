/**
 * A world map drawn in the browser from Natural Earth's 1:110m outlines (world-atlas), no tile server:
 * click anywhere to pick a place. Beside it, a close-up of the chosen place with the 0.25° grid, the
 * chosen cell outlined; clicking there picks a nearby cell.
 */
import { geoEqualEarth, geoEquirectangular, geoGraticule10, geoPath } from "d3-geo"
import { useEffect, useMemo, useState } from "preact/hooks"
import { feature, mesh } from "topojson-client"
import type { GeometryCollection, Topology } from "topojson-specification"
import { formatCoordinates, snap } from "../format.js"
import { useWidth } from "./useWidth.js"

declare const __WORLD_URL__: string

interface World {
  readonly land: GeoJSON.FeatureCollection | GeoJSON.Feature
  readonly borders: GeoJSON.MultiLineString
}

let world: Promise<World> | undefined

const loadWorld = (): Promise<World> => {
  world ??= fetch(new URL(__WORLD_URL__, import.meta.url))
    .then((r) => {
      if (!r.ok) throw new Error(`map outlines answered ${r.status}`)
      return r.json() as Promise<Topology<{ countries: GeometryCollection; land: GeometryCollection }>>
    })
    .then((topology) => ({
      land: feature(topology, topology.objects.land),
      borders: mesh(topology, topology.objects.countries, (a, b) => a !== b)
    }))
  world.catch(() => {
    world = undefined
  })
  return world
}

const useWorld = () => {
  const [state, setState] = useState<World | "failed" | null>(null)
  useEffect(() => {
    let live = true
    loadWorld().then(
      (w) => live && setState(w),
      () => live && setState("failed")
    )
    return () => {
      live = false
    }
  }, [])
  return state
}

const pointer = (event: MouseEvent): [number, number] => {
  const svg = event.currentTarget as SVGSVGElement
  const box = svg.getBoundingClientRect()
  return [event.clientX - box.left, event.clientY - box.top]
}

const graticule = geoGraticule10()

export const WorldMap = ({
  chosen,
  onPick
}: {
  chosen: { lat: number; lon: number } | null
  onPick: (lat: number, lon: number) => void
}) => {
  const w = useWorld()
  const [ref, width] = useWidth<HTMLDivElement>(640)
  const height = Math.round(width * 0.487)
  const projection = useMemo(
    () =>
      geoEqualEarth().fitExtent(
        [
          [2, 2],
          [width - 2, height - 2]
        ],
        { type: "Sphere" }
      ),
    [width, height]
  )
  // The outlines depend on the width alone: projected once, not again for each place shown.
  const outlines = useMemo(() => {
    const path = geoPath(projection)
    const land = w !== null && w !== "failed" ? { land: path(w.land) ?? "", borders: path(w.borders) ?? "" } : null
    return { sphere: path({ type: "Sphere" }) ?? "", graticule: path(graticule) ?? "", land }
  }, [projection, w])
  const marker = chosen === null ? null : projection([chosen.lon, chosen.lat])
  return (
    <div ref={ref} class="worldmap">
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: pointing is what a map adds; keyboard users have search and coordinates */}
      <svg
        width={width}
        height={height}
        class="map-svg"
        role="img"
        aria-label={`World map${chosen === null ? "" : `, showing ${formatCoordinates(chosen.lat, chosen.lon)}`}. Click a point to pick that place.`}
        onClick={(event) => {
          const at = projection.invert?.(pointer(event))
          if (at === null || at === undefined || !Number.isFinite(at[0]) || !Number.isFinite(at[1])) return
          if (Math.abs(at[1]) > 90 || Math.abs(at[0]) > 180) return
          onPick(at[1], at[0])
        }}
      >
        <path d={outlines.sphere} class="map-sea" />
        <path d={outlines.graticule} class="map-graticule" />
        {outlines.land !== null && (
          <>
            <path d={outlines.land.land} class="map-land" />
            <path d={outlines.land.borders} class="map-borders" />
          </>
        )}
        {marker !== null && (
          <g class="map-marker" transform={`translate(${marker[0]},${marker[1]})`}>
            <circle r={9} class="map-marker-ring" />
            <circle r={3} class="map-marker-dot" />
          </g>
        )}
      </svg>
      {w === "failed" && <p class="muted small">The map outlines could not be loaded; clicking still picks a place.</p>}
    </div>
  )
}

/** The chosen cell among its neighbours, about 6° across. */
export const CellMap = ({ lat, lon, onPick }: { lat: number; lon: number; onPick: (lat: number, lon: number) => void }) => {
  const w = useWorld()
  const [ref, width] = useWidth<HTMLDivElement>(280)
  // Wide (a phone's full width) gets a flatter close-up, so the page does not scroll past a map.
  const height = Math.round(width * (width > 320 ? 0.5 : 0.75))
  const span = 6
  // Clipped to the close-up, and without adaptive resampling: at this zoom resampling every
  // coastline of the world to sub-pixel precision was most of the page's drawing time, for lines
  // that the 1:110m outlines already draw as straight segments.
  const projection = geoEquirectangular()
    .center([lon, lat])
    .scale(width / ((span * Math.PI) / 180))
    .translate([width / 2, height / 2])
    .clipExtent([
      [0, 0],
      [width, height]
    ])
    .precision(0)
  const path = geoPath(projection)
  const cellLat = snap(lat)
  const cellLon = snap(lon)
  const corner = (la: number, lo: number) => projection([lo, la]) ?? [0, 0]
  const [x0, y0] = corner(cellLat + 0.125, cellLon - 0.125)
  const [x1, y1] = corner(cellLat - 0.125, cellLon + 0.125)
  const lines: Array<string> = []
  for (let d = -span; d <= span; d += 0.25) {
    const [gx] = corner(cellLat, cellLon + d + 0.125)
    const [, gy] = corner(cellLat + d + 0.125, cellLon)
    lines.push(`M${gx},0V${height}`, `M0,${gy}H${width}`)
  }
  return (
    <div ref={ref} class="cellmap">
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: pointing is what a map adds; keyboard users have search and coordinates */}
      <svg
        width={width}
        height={height}
        class="map-svg"
        role="img"
        aria-label={`Close-up: the cell ${formatCoordinates(cellLat, cellLon)} outlined on the 0.25° grid. Click a neighbouring square to pick it.`}
        onClick={(event) => {
          const at = projection.invert?.(pointer(event))
          if (at === null || at === undefined) return
          const la = Math.max(-90, Math.min(90, at[1]))
          const lo = ((((at[0] + 180) % 360) + 360) % 360) - 180
          onPick(la, lo)
        }}
      >
        <rect width={width} height={height} class="map-sea" />
        {w !== null && w !== "failed" && (
          <>
            <path d={path(w.land) ?? ""} class="map-land" />
            <path d={path(w.borders) ?? ""} class="map-borders" />
          </>
        )}
        <path d={lines.join("")} class="map-grid" />
        <rect x={x0} y={y0} width={Math.max(2, x1 - x0)} height={Math.max(2, y1 - y0)} class="map-cell" />
      </svg>
      <p class="muted small">
        Cell {formatCoordinates(cellLat, cellLon)} · squares are 0.25° (about 28 km)
      </p>
    </div>
  )
}
