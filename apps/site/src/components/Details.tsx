/**
 * Everything of a place below today's grades: the coming 16 days, the day view with its date field,
 * the two-year calendar, the climate context and the provenance. A chunk of its own, fetched once the
 * grades show; the calendar's drawing and keyboard model, and the climate context with its data, are
 * further chunks.
 */
import { useSignal } from "@preact/signals"
import { useEffect, useState } from "preact/hooks"
import { lazy } from "../lazy.js"
import { longDate, sinceYearOf, VARIABLE_NAME, VARIABLES } from "../format.js"
import { w } from "../i18n/index.js"
import type { Variable } from "../payloads.js"
import { address, baseDay, dayFailure, dayLoading, go, pickDate, place, shownDay, today, units } from "../state.js"
import { DayView } from "./DayView.js"
import { ForecastStrip } from "./ForecastStrip.js"
import { Legend } from "./Legend.js"
import { Provenance } from "./Provenance.js"
import { Section } from "./Section.js"

const ClimateContext = lazy(
  () => import("./ClimateContext.js").then((m) => m.ClimateContext),
  () => <div class="trend-pending" />
)

const Spells = lazy(
  () => import("./Spells.js").then((m) => m.Spells),
  () => <div class="spells-pending" />
)

const CalendarHeatmap = lazy(
  () => import("./CalendarHeatmap.js").then((m) => m.CalendarHeatmap),
  () => <div class="calendar-pending" />
)

/** Any day of the record or the forecast, e.g. a birthday in 1975. */
const DatePicker = ({ selected, min, max }: { selected: string | null; min: string; max: string }) => {
  const value = useSignal(selected ?? "")
  const submit = (event: Event) => {
    event.preventDefault()
    if (/^\d{4}-\d{2}-\d{2}$/.test(value.value)) pickDate(value.value)
  }
  return (
    <form class="datepicker" onSubmit={submit}>
      <label>
        {w("day.another")}
        <input
          type="date"
          min={min}
          max={max}
          value={value.value}
          onInput={(e) => {
            value.value = (e.currentTarget as HTMLInputElement).value
          }}
        />
      </label>
      <button type="submit" class="button">
        {w("day.open")}
      </button>
      {selected !== null && baseDay.value !== null && selected !== baseDay.value && (
        <button type="button" class="button" onClick={() => go({ date: null })}>
          {/* Without date= the page shows the stored day view: today's unless the copy is older. */}
          {baseDay.value === today.value ? w("day.back-today") : w("day.back-to", { date: longDate(baseDay.value) })}
        </button>
      )}
    </form>
  )
}

/** The sections, in page order. */
const SECTIONS = 4

/**
 * How many sections are drawn: one more per task, so that drawing what lies below the grades never
 * holds the main thread long in one piece (a phone's long tasks are what makes a page feel stuck).
 */
const useProgressive = (total: number) => {
  const [shown, setShown] = useState(1)
  useEffect(() => {
    if (shown >= total) return
    const next = setTimeout(() => setShown(shown + 1), 0)
    return () => clearTimeout(next)
  }, [shown, total])
  return shown
}

export const Details = () => {
  const p = place.value
  const calendarVariable = useSignal<Variable>("tmax")
  const shown = useProgressive(SECTIONS)
  if (p === null) return null
  const u = units.value
  const day = shownDay.value
  const todayDay = p.day.data
  const n = todayDay.variables.tmax.climatology.n
  const sinceYear = sinceYearOf(Math.max(n, todayDay.variables.tmin.climatology.n), todayDay.date)
  const selected = day?.data.date ?? null
  return (
    <>
      {p.forecast !== null && (
        <Section
          id="forecast"
          title={w("forecast.title")}
          intro={w("forecast.intro")}
        >
          <ForecastStrip forecast={p.forecast.data} units={u} selected={selected} today={today.value} onPick={pickDate} />
          <Legend variable="tmax" records={false} />
          <Legend variable="precip" records={false} />
        </Section>
      )}
      {shown >= 2 && (
        <Section id="day" title={day === null ? w("day.title") : w("day.title.date", { date: longDate(day.data.date) })}>
          <div aria-live="polite" aria-busy={dayLoading.value}>
            {dayLoading.value && <p class="muted">{w("day.loading", { date: address.value.date ?? "" })}</p>}
            {dayFailure.value !== null && <p class="error-text">{w("day.failed", { why: dayFailure.value })}</p>}
          </div>
          {day !== null && <DayView day={day.data} units={u} />}
          <DatePicker
            key={selected ?? "today"}
            selected={selected}
            min={sinceYear === null ? "1940-01-01" : `${sinceYear}-01-01`}
            max={p.forecast?.data.days.at(-1)?.date ?? todayDay.date}
          />
        </Section>
      )}
      {shown >= 3 && (
        <Section
          id="calendar"
          title={w("calendar.title")}
          intro={w("calendar.intro")}
        >
          <fieldset class="toggle">
            <legend class="sr-only">{w("calendar.show")}</legend>
            {VARIABLES.map((v) => (
              <label key={v} class={calendarVariable.value === v ? "is-on" : ""}>
                <input
                  type="radio"
                  name="calendar-variable"
                  value={v}
                  checked={calendarVariable.value === v}
                  onChange={() => {
                    calendarVariable.value = v
                  }}
                />
                {VARIABLE_NAME[v]}
              </label>
            ))}
          </fieldset>
          <CalendarHeatmap
            calendar={p.calendar.data}
            units={u}
            variable={calendarVariable.value}
            selected={selected}
            onPick={pickDate}
          />
          <Legend variable={calendarVariable.value === "precip" ? "precip" : "tmax"} records={false} />
        </Section>
      )}
      {/* Its placeholder until its chunk is here: drawn in the provenance's task. */}
      {shown >= 4 && <ClimateContext cell={p.cell} units={u} />}
      {shown >= 4 && <Spells cell={p.cell} today={today.value} />}
      {shown >= 4 && (
        <Section id="about" title={w("about.title")}>
          <Provenance
            cell={p.cell}
            recordEnd={p.calendar.data.end}
            sinceYear={sinceYear}
            n={n}
            issued={p.grade?.data.issued ?? p.forecast?.data.issued ?? null}
          />
        </Section>
      )}
      {shown < SECTIONS && <div class="details-pending" />}
    </>
  )
}
