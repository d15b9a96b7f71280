/**
 * Two years as a heat map: one row per month, one column per day of the month, each day on the colour
 * of its percentile. The drawing is one SVG (one path per colour, not an element per day), with its
 * keyboard model beside it: an ARIA grid of 24-odd rows by 31 columns (`aria-rowcount`,
 * `aria-colcount`) of which only the focused day is in the DOM, as a grid cell laid over its square.
 * Tab enters at one day, the arrow keys move by a day (left/right) or a month (up/down), Home/End go to
 * the month's ends, Page Up/Down move a year, and Enter or Space opens the day; each move puts focus on
 * a new cell named with its date, value and percentile. A click opens the day under the pointer.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks"
import { NO_DATA, percentileColor } from "../colors.js"
import {
  addDays,
  formatPercentile,
  formatValue,
  labelOfPercentile,
  labelWords,
  longDate,
  shortMonth,
  VARIABLE_NAME,
  VARIABLE_NOUN
} from "../format.js"
import { w } from "../i18n/later.js"
import type { CalendarPayload, Units, Variable } from "../payloads.js"
import { useWidth } from "./useWidth.js"

interface Month {
  readonly key: string
  readonly year: number
  readonly month: number
  readonly length: number
}

const monthLength = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate()

const monthsOf = (start: string, end: string): ReadonlyArray<Month> => {
  const out: Array<Month> = []
  let year = Number(start.slice(0, 4))
  let month = Number(start.slice(5, 7))
  const lastKey = end.slice(0, 7)
  for (;;) {
    const key = `${year}-${String(month).padStart(2, "0")}`
    out.push({ key, year, month, length: monthLength(year, month) })
    if (key >= lastKey) break
    month++
    if (month > 12) {
      month = 1
      year++
    }
  }
  return out
}

const clampDate = (date: string, start: string, end: string) => (date < start ? start : date > end ? end : date)

/** The same day of an adjacent month (clamped to that month's length). */
const moveMonths = (date: string, by: number): string => {
  const y = Number(date.slice(0, 4))
  const m = Number(date.slice(5, 7)) - 1 + by
  const year = y + Math.floor(m / 12)
  const month = (((m % 12) + 12) % 12) + 1
  const day = Math.min(Number(date.slice(8, 10)), monthLength(year, month))
  return `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`
}

const MOVES: Readonly<Record<string, (d: string) => string>> = {
  ArrowLeft: (d) => addDays(d, -1),
  ArrowRight: (d) => addDays(d, 1),
  ArrowUp: (d) => moveMonths(d, -1),
  ArrowDown: (d) => moveMonths(d, 1),
  Home: (d) => `${d.slice(0, 8)}01`,
  End: (d) => `${d.slice(0, 8)}${String(monthLength(Number(d.slice(0, 4)), Number(d.slice(5, 7)))).padStart(2, "0")}`,
  PageUp: (d) => moveMonths(d, -12),
  PageDown: (d) => moveMonths(d, 12)
}

/** The drawing's measures at a given width: a label column, then 31 day columns. */
const layoutFor = (width: number) => {
  const narrow = width < 560
  const label = narrow ? 40 : 72
  const head = 16
  const gap = narrow ? 1 : 2
  const column = (width - label) / 31
  const row = narrow ? 14 : 20
  return { narrow, label, head, gap, column, row }
}

export const CalendarHeatmap = ({
  calendar,
  units,
  variable,
  selected,
  onPick
}: {
  calendar: CalendarPayload
  units: Units
  variable: Variable
  selected: string | null
  onPick: (date: string) => void
}) => {
  const { start, end, dates } = calendar
  const index = useMemo(() => new Map(dates.map((d, i) => [d, i])), [dates])
  const months = useMemo(() => monthsOf(start, end), [start, end])
  const [focus, setFocus] = useState<string>(() => clampDate(selected ?? end, start, end))
  const [ref, width] = useWidth<HTMLDivElement>(600)
  const cell = useRef<HTMLDivElement>(null)
  const moved = useRef(false)
  const L = layoutFor(width)
  const height = L.head + months.length * (L.row + L.gap)
  const firstMonth = months[0]!

  // Follow the day view when it changes elsewhere (forecast strip, address), without stealing focus.
  useEffect(() => {
    if (selected !== null && selected >= start && selected <= end) setFocus(selected)
  }, [selected, start, end])

  // After a key moved it, focus goes to the new day's cell (a new element, so it is announced). In the render
  // that moved it (a layout effect), so a key pressed before the next paint finds it there.
  useLayoutEffect(() => {
    if (!moved.current) return
    moved.current = false
    cell.current?.focus()
  }, [focus])

  const series = calendar.series[variable]
  const unit = variable === "precip" ? "mm" : "°C"

  /** Where a day's square is: its row (month) and column (day of the month), from 0. */
  const place = (date: string) => {
    const row = (Number(date.slice(0, 4)) - firstMonth.year) * 12 + Number(date.slice(5, 7)) - firstMonth.month
    return { row, column: Number(date.slice(8, 10)) - 1 }
  }
  const box = (date: string) => {
    const { row, column } = place(date)
    return { x: L.label + column * L.column, y: L.head + row * (L.row + L.gap), w: L.column - L.gap, h: L.row }
  }

  // One path per colour: each day a rectangle in the path of its grade's colour.
  const paths = useMemo(() => {
    const byColour = new Map<string, Array<string>>()
    for (const m of months) {
      for (let d = 1; d <= m.length; d++) {
        const date = `${m.key}-${String(d).padStart(2, "0")}`
        if (date < start || date > end) continue
        const i = index.get(date)
        const p = i === undefined ? null : (series.percentiles[i] ?? null)
        const colour = p === null ? NO_DATA : percentileColor(variable, p)
        const { x, y, w, h } = box(date)
        const list = byColour.get(colour) ?? []
        if (list.length === 0) byColour.set(colour, list)
        list.push(`M${x.toFixed(1)} ${y}h${w.toFixed(1)}v${h}h${(-w).toFixed(1)}z`)
      }
    }
    return [...byColour].map(([colour, parts]) => ({ colour, d: parts.join("") }))
    // box() depends on the layout alone, which width decides.
  }, [months, start, end, index, series, variable, width])

  const describe = (date: string): string => {
    const i = index.get(date)
    const value = i === undefined ? null : (series.values[i] ?? null)
    const p = i === undefined ? null : (series.percentiles[i] ?? null)
    const grade =
      p === null ? w("percentile.no") : w("calendar.percentile", { p: formatPercentile(p), label: labelWords(variable, labelOfPercentile(p)) })
    return w("calendar.day", { date: longDate(date), noun: VARIABLE_NOUN[variable], value: formatValue(value, unit, units), grade })
  }

  const onKeyDown = (event: KeyboardEvent) => {
    const move = MOVES[event.key]
    if (move !== undefined) {
      event.preventDefault()
      moved.current = true
      // From the latest focus, not this render's: keys can arrive faster than the grid re-renders.
      setFocus((current) => clampDate(move(current), start, end))
      return
    }
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault()
      onPick(focus)
    }
  }

  /** The day under a click, if the click is on one. */
  const dayAt = (event: MouseEvent): string | null => {
    const rect = (event.currentTarget as Element).getBoundingClientRect()
    const x = event.clientX - rect.left - L.label
    const y = event.clientY - rect.top - L.head
    if (x < 0 || y < 0) return null
    const month = months[Math.floor(y / (L.row + L.gap))]
    const day = Math.floor(x / L.column) + 1
    if (month === undefined || day > month.length) return null
    const date = `${month.key}-${String(day).padStart(2, "0")}`
    return date < start || date > end ? null : date
  }

  const at = box(focus)
  const sel = selected !== null && selected >= start && selected <= end ? box(selected) : null
  const { row: focusRow, column: focusColumn } = place(focus)
  return (
    // Weeks run left to right in time in every language.
    <div class="calendar-wrap" dir="ltr">
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: the grid beside the drawing is the keyboard's way in */}
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a click on the drawing opens the day under it */}
      <div
        ref={ref}
        class="calendar"
        style={{ height: `${height}px` }}
        onClick={(event) => {
          const date = dayAt(event)
          if (date === null) return
          setFocus(date)
          onPick(date)
        }}
      >
        <svg width={width} height={height} class="calendar-svg" aria-hidden="true">
          {Array.from({ length: 31 }, (_, i) => i + 1)
            .filter((d) => !L.narrow || d === 1 || d % 5 === 0)
            .map((d) => (
              <text key={d} x={L.label + (d - 0.5) * L.column - L.gap / 2} y={11} class="cal-daynum">
                {d}
              </text>
            ))}
          {months.map((m, row) => (
            <text key={m.key} x={0} y={L.head + row * (L.row + L.gap) + L.row / 2 + 4} class="cal-month">
              {shortMonth(m.month)} {L.narrow ? `’${String(m.year).slice(2)}` : m.year}
            </text>
          ))}
          {paths.map(({ colour, d }) => (
            <path key={colour} d={d} fill={colour} class="cal-days" />
          ))}
          {sel !== null && <rect x={sel.x} y={sel.y} width={sel.w} height={sel.h} class="cal-selected" />}
        </svg>
        {/* biome-ignore lint/a11y/useSemanticElements: a table would put every day in the DOM; only the focused one is */}
        <div
          role="grid"
          aria-label={w("calendar.grid", { variable: VARIABLE_NAME[variable], from: longDate(start), to: longDate(end) })}
          aria-describedby="calendar-help"
          aria-rowcount={months.length}
          aria-colcount={31}
          class="cal-grid"
          onKeyDown={onKeyDown}
        >
          {/* biome-ignore lint/a11y/useSemanticElements: the focused day's row (see the grid) */}
          {/* biome-ignore lint/a11y/useFocusableInteractive: a grid row is not focused itself; its cell is (the APG grid pattern) */}
          <div role="row" aria-rowindex={focusRow + 1}>
            {/* biome-ignore lint/a11y/useSemanticElements: the one day of the grid in the DOM (see the grid) */}
            <div
              key={focus}
              ref={cell}
              role="gridcell"
              tabIndex={0}
              data-date={focus}
              aria-colindex={focusColumn + 1}
              aria-label={describe(focus)}
              aria-selected={focus === selected}
              class="cal-focus"
              style={{ left: `${at.x}px`, top: `${at.y}px`, width: `${at.w}px`, height: `${at.h}px` }}
            />
          </div>
        </div>
      </div>
      <p id="calendar-help" class="help">
        {w("calendar.help")}
      </p>
    </div>
  )
}
