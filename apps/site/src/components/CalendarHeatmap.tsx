/**
 * Two years as a heat map: one row per month, one column per day of the month, each day on the colour
 * of its percentile. It is an ARIA grid with a roving tabindex: Tab enters at one day, the arrow keys
 * move by a day (left/right) or a month (up/down), Home/End go to the month's ends, Page Up/Down move
 * a year, and Enter or Space opens the day. Every cell's accessible name says its date, value and
 * percentile.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks"
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
import type { CalendarPayload, Units, Variable } from "../payloads.js"

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

const DAYS = Array.from({ length: 31 }, (_, i) => i + 1)

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
  const table = useRef<HTMLTableElement>(null)
  const moved = useRef(false)

  // Follow the day view when it changes elsewhere (forecast strip, address), without stealing focus.
  useEffect(() => {
    if (selected !== null && selected >= start && selected <= end) setFocus(selected)
  }, [selected, start, end])

  useEffect(() => {
    if (!moved.current) return
    moved.current = false
    table.current?.querySelector<HTMLElement>(`[data-date="${focus}"]`)?.focus()
  }, [focus])

  const series = calendar.series[variable]
  const unit = variable === "precip" ? "mm" : "°C"

  const describe = (date: string): string => {
    const i = index.get(date)
    const value = i === undefined ? null : (series.values[i] ?? null)
    const p = i === undefined ? null : (series.percentiles[i] ?? null)
    const grade =
      p === null ? "no percentile" : `percentile ${formatPercentile(p)}, ${labelWords(variable, labelOfPercentile(p))}`
    return `${longDate(date)}: ${VARIABLE_NOUN[variable]} ${formatValue(value, unit, units)}, ${grade}`
  }

  const onKeyDown = (event: KeyboardEvent) => {
    const moves: Record<string, (d: string) => string> = {
      ArrowLeft: (d) => addDays(d, -1),
      ArrowRight: (d) => addDays(d, 1),
      ArrowUp: (d) => moveMonths(d, -1),
      ArrowDown: (d) => moveMonths(d, 1),
      Home: (d) => `${d.slice(0, 8)}01`,
      End: (d) => `${d.slice(0, 8)}${String(monthLength(Number(d.slice(0, 4)), Number(d.slice(5, 7)))).padStart(2, "0")}`,
      PageUp: (d) => moveMonths(d, -12),
      PageDown: (d) => moveMonths(d, 12)
    }
    const move = moves[event.key]
    if (move !== undefined) {
      event.preventDefault()
      moved.current = true
      // From the latest focus, not this render's: keys can arrive faster than the grid re-renders.
      setFocus((current) => clampDate(move(current), start, end))
      return
    }
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault()
      const cell = (event.target as HTMLElement).closest<HTMLElement>("[data-date]")
      onPick(cell?.dataset.date ?? focus)
    }
  }

  return (
    <div class="calendar-wrap">
      <table
        ref={table}
        class="calendar"
        // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: a table is the ARIA grid pattern's own markup (WAI-ARIA APG "Data Grid")
        role="grid"
        aria-label={`${VARIABLE_NAME[variable]} by day, ${longDate(start)} to ${longDate(end)}`}
        aria-describedby="calendar-help"
        onKeyDown={onKeyDown}
      >
        <thead>
          <tr>
            <th scope="col" class="cal-corner">
              <span class="sr-only">Month</span>
            </th>
            {DAYS.map((d) => (
              <th key={d} scope="col" class={`cal-daynum${d === 1 || d % 5 === 0 ? "" : " minor"}`}>
                {d}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {months.map((m) => (
            <tr key={m.key}>
              <th scope="row" class="cal-month">
                {shortMonth(m.month)} <span class="y-long">{m.year}</span>
                <span class="y-short" aria-hidden="true">
                  ’{String(m.year).slice(2)}
                </span>
              </th>
              {DAYS.map((d) => {
                const date = `${m.key}-${String(d).padStart(2, "0")}`
                if (d > m.length || date < start || date > end) return <td key={d} class="cal-none" />
                const i = index.get(date)
                const p = i === undefined ? null : (series.percentiles[i] ?? null)
                return (
                  // biome-ignore lint/a11y/useKeyWithClickEvents: the grid handles keys for every cell (roving tabindex)
                  <td
                    key={d}
                    // biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the cells of an ARIA grid table are gridcells
                    role="gridcell"
                    data-date={date}
                    tabIndex={date === focus ? 0 : -1}
                    aria-label={describe(date)}
                    aria-selected={date === selected}
                    class={`cal-day${date === selected ? " is-selected" : ""}`}
                    style={{ background: p === null ? NO_DATA : percentileColor(variable, p) }}
                    onClick={() => {
                      setFocus(date)
                      onPick(date)
                    }}
                  />
                )
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <p id="calendar-help" class="help">
        Use the arrow keys to move by day or month, Enter to open a day.
      </p>
    </div>
  )
}
