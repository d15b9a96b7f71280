/**
 * The main page: pick a place, see how unusual today is there, the coming days, any day of the last
 * two years, and where the numbers come from. Each section is its own component.
 */
import { useSignal } from "@preact/signals"
import type { ComponentChildren } from "preact"
import { formatAddress } from "./address.js"
import { CalendarHeatmap } from "./components/CalendarHeatmap.js"
import { DayView } from "./components/DayView.js"
import { ForecastStrip } from "./components/ForecastStrip.js"
import { Headlines } from "./components/Headlines.js"
import { Legend } from "./components/Legend.js"
import { CoordinatesForm, LocateButton, RecentPlaces, SearchBox } from "./components/PlacePicker.js"
import { Provenance } from "./components/Provenance.js"
import { UnitsSwitch } from "./components/UnitsSwitch.js"
import { WatchPlace } from "./components/WatchPlace.js"
import { CellMap, WorldMap } from "./components/WorldMap.js"
import { formatCoordinates, longDate, sinceYearOf, VARIABLE_NAME, VARIABLES, verdict } from "./format.js"
import type { Variable } from "./payloads.js"
import {
  address,
  dayFailure,
  dayLoading,
  failure,
  go,
  loading,
  offline,
  place,
  recent,
  setUnits,
  shownDay,
  today,
  units
} from "./state.js"
import type { RecentPlace } from "./storage.js"

const pick = (lat: number, lon: number) => go({ lat: Number(lat.toFixed(4)), lon: Number(lon.toFixed(4)), date: null })
const pickDate = (date: string) => go({ date: date === today.value ? null : date })
const hrefFor = (p: RecentPlace) => formatAddress({ lat: p.lat, lon: p.lon, date: null, units: address.value.units })

const Section = ({ id, title, children, intro }: { id: string; title: string; intro?: ComponentChildren; children: ComponentChildren }) => (
  <section class="panel" aria-labelledby={`${id}-title`} id={id}>
    <h2 id={`${id}-title`}>{title}</h2>
    {intro !== undefined && <p class="intro">{intro}</p>}
    {children}
  </section>
)

const OfflineNotice = () =>
  offline.value ? (
    <p class="offline" role="status">
      You are offline or the weather service cannot be reached: this is a stored copy
      {place.value === null ? "" : ` from ${new Date(place.value.calendar.storedAt).toLocaleString()}`}. It updates when the
      connection is back.
    </p>
  ) : null

const Welcome = () => (
  <div class="welcome">
    <p class="lead">
      Pick any place on Earth — by name, on the map, or where you are — and see today, the coming 16 days and the last
      two years graded against that place's own weather since 1940.
    </p>
    <p class="muted">Try:</p>
    <ul class="examples">
      {(
        [
          ["Berlin, DE", 52.52, 13.4],
          ["New York, US", 40.71, -74.01],
          ["Tokyo, JP", 35.68, 139.69],
          ["Nairobi, KE", -1.29, 36.82],
          ["Sydney, AU", -33.87, 151.21]
        ] as const
      ).map(([label, lat, lon]) => (
        <li key={label}>
          <a
            href={hrefFor({ label, lat, lon })}
            class="place-link"
            onClick={(event) => {
              if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
              event.preventDefault()
              pick(lat, lon)
            }}
          >
            {label}
          </a>
        </li>
      ))}
    </ul>
  </div>
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
        Show another day
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
        Open day
      </button>
      {selected !== null && selected !== today.value && (
        <button type="button" class="button" onClick={() => go({ date: null })}>
          Back to today
        </button>
      )}
    </form>
  )
}

const PlaceView = () => {
  const p = place.value!
  const u = units.value
  const day = shownDay.value
  const calendarVariable = useSignal<Variable>("tmax")
  const todayDay = p.day.data
  const n = todayDay.variables.tmax.climatology.n
  const sinceYear = sinceYearOf(Math.max(n, todayDay.variables.tmin.climatology.n), todayDay.date)
  const selected = day?.data.date ?? null
  return (
    <>
      <Section id="today" title={`Today, ${longDate(todayDay.date)}`}>
        <Headlines grade={p.grade?.data ?? null} day={todayDay} units={u} sinceYear={sinceYear} />
      </Section>
      {p.forecast !== null && (
        <Section
          id="forecast"
          title="The next 16 days"
          intro="Each value on the colour of its grade against the same dates in other years. Choose a day to see it in detail."
        >
          <ForecastStrip forecast={p.forecast.data} units={u} selected={selected} today={today.value} onPick={pickDate} />
          <Legend variable="tmax" records={false} />
          <Legend variable="precip" records={false} />
        </Section>
      )}
      <Section id="day" title={day === null ? "The day" : `The day: ${longDate(day.data.date)}`}>
        <div aria-live="polite" aria-busy={dayLoading.value}>
          {dayLoading.value && <p class="muted">Loading {address.value.date}…</p>}
          {dayFailure.value !== null && <p class="error-text">That day could not be loaded: {dayFailure.value}</p>}
        </div>
        {day !== null && <DayView day={day.data} units={u} />}
        <DatePicker
          key={selected ?? "today"}
          selected={selected}
          min={sinceYear === null ? "1940-01-01" : `${sinceYear}-01-01`}
          max={p.forecast?.data.days.at(-1)?.date ?? todayDay.date}
        />
      </Section>
      <Section
        id="calendar"
        title="The last two years"
        intro="Every day since two years ago, coloured by how it ranked among the same dates in other years. Choose a day to open it."
      >
        <fieldset class="toggle">
          <legend class="sr-only">Show in the calendar</legend>
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
      <Section id="about" title="About these numbers">
        <Provenance
          cell={p.cell}
          recordEnd={p.calendar.data.end}
          sinceYear={sinceYear}
          n={n}
          issued={p.grade?.data.issued ?? p.forecast?.data.issued ?? null}
        />
      </Section>
    </>
  )
}

export const App = () => {
  const p = place.value
  const a = address.value
  const chosen = a.lat !== null && a.lon !== null ? { lat: a.lat, lon: a.lon } : null
  return (
    <>
      <a href="#main" class="skip">
        Skip to the grades
      </a>
      <header class="top">
        <div class="brand">
          <span class="logo" aria-hidden="true" />
          <span class="brand-name">Climate grade</span>
        </div>
        <UnitsSwitch units={units.value} onChange={setUnits} />
      </header>
      <section class="finder" aria-label="Find a place">
        <div class="finder-controls">
          <SearchBox onPick={pick} hrefFor={hrefFor} />
          <div class="finder-row">
            <LocateButton onPick={pick} />
            <CoordinatesForm onPick={pick} />
          </div>
          <RecentPlaces places={recent.value} hrefFor={hrefFor} onPick={pick} />
        </div>
      </section>
      <main id="main">
        <div class="place-head">
          <div class="place-title">
            {p !== null ? (
              <>
                <h1>{p.cell.label ?? formatCoordinates(p.cell.lat, p.cell.lon)}</h1>
                {p.grade !== null && <p class="verdict">{verdict(p.grade.data.variables)}</p>}
                <p class="muted">
                  Cell {formatCoordinates(p.cell.lat, p.cell.lon)} · {p.cell.timezone}
                </p>
                {chosen !== null && <WatchPlace lat={chosen.lat} lon={chosen.lon} cellLat={p.cell.lat} cellLon={p.cell.lon} />}
              </>
            ) : (
              <h1>{chosen === null ? "How unusual is today's weather?" : formatCoordinates(chosen.lat, chosen.lon)}</h1>
            )}
            <div aria-live="polite">
              {loading.value && <p class="loading">Loading the weather and its 85-year history…</p>}
              {failure.value !== null && <p class="error-text">This place could not be loaded: {failure.value}</p>}
            </div>
            <OfflineNotice />
            {chosen === null && <Welcome />}
          </div>
          <div class={chosen === null ? "maps" : "maps has-cell"}>
            <WorldMap chosen={chosen} onPick={pick} />
            {chosen !== null && <CellMap lat={chosen.lat} lon={chosen.lon} onPick={pick} />}
          </div>
        </div>
        {p !== null && <PlaceView />}
      </main>
      <footer class="foot">
        <p>
          Weather: ERA5 and forecasts via Open-Meteo (CC BY 4.0). Places: © OpenStreetMap contributors. Map: Natural
          Earth. <a href="alerts">Account and alerts</a>
        </p>
      </footer>
    </>
  )
}
