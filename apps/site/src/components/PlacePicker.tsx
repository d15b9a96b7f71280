/**
 * Finding a place: a search box (on submit only: Nominatim forbids autocomplete), the browser's
 * location, typed coordinates, and the places visited before.
 */
import { useState } from "preact/hooks"
import { getJson } from "../api.js"
import { formatCoordinates } from "../format.js"
import type { RecentPlace } from "../storage.js"

export interface FoundPlace {
  readonly label: string
  readonly lat: number
  readonly lon: number
}

type SearchState =
  | { readonly tag: "idle" }
  | { readonly tag: "searching"; readonly q: string }
  | { readonly tag: "found"; readonly q: string; readonly places: ReadonlyArray<FoundPlace> }
  | { readonly tag: "failed"; readonly message: string }

export interface PlaceLinkProps {
  readonly place: RecentPlace
  readonly href: string
  readonly onPick: (lat: number, lon: number) => void
}

/** A real link (open in a new tab, copy, share) that navigates in place on a plain click. */
export const PlaceLink = ({ place, href, onPick }: PlaceLinkProps) => (
  <a
    href={href}
    class="place-link"
    onClick={(event) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
      event.preventDefault()
      onPick(place.lat, place.lon)
    }}
  >
    {place.label}
  </a>
)

const isPlaces = (x: unknown): x is { places: ReadonlyArray<FoundPlace> } =>
  typeof x === "object" && x !== null && Array.isArray((x as { places?: unknown }).places)

export const SearchBox = ({ onPick, hrefFor }: { onPick: (lat: number, lon: number) => void; hrefFor: (p: RecentPlace) => string }) => {
  const [q, setQ] = useState("")
  const [state, setState] = useState<SearchState>({ tag: "idle" })
  const submit = async (event: Event) => {
    event.preventDefault()
    const text = q.trim()
    if (text === "") {
      setState({ tag: "failed", message: "Type a place name first, e.g. Lisbon." })
      return
    }
    setState({ tag: "searching", q: text })
    try {
      const answer = await getJson<unknown>(`places?q=${encodeURIComponent(text)}`)
      if (answer.body !== null && isPlaces(answer.body)) {
        setState({ tag: "found", q: text, places: answer.body.places })
      } else {
        setState({ tag: "failed", message: answer.detail ?? `The place search answered ${answer.status}.` })
      }
    } catch {
      setState({ tag: "failed", message: "The place search could not be reached. Check the connection, or use the map." })
    }
  }
  return (
    <div class="search">
      <form class="search-form" onSubmit={submit}>
        <label for="place-q" class="search-label">
          Place
        </label>
        <div class="search-row">
          <input
            id="place-q"
            name="q"
            type="search"
            autocomplete="off"
            maxLength={200}
            placeholder="a town, city or region"
            value={q}
            onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)}
          />
          <button type="submit" class="button primary">
            Search
          </button>
        </div>
      </form>
      <div class="search-status" aria-live="polite">
        {state.tag === "searching" && <p class="muted">Searching for “{state.q}”…</p>}
        {state.tag === "failed" && <p class="error-text">{state.message}</p>}
        {state.tag === "found" && state.places.length === 0 && (
          <p class="muted">No place found for “{state.q}”. Try another spelling, or pick it on the map.</p>
        )}
        {state.tag === "found" && state.places.length > 0 && (
          <>
            <p class="sr-only">
              {state.places.length} {state.places.length === 1 ? "place" : "places"} found
            </p>
            <ul class="search-results" aria-label="Search results">
              {state.places.map((p) => (
                <li key={`${p.lat},${p.lon},${p.label}`}>
                  <PlaceLink
                    place={p}
                    href={hrefFor(p)}
                    onPick={(lat, lon) => {
                      setState({ tag: "idle" })
                      onPick(lat, lon)
                    }}
                  />
                  <span class="muted small"> {formatCoordinates(p.lat, p.lon)}</span>
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
    </div>
  )
}

export const LocateButton = ({ onPick }: { onPick: (lat: number, lon: number) => void }) => {
  const [message, setMessage] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const locate = () => {
    if (!("geolocation" in navigator)) {
      setMessage("This browser cannot tell its location. Search for a place or pick it on the map.")
      return
    }
    setBusy(true)
    setMessage("Asking the browser for your location…")
    navigator.geolocation.getCurrentPosition(
      (position) => {
        setBusy(false)
        setMessage(null)
        onPick(position.coords.latitude, position.coords.longitude)
      },
      (error) => {
        setBusy(false)
        setMessage(
          error.code === error.PERMISSION_DENIED
            ? "Location access was refused, so your place is unknown. Allow it in the browser's site settings, or search for a place or pick it on the map."
            : error.code === error.TIMEOUT
              ? "Finding your location took too long. Try again, or search for a place."
              : "Your location could not be found. Search for a place or pick it on the map."
        )
      },
      { enableHighAccuracy: false, timeout: 15_000, maximumAge: 600_000 }
    )
  }
  return (
    <div class="locate">
      <button type="button" class="button" onClick={locate} disabled={busy}>
        Use my location
      </button>
      <p class="locate-status" aria-live="polite">
        {message}
      </p>
    </div>
  )
}

export const CoordinatesForm = ({ onPick }: { onPick: (lat: number, lon: number) => void }) => {
  const [lat, setLat] = useState("")
  const [lon, setLon] = useState("")
  const [error, setError] = useState<string | null>(null)
  const submit = (event: Event) => {
    event.preventDefault()
    const a = Number(lat.trim())
    const b = Number(lon.trim())
    if (lat.trim() === "" || !Number.isFinite(a) || a < -90 || a > 90) {
      setError("Latitude must be a number from −90 (south) to 90 (north).")
      return
    }
    if (lon.trim() === "" || !Number.isFinite(b) || b < -180 || b > 180) {
      setError("Longitude must be a number from −180 (west) to 180 (east).")
      return
    }
    setError(null)
    onPick(a, b)
  }
  return (
    <details class="coords">
      <summary>Enter coordinates</summary>
      <form class="coords-form" onSubmit={submit} noValidate>
        <label>
          Latitude
          <input inputMode="decimal" value={lat} onInput={(e) => setLat((e.currentTarget as HTMLInputElement).value)} placeholder="52.52" />
        </label>
        <label>
          Longitude
          <input inputMode="decimal" value={lon} onInput={(e) => setLon((e.currentTarget as HTMLInputElement).value)} placeholder="13.40" />
        </label>
        <button type="submit" class="button">
          Show
        </button>
      </form>
      <p class="error-text" aria-live="polite">
        {error}
      </p>
    </details>
  )
}

export const RecentPlaces = ({
  places,
  hrefFor,
  onPick
}: {
  places: ReadonlyArray<RecentPlace>
  hrefFor: (p: RecentPlace) => string
  onPick: (lat: number, lon: number) => void
}) =>
  places.length === 0 ? null : (
    <nav class="recent" aria-label="Recent places">
      <span class="recent-title">Recent:</span>
      <ul>
        {places.map((p) => (
          <li key={`${p.lat},${p.lon}`}>
            <PlaceLink place={p} href={hrefFor(p)} onPick={onPick} />
          </li>
        ))}
      </ul>
    </nav>
  )
