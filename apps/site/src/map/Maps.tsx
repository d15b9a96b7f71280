/**
 * A world map drawn from Natural Earth's 1:110m outlines, no tile server: click anywhere to pick a
 * place. Beside it, a close-up of the chosen place with the 0.25° grid, the chosen cell outlined;
 * clicking there picks a nearby cell. The outlines were projected at build time (scripts/worldMap.mjs)
 * into one JSON asset, so drawing them is the browser parsing a few SVG paths: each map is one SVG.
 * Loaded after the grades show.
 */
import { useEffect, useState } from "preact/hooks"
import { useWidth } from "../components/useWidth.js"
import { Cell } from "@climate-grade/core/rules"
import { formatCoordinates, ltr } from "../format.js"
import { w } from "../i18n/index.js"
import { type Fit, invert, outline, project } from "./equalEarth.js"

declare const __MAP_URL__: string
/** The world map's box and its projection's fit, from the build (the same that drew the outlines). */
declare const __WORLD_FRAME__: { readonly width: number; readonly height: number; readonly fit: Fit }

interface MapData {
  readonly world: {
    readonly width: number
    readonly height: number
    readonly fit: Fit
    readonly graticule: string
    readonly land: string
    readonly borders: string
  }
  readonly degrees: { readonly perDegree: number; readonly land: string; readonly borders: string }
}

let outlines: Promise<MapData> | undefined

const loadOutlines = (): Promise<MapData> => {
  outlines ??= fetch(new URL(__MAP_URL__, import.meta.url)).then((r) => {
    if (!r.ok) throw new Error(`map outlines answered ${r.status}`)
    return r.json() as Promise<MapData>
  })
  outlines.catch(() => {
    outlines = undefined
  })
  return outlines
}

const useOutlines = () => {
  const [state, setState] = useState<MapData | "failed" | null>(null)
  useEffect(() => {
    let live = true
    loadOutlines().then(
      (m) => live && setState(m),
      () => live && setState("failed")
    )
    return () => {
      live = false
    }
  }, [])
  return state
}

/** Where a click landed, as a share (0–1) of the element's width and height. */
const pointer = (event: MouseEvent): [number, number] => {
  const box = (event.currentTarget as Element).getBoundingClientRect()
  return [(event.clientX - box.left) / box.width, (event.clientY - box.top) / box.height]
}

const sphere = outline(__WORLD_FRAME__.fit)

export const WorldMap = ({
  chosen,
  onPick
}: {
  chosen: { lat: number; lon: number } | null
  onPick: (lat: number, lon: number) => void
}) => {
  const m = useOutlines()
  const { width, height, fit } = __WORLD_FRAME__
  // The marker keeps its size on screen whatever the map's: map units per pixel.
  const [ref, shown] = useWidth<HTMLDivElement>(640)
  const perPixel = width / Math.max(shown, 100)
  const marker = chosen === null ? null : project(fit, chosen.lon, chosen.lat)
  return (
    <div ref={ref} class="worldmap">
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: pointing is what a map adds; keyboard users have search and coordinates */}
      <svg
        viewBox={`0 0 ${width} ${height}`}
        class="map-svg"
        role="img"
        aria-label={chosen === null ? w("map.world") : w("map.world.showing", { coordinates: ltr(formatCoordinates(chosen.lat, chosen.lon)) })}
        onClick={(event) => {
          const [sx, sy] = pointer(event)
          const at = invert(fit, sx * width, sy * height)
          if (at !== null) onPick(at[1], at[0])
        }}
      >
        <path d={sphere} class="map-sea" />
        {m !== null && m !== "failed" && (
          <>
            <path d={m.world.graticule} class="map-graticule" />
            <path d={m.world.land} class="map-land" />
            <path d={m.world.borders} class="map-borders" />
          </>
        )}
        {marker !== null && (
          <g class="map-marker" transform={`translate(${marker[0].toFixed(1)},${marker[1].toFixed(1)})`}>
            <circle r={9 * perPixel} class="map-marker-ring" />
            <circle r={3 * perPixel} class="map-marker-dot" />
          </g>
        )}
      </svg>
      {m === "failed" && <p class="muted small">{w("map.failed")}</p>}
    </div>
  )
}

/** Degrees across the close-up. */
const SPAN = 6

/** The chosen cell among its neighbours, about 6° across: an equirectangular view of the outlines in degrees. */
export const CellMap = ({ lat, lon, onPick }: { lat: number; lon: number; onPick: (lat: number, lon: number) => void }) => {
  const m = useOutlines()
  const [ref, width] = useWidth<HTMLDivElement>(280)
  // Wide (a phone's full width) gets a flatter close-up, so the page does not scroll past a map.
  const height = Math.round(width * (width > 320 ? 0.5 : 0.75))
  const spanY = (SPAN * height) / width
  const u = m !== null && m !== "failed" ? m.degrees.perDegree : 50
  const { lat: cellLat, lon: cellLon } = Cell.fromCoordinates(lat, lon)
  const x0 = (lon - SPAN / 2) * u
  const y0 = (-lat - spanY / 2) * u
  const lines: Array<string> = []
  // The cell's edges: half a cell either side of its centre, and every whole cell beyond.
  const half = Cell.SIZE / 2
  for (let d = -SPAN; d <= SPAN; d += Cell.SIZE) {
    const gx = (cellLon + d + half) * u
    const gy = -(cellLat + d + half) * u
    lines.push(`M${gx} ${y0}v${spanY * u}`, `M${x0} ${gy}h${SPAN * u}`)
  }
  // Near the antimeridian the other side of the world shows too: the outlines again, 360° over.
  const copies = Math.abs(lon) > 180 - SPAN ? [0, lon > 0 ? 360 : -360] : [0]
  return (
    <div ref={ref} class="cellmap">
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: pointing is what a map adds; keyboard users have search and coordinates */}
      <svg
        width={width}
        height={height}
        viewBox={`${x0} ${y0} ${SPAN * u} ${spanY * u}`}
        class="map-svg"
        role="img"
        aria-label={w("map.cell", { coordinates: ltr(formatCoordinates(cellLat, cellLon)) })}
        onClick={(event) => {
          const [sx, sy] = pointer(event)
          const la = Math.max(-90, Math.min(90, lat + spanY / 2 - sy * spanY))
          const lo = ((((lon - SPAN / 2 + sx * SPAN + 180) % 360) + 360) % 360) - 180
          onPick(la, lo)
        }}
      >
        <rect x={x0} y={y0} width={SPAN * u} height={spanY * u} class="map-sea" />
        {m !== null &&
          m !== "failed" &&
          copies.map((shift) => (
            <g key={shift} transform={shift === 0 ? undefined : `translate(${shift * u},0)`}>
              <path d={m.degrees.land} class="map-land" />
              <path d={m.degrees.borders} class="map-borders" />
            </g>
          ))}
        <path d={lines.join("")} class="map-grid" />
        <rect x={(cellLon - half) * u} y={-(cellLat + half) * u} width={Cell.SIZE * u} height={Cell.SIZE * u} class="map-cell" />
      </svg>
      <p class="muted small">
        {w("map.cell.caption", { coordinates: ltr(formatCoordinates(cellLat, cellLon)) })}
      </p>
    </div>
  )
}
