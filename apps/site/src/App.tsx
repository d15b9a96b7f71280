/**
 * The main page: pick a place, see how unusual today is there, the coming days, any day of the last
 * two years, and where the numbers come from. Each section is its own component. What the first view
 * needs (the finder, the place's heading and today's grades) is in this module's chunk; the rest is
 * fetched once the grades show: the sections below them, the maps, and "Watch this place" for a
 * browser last seen signed in.
 */
import { Cell } from "@climate-grade/core/rules"
import { boundsOf, dayWhen, formatCoordinates, formatStamp, isDemo, longDate, ltr, placeName, placeTitle, SITE_NAME, sinceYearOf, verdict, welcomeTitle } from "./format.js"
import { LanguagePicker } from "./components/LanguagePicker.js"
import { lang, servedLanguage, w } from "./i18n/index.js"
import { Headlines } from "./components/Headlines.js"
import { CoordinatesForm, LocateButton, RecentPlaces, SearchBox } from "./components/PlacePicker.js"
import { Section } from "./components/Section.js"
import { SignInToWatch } from "./components/SignInToWatch.js"
import { UnitsSwitch } from "./components/UnitsSwitch.js"
import { lazy, WhenNear } from "./lazy.js"
import { registerServiceWorker } from "./serviceWorker.js"
import { accountHref } from "./returnPath.js"
import { address, failure, hrefFor, loading, offline, pick, place, problem, recent, returnPath, setUnits, today, top, units } from "./state.js"
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

// The notice of a heat wave or cold spell on or coming: its chunk and its data once the grades show.
const SpellNotice = lazy(() => import("./components/SpellNotice.js").then((m) => m.SpellNotice))

const WatchPlace = lazy(
  () => import("./components/WatchPlace.js").then((m) => m.WatchPlace),
  () => <p class="watch-place muted">{w("watch.checking")}</p>
)

/**
 * A place picked from a list that goes away (search results, recent places, the examples): the
 * keyboard's focus moves to the place's heading, not to the page's start.
 */
const pickAndFocus = (lat: number, lon: number, name?: string | null) => {
  pick(lat, lon, name)
  requestAnimationFrame(() => document.getElementById("place-heading")?.focus())
}

const OfflineNotice = () =>
  offline.value ? (
    <p class="offline" role="status">
      {place.value === null ? w("offline") : w("offline.from", { stamp: formatStamp(place.value.calendar.storedAt) })}
    </p>
  ) : null

const Welcome = () => (
  <div class="welcome">
    <p class="lead">{w("welcome.lead")}</p>
    <p class="muted">{w("welcome.try")}</p>
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
            href={hrefFor({ lat, lon, name: label })}
            class="place-link"
            onClick={(event) => {
              if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
              event.preventDefault()
              pickAndFocus(lat, lon, label)
            }}
          >
            {label}
          </a>
        </li>
      ))}
    </ul>
  </div>
)

/**
 * The day at the top: "Today" only for the cell's date by this device's clock, with today's grades
 * from the grade view or the stored forecast's entry for today; a stored copy of another day is
 * named by its date and says so.
 */
const TodayView = () => {
  const p = place.value!
  const storedDay = p.day.data
  const shown = top.value!
  const sinceYear = sinceYearOf(Math.max(storedDay.variables.tmax.climatology.n, storedDay.variables.tmin.climatology.n), storedDay.date)
  return (
    <>
      <SpellNotice cell={p.cell} today={today.value} />
      <Section id="today" title={shown.isToday ? w("today.title", { date: longDate(shown.date) }) : longDate(shown.date)}>
        {!shown.isToday && (
          <p class="notice stale-day">{w("today.stale", { date: longDate(shown.date), today: longDate(today.value!) })}</p>
        )}
        {shown.isToday && shown.from === "forecast" && (
          <p class="muted small">{w("today.from-forecast", { stamp: formatStamp(p.forecast!.storedAt) })}</p>
        )}
        <Headlines
          grades={shown.grades}
          date={shown.date}
          when={dayWhen(shown.date, today.value!)}
          day={storedDay}
          units={units.value}
          sinceYear={sinceYear}
        />
      </Section>
    </>
  )
}

/** Whether this page has set its title yet: until then it is the server's, made for this very address. */
let titled = false

/**
 * The document's title follows the place shown: for today, the words of the server's head for the
 * place's address (so the tab, history and a shared link's preview agree); the place alone while it
 * loads or when it failed; the page's own title without a place.
 */
const useTitle = (heading: string | null) => {
  const p = place.value
  const shown = top.value
  const u = units.value
  const why = problem.value
  const failed = failure.value
  useEffect(() => {
    let title: string
    if (heading === null) title = why === null ? welcomeTitle() : w("title.none", { site: SITE_NAME })
    else if (p !== null) title = placeTitle(heading, shown, u)
    else if (failed !== null) title = w("title.failed", { place: heading, site: SITE_NAME })
    else if (titled || lang() !== servedLanguage()) title = w("title.place", { place: heading, site: SITE_NAME })
    // The first load of a place: the server's head already names it (with its grades when held).
    else return
    titled = true
    document.title = title
  }, [heading, p, shown, u, why, failed])
}

export const App = () => {
  const p = place.value
  const a = address.value
  const chosen = a.lat !== null && a.lon !== null ? { lat: a.lat, lon: a.lon } : null
  const settled = chosen === null || p !== null || failure.value !== null
  // The heading is the name picked in the search when there is one; the cell's label stays beside it.
  const heading = chosen === null ? null : p !== null ? placeName(p.cell, a.name) : (a.name ?? formatCoordinates(chosen.lat, chosen.lon))
  const shown = top.value
  const back = accountHref(returnPath(heading))
  useTitle(heading)
  // The offline copy of the site is made once the page has shown what it came for.
  useEffect(() => {
    if (settled) registerServiceWorker()
  }, [settled])
  return (
    <>
      <a href="#main" class="skip">
        {w("skip")}
      </a>
      <header class="top">
        <div class="brand">
          <span class="logo" aria-hidden="true" />
          <span class="brand-name">{w("brand")}</span>
        </div>
        <div class="top-controls">
          <LanguagePicker />
          <UnitsSwitch units={units.value} onChange={setUnits} />
        </div>
      </header>
      <main id="main">
        {/* The place and today's grades come first (on a phone they fill the first screen); the finder
            and the maps follow, then the sections below the grades. */}
        <div class={p === null && chosen !== null && failure.value === null ? "place-title is-pending" : "place-title"}>
          <h1 id="place-heading" tabIndex={-1}>
            {heading ?? w("heading.welcome")}
          </h1>
          {p !== null && (
            <>
              {shown !== null && shown.grades !== null && <p class="verdict">{verdict(shown.grades, shown.isToday ? undefined : shown.date, boundsOf(p.day.data, shown.date))}</p>}
              <p class="muted place-cell">
                {a.name !== null && p.cell.label !== null && p.cell.label !== a.name && (
                  <>
                    <span class="cell-label">{p.cell.label}</span> ·{" "}
                  </>
                )}
                {w("cell", { coordinates: ltr(formatCoordinates(p.cell.lat, p.cell.lon)), zone: ltr(p.cell.timezone) })}
              </p>
            </>
          )}
          <div aria-live="polite">
            {loading.value && <p class="loading">{w("loading")}</p>}
            {failure.value !== null && <p class="error-text">{w("failed", { why: failure.value })}</p>}
          </div>
          <OfflineNotice />
          {problem.value !== null && chosen === null && (
            <p class="error-text address-problem" role="alert">
              {w("address.fix", { problem: problem.value })}
            </p>
          )}
          {chosen === null && <Welcome />}
        </div>
        {p !== null ? <TodayView /> : chosen !== null && failure.value === null && <div class="today-pending" />}
        {/* Watching comes after the grades: on a phone they keep the first screen. */}
        {p !== null && chosen !== null && (
          <div class="watch-row">
            {maybeSignedIn() ? (
              <WatchPlace lat={chosen.lat} lon={chosen.lon} cellLat={p.cell.lat} cellLon={p.cell.lon} name={a.name} accountHref={back} />
            ) : (
              <SignInToWatch href={back} />
            )}
          </div>
        )}
        <div class={chosen === null ? "find" : "find has-place"}>
          <section class="finder" aria-label={w("finder")}>
            {chosen !== null && <h2 class="finder-title">{w("finder.another")}</h2>}
            <div class="finder-controls">
              <SearchBox onPick={pickAndFocus} hrefFor={hrefFor} placeKey={`${a.lat},${a.lon},${a.name ?? ""}`} />
              <div class="finder-row">
                <LocateButton onPick={pick} />
                <CoordinatesForm onPick={pick} />
              </div>
              {/* The places shown before, not the one shown now. */}
              <RecentPlaces
                places={recent.value.filter((r) => chosen === null || Cell.fromCoordinates(r.lat, r.lon).key !== Cell.fromCoordinates(chosen.lat, chosen.lon).key)}
                hrefFor={hrefFor}
                onPick={pickAndFocus}
              />
            </div>
          </section>
          {/* The maps' code is fetched once the grades show (or at once without a place to load), and
              only when they come near the screen: on a phone they are below the first one. */}
          <div class={chosen === null ? "maps" : "maps has-cell"}>
            {settled ? (
              <>
                <WhenNear placeholder={<div class="worldmap map-pending" />}>
                  <WorldMap chosen={chosen} onPick={pick} />
                </WhenNear>
                {chosen !== null && (
                  <WhenNear placeholder={<div class="cellmap map-pending" />}>
                    <CellMap lat={chosen.lat} lon={chosen.lon} onPick={pick} />
                  </WhenNear>
                )}
              </>
            ) : (
              <>
                <div class="worldmap map-pending" />
                {chosen !== null && <div class="cellmap map-pending" />}
              </>
            )}
          </div>
        </div>
        {p !== null && <Details />}
      </main>
      <footer class="foot">
        <p>
          {isDemo() ? w("foot.weather.demo") : w("foot.weather")}
          {w("foot.credits")}
          <a href={back}>{w("foot.account")}</a>
        </p>
      </footer>
    </>
  )
}
