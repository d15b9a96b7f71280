/**
 * Finding a place: a search box (on submit only: Nominatim forbids autocomplete; coordinates typed
 * there open at once), the browser's location, typed coordinates (a decimal comma or a pasted pair
 * too), and the places visited before. A place picked from the search keeps the name picked.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks"
import { fitName } from "../address.js"
import { getJson } from "../api.js"
import { formatCoordinates } from "../format.js"
import { laterWords, w } from "../i18n/index.js"
import type { Failure } from "../refusal.js"
import type { RecentPlace } from "../storage.js"

// Reading coordinates and wording a failure are needed only once something is submitted: chunks of
// their own, so the first view does not carry them.
const coordinates = () => Promise.all([import("../coordinates.js"), laterWords()]).then(([m]) => m)
const failureWords = (failure: Failure) =>
  Promise.all([import("../refusal.js"), laterWords()]).then(
    ([m]) => m.searchFailureWords(failure),
    // The words' chunk did not come either: the network is gone.
    () => w("search.unreachable")
  )

/** What a pick hands the page: the coordinates and, from the search or a named link, the name picked. */
export type OnPick = (lat: number, lon: number, name?: string | null) => void

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
  readonly onPick: OnPick
}

/** A real link (open in a new tab, copy, share) that navigates in place on a plain click. */
export const PlaceLink = ({ place, href, onPick }: PlaceLinkProps) => (
  <a
    href={href}
    class="place-link"
    onClick={(event) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
      event.preventDefault()
      onPick(place.lat, place.lon, place.name ?? null)
    }}
  >
    {place.label}
  </a>
)

const isPlaces = (x: unknown): x is { places: ReadonlyArray<FoundPlace> } =>
  typeof x === "object" && x !== null && Array.isArray((x as { places?: unknown }).places)

/** A search result as a place to link: its label is the name the address keeps. */
const named = (p: FoundPlace): RecentPlace => ({ label: p.label, lat: p.lat, lon: p.lon, name: fitName(p.label) })

export const SearchBox = ({
  onPick,
  hrefFor,
  placeKey
}: {
  onPick: OnPick
  hrefFor: (p: RecentPlace) => string
  /** The place shown: when it changes (any pick, Back), a failure said here is old news and goes. */
  placeKey: string
}) => {
  const [q, setQ] = useState("")
  const [state, setState] = useState<SearchState>({ tag: "idle" })
  useEffect(() => {
    setState((s) => (s.tag === "failed" ? { tag: "idle" } : s))
  }, [placeKey])
  const form = useRef<HTMLFormElement>(null)
  const summary = useRef<HTMLParagraphElement>(null)
  // Results that come while the keyboard is still on the form (Enter, or the button): focus moves to
  // their summary, so the next Tab reaches the first result, not the "Search" button again. In the
  // render that shows them (a layout effect), not after the next paint: a Tab pressed as soon as the
  // results show would otherwise leave the form first, and then have its focus taken back.
  useLayoutEffect(() => {
    if (state.tag !== "found" || state.places.length === 0) return
    if (form.current?.contains(document.activeElement)) summary.current?.focus()
  }, [state])
  const submit = async (event: Event) => {
    event.preventDefault()
    const text = q.trim()
    if (text === "") {
      setState({ tag: "failed", message: w("search.empty") })
      return
    }
    // Coordinates need no geocoder: "48.85 2.35", "48,85 2,35", "48.85°N 2.35°E".
    const pair = await coordinates().then(
      (m) => m.parsePair(text),
      () => ({ tag: "none" }) as const
    )
    if (pair.tag === "invalid") {
      setState({ tag: "failed", message: pair.message })
      return
    }
    if (pair.tag === "pair") {
      setState({ tag: "idle" })
      onPick(pair.lat, pair.lon)
      return
    }
    setState({ tag: "searching", q: text })
    try {
      const answer = await getJson<unknown>(`places?q=${encodeURIComponent(text)}`)
      if (answer.body !== null && isPlaces(answer.body)) {
        setState({ tag: "found", q: text, places: answer.body.places })
      } else {
        setState({ tag: "failed", message: await failureWords({ status: answer.status, detail: answer.detail, code: answer.code, retryAt: answer.retryAt, retryAfter: answer.retryAfter }) })
      }
    } catch {
      // fetch rejects only when no answer came at all.
      setState({ tag: "failed", message: await failureWords({ status: null, detail: null, retryAfter: null }) })
    }
  }
  return (
    <div class="search">
      <form class="search-form" ref={form} onSubmit={submit}>
        <label for="place-q" class="search-label">
          {w("search.label")}
        </label>
        <div class="search-row">
          <input
            id="place-q"
            name="q"
            type="search"
            autocomplete="off"
            maxLength={200}
            placeholder={w("search.placeholder")}
            value={q}
            onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)}
          />
          <button type="submit" class="button primary">
            {w("search.button")}
          </button>
        </div>
      </form>
      <div class="search-status" aria-live="polite">
        {state.tag === "searching" && <p class="muted">{w("search.searching", { q: state.q })}</p>}
        {state.tag === "failed" && <p class="error-text">{state.message}</p>}
        {state.tag === "found" && state.places.length === 0 && (
          <p class="muted">{w("search.none", { q: state.q })}</p>
        )}
        {state.tag === "found" && state.places.length > 0 && (
          <>
            <p class="muted small search-summary" ref={summary} tabIndex={-1}>
              {w(state.places.length === 1 ? "search.found.one" : "search.found", { n: state.places.length, q: state.q })}
            </p>
            <ul class="search-results" aria-label={w("search.results")}>
              {state.places.map((p) => (
                <li key={`${p.lat},${p.lon},${p.label}`}>
                  <PlaceLink
                    place={named(p)}
                    href={hrefFor(named(p))}
                    onPick={(lat, lon, name) => {
                      setState({ tag: "idle" })
                      onPick(lat, lon, name)
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

export const LocateButton = ({ onPick }: { onPick: OnPick }) => {
  const [message, setMessage] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const locate = () => {
    if (!("geolocation" in navigator)) {
      setMessage(w("locate.unsupported"))
      return
    }
    setBusy(true)
    setMessage(w("locate.asking"))
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
            ? w("locate.refused")
            : error.code === error.TIMEOUT
              ? w("locate.timeout")
              : w("locate.failed")
        )
      },
      { enableHighAccuracy: false, timeout: 15_000, maximumAge: 600_000 }
    )
  }
  return (
    <div class="locate">
      <button type="button" class="button" onClick={locate} disabled={busy}>
        {w("locate.button")}
      </button>
      <p class="locate-status" aria-live="polite">
        {message}
      </p>
    </div>
  )
}

export const CoordinatesForm = ({ onPick }: { onPick: OnPick }) => {
  const [lat, setLat] = useState("")
  const [lon, setLon] = useState("")
  const [error, setError] = useState<string | null>(null)
  /** A pair pasted into either field fills both (typed into one field, it counts when submitted). */
  const paste = (event: ClipboardEvent) => {
    const text = event.clipboardData?.getData("text") ?? ""
    void coordinates().then(
      ({ parsePair }) => {
        const pair = parsePair(text)
        if (pair.tag !== "pair") return
        // The paste has put the pair into this field by now; it goes into both instead.
        setLat(String(pair.lat))
        setLon(String(pair.lon))
        setError(null)
      },
      // Without its chunk the pair stays in the field as pasted, and submitting says what went wrong.
      () => undefined
    )
  }
  const submit = async (event: Event) => {
    event.preventDefault()
    const read = await coordinates().then(
      (m) => m.readForm(lat, lon),
      () => ({ tag: "invalid", message: w("coords.unloaded") }) as const
    )
    if (read.tag !== "pair") {
      setError(read.tag === "invalid" ? read.message : null)
      return
    }
    setError(null)
    onPick(read.lat, read.lon)
  }
  return (
    <details class="coords">
      <summary>{w("coords.summary")}</summary>
      <form class="coords-form" onSubmit={submit} noValidate>
        <label>
          {w("coords.lat")}
          <input
            inputMode="decimal"
            value={lat}
            onInput={(e) => setLat((e.currentTarget as HTMLInputElement).value)}
            onPaste={paste}
            placeholder="52.52"
          />
        </label>
        <label>
          {w("coords.lon")}
          <input
            inputMode="decimal"
            value={lon}
            onInput={(e) => setLon((e.currentTarget as HTMLInputElement).value)}
            onPaste={paste}
            placeholder="13.40"
          />
        </label>
        <button type="submit" class="button">
          {w("coords.show")}
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
  onPick: OnPick
}) =>
  places.length === 0 ? null : (
    <nav class="recent" aria-label={w("recent.label")}>
      <span class="recent-title">{w("recent.title")}</span>
      <ul>
        {places.map((p) => (
          <li key={`${p.lat},${p.lon}`}>
            <PlaceLink place={p} href={hrefFor(p)} onPick={onPick} />
          </li>
        ))}
      </ul>
    </nav>
  )
