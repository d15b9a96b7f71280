/**
 * The main page: pick a place, see how unusual today is there, the coming days, any day of the last
 * two years, and where the numbers come from. Each section is its own component. What the first view
 * needs (the finder, the place's heading and today's grades) is in this module's chunk; the rest is
 * fetched once the grades show: the sections below them, the maps, and "Watch this place" for a
 * browser last seen signed in.
 */
import { formatCoordinates, longDate, sinceYearOf, snap, verdict } from "./format.js"
import { Headlines } from "./components/Headlines.js"
import { CoordinatesForm, LocateButton, RecentPlaces, SearchBox } from "./components/PlacePicker.js"
import { Section } from "./components/Section.js"
import { SignInToWatch } from "./components/SignInToWatch.js"
import { UnitsSwitch } from "./components/UnitsSwitch.js"
import { lazy } from "./lazy.js"
import { registerServiceWorker } from "./serviceWorker.js"
import { address, failure, hrefFor, loading, offline, pick, place, recent, setUnits, units } from "./state.js"
import { maybeSignedIn } from "./storage.js"
import { useEffect } from "preact/hooks"

const Details = lazy(
  () => import("./components/Details.js").then((m) => m.Details),
  () => <div class="details-pending" />
)

const WorldMap = lazy(
  () => import("./map/Maps.js").then((m) => m.WorldMap),
  () => <div class="worldmap map-pending" />
)

const CellMap = lazy(
  () => import("./map/Maps.js").then((m) => m.CellMap),
  () => <div class="cellmap map-pending" />
)

const WatchPlace = lazy(
  () => import("./components/WatchPlace.js").then((m) => m.WatchPlace),
  () => <p class="watch-place muted">Checking your watched places…</p>
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
            href={hrefFor({ lat, lon })}
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

const PlaceView = () => {
  const p = place.value!
  const todayDay = p.day.data
  const sinceYear = sinceYearOf(Math.max(todayDay.variables.tmax.climatology.n, todayDay.variables.tmin.climatology.n), todayDay.date)
  return (
    <>
      <Section id="today" title={`Today, ${longDate(todayDay.date)}`}>
        <Headlines grade={p.grade?.data ?? null} day={todayDay} units={units.value} sinceYear={sinceYear} />
      </Section>
      <Details />
    </>
  )
}

export const App = () => {
  const p = place.value
  const a = address.value
  const chosen = a.lat !== null && a.lon !== null ? { lat: a.lat, lon: a.lon } : null
  const settled = chosen === null || p !== null || failure.value !== null
  // The offline copy of the site is made once the page has shown what it came for.
  useEffect(() => {
    if (settled) registerServiceWorker()
  }, [settled])
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
          {/* The places shown before, not the one shown now: the list is drawn as the page opens and
              does not grow above the place when it loads (which would push the whole page down). */}
          <RecentPlaces
            places={recent.value.filter((r) => chosen === null || snap(r.lat) !== snap(chosen.lat) || snap(r.lon) !== snap(chosen.lon))}
            hrefFor={hrefFor}
            onPick={pick}
          />
        </div>
      </section>
      <main id="main">
        <div class="place-head">
          <div class={p === null && chosen !== null && failure.value === null ? "place-title is-pending" : "place-title"}>
            {p !== null ? (
              <>
                <h1>{p.cell.label ?? formatCoordinates(p.cell.lat, p.cell.lon)}</h1>
                {p.grade !== null && <p class="verdict">{verdict(p.grade.data.variables)}</p>}
                <p class="muted">
                  Cell {formatCoordinates(p.cell.lat, p.cell.lon)} · {p.cell.timezone}
                </p>
                {chosen !== null &&
                  (maybeSignedIn() ? (
                    <WatchPlace lat={chosen.lat} lon={chosen.lon} cellLat={p.cell.lat} cellLon={p.cell.lon} />
                  ) : (
                    <SignInToWatch />
                  ))}
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
          {/* The maps' code is fetched once the grades show (or at once without a place to load). */}
          <div class={chosen === null ? "maps" : "maps has-cell"}>
            {settled ? (
              <>
                <WorldMap chosen={chosen} onPick={pick} />
                {chosen !== null && <CellMap lat={chosen.lat} lon={chosen.lon} onPick={pick} />}
              </>
            ) : (
              <>
                <div class="worldmap map-pending" />
                <div class="cellmap map-pending" />
              </>
            )}
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
