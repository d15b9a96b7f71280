/**
 * Warming stripes: one stripe per complete year of the record, coloured by how far its mean
 * temperature was from the reference years' (ColorBrewer RdBu, blue cooler, red warmer). The drawing
 * is one SVG (one path per colour, not an element per stripe) with its keyboard model beside it: a
 * slider over the years whose one element sits on the chosen stripe, named with that year's value
 * (arrow keys a year, Page Up/Down ten, Home/End the ends). A pointer over the drawing reads the
 * stripe under it; a click or tap chooses it.
 */
import { useLayoutEffect, useMemo, useRef, useState } from "preact/hooks"
import { w as word } from "../i18n/later.js"
import type { TrendPayload, Units } from "../payloads.js"
import { extentOf, formatDifference, STRIPE_COLOURS, stripeColour, stripesOf, stripeWords } from "../trend.js"
import { useWidth } from "./useWidth.js"

const MOVES: Readonly<Record<string, (i: number) => number>> = {
  ArrowLeft: (i) => i - 1,
  ArrowDown: (i) => i - 1,
  ArrowRight: (i) => i + 1,
  ArrowUp: (i) => i + 1,
  PageDown: (i) => i - 10,
  PageUp: (i) => i + 10,
  Home: () => 0,
  End: () => Number.MAX_SAFE_INTEGER
}

/** Room under the stripes for the chosen year's pointer. */
const POINTER = 8

export const WarmingStripes = ({ trend, units }: { trend: TrendPayload; units: Units }) => {
  const { isBaseline, reference, stripes } = useMemo(() => stripesOf(trend), [trend])
  const extent = extentOf(stripes)
  const n = stripes.length
  const [ref, width] = useWidth<HTMLDivElement>(600)
  const [chosen, setChosen] = useState(n - 1)
  const [hovered, setHovered] = useState<number | null>(null)
  const slider = useRef<HTMLDivElement>(null)
  const moved = useRef(false)
  const height = width < 560 ? 80 : 120
  const w = width / Math.max(1, n)

  // After a key or a click moved it, focus stays on the slider, now over its new stripe. In the render
  // that moved it (a layout effect), so a key pressed before the next paint finds it there.
  useLayoutEffect(() => {
    if (!moved.current) return
    moved.current = false
    slider.current?.focus()
  }, [chosen])

  // One path per colour: each year a rectangle in the path of its colour.
  const paths = useMemo(() => {
    const byColour = new Map<string, Array<string>>()
    stripes.forEach((s, i) => {
      const colour = stripeColour(s.anomaly, extent)
      const list = byColour.get(colour) ?? []
      if (list.length === 0) byColour.set(colour, list)
      // A hair wider than the stripe, so no seam of background shows between neighbours.
      list.push(`M${(i * w).toFixed(2)} 0h${(w + 0.5).toFixed(2)}v${height}h${(-(w + 0.5)).toFixed(2)}z`)
    })
    return [...byColour].map(([colour, d]) => ({ colour, d: d.join("") }))
  }, [stripes, extent, w, height])

  if (n === 0 || reference === null) {
    return <p class="muted">{word("stripes.none")}</p>
  }
  const first = stripes[0]!.year
  const last = stripes[n - 1]!.year
  const index = Math.min(chosen, n - 1)
  const shown = stripes[hovered ?? index]!
  const at = (event: MouseEvent | PointerEvent): number => {
    const rect = (event.currentTarget as Element).getBoundingClientRect()
    return Math.min(n - 1, Math.max(0, Math.floor((event.clientX - rect.left) / w)))
  }
  const onKeyDown = (event: KeyboardEvent) => {
    const move = MOVES[event.key]
    if (move === undefined) return
    event.preventDefault()
    moved.current = true
    setHovered(null)
    setChosen((i) => Math.min(n - 1, Math.max(0, move(i))))
  }
  return (
    <figure class="stripes" aria-labelledby="stripes-title">
      <h3 id="stripes-title">{word("stripes.title", { first, last })}</h3>
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: the slider over the drawing is the keyboard's way in */}
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a click on the drawing chooses the year under it */}
      <div
        ref={ref}
        class="stripes-area"
        dir="ltr"
        style={{ height: `${height + POINTER}px` }}
        onPointerMove={(event) => setHovered(at(event))}
        onPointerLeave={() => setHovered(null)}
        onClick={(event) => {
          moved.current = true
          setHovered(null)
          setChosen(at(event))
        }}
      >
        <svg width={width} height={height + POINTER} class="stripes-svg" aria-hidden="true">
          {paths.map(({ colour, d }) => (
            <path key={colour} d={d} fill={colour} />
          ))}
          <rect x={0} y={0} width={width} height={height} class="stripes-frame" />
          <rect x={index * w + 1} y={1} width={Math.max(1, w - 2)} height={height - 2} class="stripe-chosen-outer" />
          {w > 6 && <rect x={index * w + 2.5} y={2.5} width={w - 5} height={height - 5} class="stripe-chosen-inner" />}
          {/* A pointer under the chosen stripe, visible however thin the stripes are. */}
          <path
            d={`M${((index + 0.5) * w).toFixed(1)} ${height + 1}l5 ${POINTER - 1}h-10z`}
            class="stripe-pointer"
          />
        </svg>
        <div
          key={index}
          ref={slider}
          role="slider"
          tabIndex={0}
          aria-label={word("stripes.slider")}
          aria-describedby="stripes-help"
          aria-valuemin={first}
          aria-valuemax={last}
          aria-valuenow={stripes[index]!.year}
          aria-valuetext={stripeWords(stripes[index]!, reference, units)}
          aria-orientation="horizontal"
          data-year={stripes[index]!.year}
          class="stripes-focus"
          style={{ left: `${index * w}px`, width: `${Math.max(w, 4)}px`, height: `${height}px` }}
          onKeyDown={onKeyDown}
        />
      </div>
      <div class="stripes-axis" aria-hidden="true" dir="ltr">
        <span>{first}</span>
        <span>{last}</span>
      </div>
      <p class="stripes-readout num">{stripeWords(shown, reference, units)}</p>
      <div class="stripes-legend" aria-hidden="true">
        <span class="num">{formatDifference(-extent, units)}</span>
        <svg width="132" height="12" class="stripes-legend-svg" aria-hidden="true">
          {STRIPE_COLOURS.map((colour, i) => (
            <rect key={colour} x={i * 12} y={0} width={12} height={12} fill={colour} />
          ))}
        </svg>
        <span class="num">{formatDifference(extent, units)}</span>
      </div>
      <figcaption id="stripes-help" class="help">
        {word(isBaseline ? "stripes.help" : "stripes.help.all", { first, from: reference.from, to: reference.to })}
      </figcaption>
    </figure>
  )
}
