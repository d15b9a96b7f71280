/**
 * Everything of a place below today's grades: the coming 16 days, the day view with its date field,
 * the two-year calendar, the climate context, the spells and the provenance. A chunk of its own,
 * fetched once the grades show; each section is drawn when it comes near the screen. The calendar's
 * drawing and keyboard model, the climate context and the spells (with their data) are further chunks.
 */
import { useSignal } from "@preact/signals"
import type { ComponentChildren } from "preact"
import { lazy, WhenNear } from "../lazy.js"
import { longDate, sinceYearOf, VARIABLE_NAME, VARIABLES } from "../format.js"
import { PageMessages } from "@climate-grade/core/rules"
import { lang, w } from "../i18n/index.js"
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

/**
 * A section below the grades, drawn when it comes near the screen (`WhenNear`): a phone shows none
 * of them on its first screen, and drawing them all at load was about half the page's main-thread
 * work there (the forecast strip alone is some 340 elements). Until then its panel and title stand in
 * for it, tall enough that scrolling brings one section near at a time, so the page's headings, a
 * link to `#id` and a screen reader's list of headings still find every section.
 */
const Later = ({ id, title, now = false, children }: { id: string; title: string; now?: boolean; children: ComponentChildren }) => (
  <WhenNear
    now={now}
    placeholder={
      <section class="panel section-pending" aria-labelledby={`${id}-title`} id={id}>
        <h2 id={`${id}-title`}>{title}</h2>
      </section>
    }
  >
    {children}
  </WhenNear>
)

export const Details = () => {
  const p = place.value
  const calendarVariable = useSignal<Variable>("tmax")
  if (p === null) return null
  const u = units.value
  const day = shownDay.value
  const todayDay = p.day.data
  const n = todayDay.variables.tmax.climatology.n
  const sinceYear = sinceYearOf(Math.max(n, todayDay.variables.tmin.climatology.n), todayDay.date)
  const selected = day?.data.date ?? null
  const dayTitle = day === null ? w("day.title") : w("day.title.date", { date: longDate(day.data.date) })
  return (
    <>
      {p.forecast !== null && (
        <Later id="forecast" title={w("forecast.title")}>
          <Section id="forecast" title={w("forecast.title")} intro={w("forecast.intro")}>
            <ForecastStrip forecast={p.forecast.data} units={u} selected={selected} today={today.value} onPick={pickDate} />
            <Legend variable="tmax" records={false} />
            <Legend variable="precip" records={false} />
          </Section>
        </Later>
      )}
      {/* An address with a day in it came for that day: its view is drawn at once. */}
      <Later id="day" title={dayTitle} now={address.value.date !== null}>
        <Section id="day" title={dayTitle}>
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
      </Later>
      <Later id="calendar" title={w("calendar.title")}>
        <Section id="calendar" title={w("calendar.title")} intro={w("calendar.intro")}>
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
          <CalendarHeatmap calendar={p.calendar.data} units={u} variable={calendarVariable.value} selected={selected} onPick={pickDate} />
          <Legend variable={calendarVariable.value === "precip" ? "precip" : "tmax"} records={false} />
        </Section>
      </Later>
      {/* These two fetch their chunk and their data only once drawn. */}
      <Later id="trend" title={w("context.title")}>
        <ClimateContext cell={p.cell} units={u} />
      </Later>
      <Later id="spells" title={PageMessages.t(lang(), "spells.title")}>
        <Spells cell={p.cell} today={today.value} />
      </Later>
      <Later id="about" title={w("about.title")}>
        <Section id="about" title={w("about.title")}>
          <Provenance
            cell={p.cell}
            recordEnd={p.calendar.data.end}
            sinceYear={sinceYear}
            n={n}
            issued={p.grade?.data.issued ?? p.forecast?.data.issued ?? null}
          />
        </Section>
      </Later>
    </>
  )
}
