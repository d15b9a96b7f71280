/**
 * "Watch this place" on the main page: for a signed-in user, three kinds (heat, cold,
 * wet; all on at first) and a button that watches the shown cell, or changes the kinds once it is
 * watched; for a visitor, a link to sign in. Whether the visitor is signed in is asked once per page,
 * and only when the account page last saw this browser signed in (storage.ts); otherwise the page
 * shows the link without loading this module.
 */
import { signal } from "@preact/signals"
import { useEffect, useState } from "preact/hooks"
import { getJson } from "../api.js"
import { w } from "../i18n/later.js"
import { plainDetail } from "../refusal.js"
import { maybeSignedIn, rememberName, rememberSignedIn } from "../storage.js"
import { SignInToWatch } from "./SignInToWatch.js"
import {
  type AlertsConfig,
  isCell,
  KIND_WORD,
  DAILY_KINDS as KINDS,
  type Kind,
  kindsInWords,
  loadConfig,
  loadWatches,
  kindHint,
  notConfigured,
  type Watch,
  watchPlace
} from "../watches.js"

type Session = "checking" | "visitor" | "user" | "unknown"

const session = signal<Session>("checking")
const config = signal<AlertsConfig | null>(null)
let asked = false

const askSession = () => {
  if (asked) return
  asked = true
  if (!maybeSignedIn()) {
    session.value = "visitor"
    return
  }
  getJson<unknown>("users/me").then(
    (answer) => {
      session.value = answer.status === 200 ? "user" : answer.status === 401 ? "visitor" : "unknown"
      if (answer.status === 401) rememberSignedIn(false)
      if (answer.status === 200)
        loadConfig().then(
          (c) => {
            config.value = c.body
          },
          () => undefined
        )
    },
    () => {
      session.value = "unknown"
    }
  )
}

export interface WatchPlaceProps {
  readonly lat: number
  readonly lon: number
  readonly cellLat: number
  readonly cellLon: number
  /** The name picked in the search, remembered with the watch so the account page links it by that name. */
  readonly name: string | null
  /** The account page's address, with the way back to this place. */
  readonly accountHref: string
}

export const WatchPlace = ({ lat, lon, cellLat, cellLon, name, accountHref }: WatchPlaceProps) => {
  // undefined while this user's watches are being read: the button then neither offers to watch a
  // place already watched nor says it is watched before it knows.
  const [watch, setWatch] = useState<Watch | null | undefined>(undefined)
  const [kinds, setKinds] = useState<ReadonlyArray<Kind>>(KINDS)
  const [editing, setEditing] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [notice, setNotice] = useState<string | null>(null)

  useEffect(askSession, [])
  const signedIn = session.value === "user"

  // Whether this cell is already watched, so the button says so from the start.
  useEffect(() => {
    setWatch(undefined)
    setEditing(false)
    setError(null)
    setNotice(null)
    setKinds(KINDS)
    if (!signedIn) return
    let current = true
    loadWatches().then(
      (answer) => {
        if (!current) return
        const found = answer.body?.watches.find((w) => isCell(w, cellLat, cellLon)) ?? null
        setWatch(found)
        if (found !== null) setKinds(found.kinds)
      },
      () => {
        // Unknown: offer to watch; a POST for a watched cell only replaces its kinds.
        if (current) setWatch(null)
      }
    )
    return () => {
      current = false
    }
  }, [signedIn, cellLat, cellLon])

  if (session.value === "visitor") return <SignInToWatch href={accountHref} />
  if (!signedIn) return null
  if (watch === undefined) return <p class="watch-place muted">{w("watch.checking")}</p>

  const submit = async (event: Event) => {
    event.preventDefault()
    if (kinds.length === 0) {
      setError(w("watch.none-chosen"))
      return
    }
    setBusy(true)
    setError(null)
    setNotice(null)
    try {
      const answer = await watchPlace(lat, lon, kinds)
      if ((answer.status === 201 || answer.status === 200) && answer.body !== null) {
        if (name !== null) rememberName(answer.body.cell, name)
        setWatch(answer.body)
        setKinds(answer.body.kinds)
        setEditing(false)
        setNotice(
          answer.status === 201
            ? w("watch.now", { place: answer.body.label, kinds: kindsInWords(answer.body.kinds) })
            : w("watch.now-for", { place: answer.body.label, kinds: kindsInWords(answer.body.kinds) })
        )
      } else if (answer.code === "watch-limit-reached") {
        setError(
          `${config.value === null ? w("watch.limit") : w("watch.limit.n", { n: config.value.watch_limit })}${plainDetail(answer.detail) === null ? "" : ` (${plainDetail(answer.detail)})`}`
        )
      } else if (answer.status === 401) {
        rememberSignedIn(false)
        session.value = "visitor"
      } else {
        setError(plainDetail(answer.detail) ?? w("watch.failed"))
      }
    } catch {
      setError(w("unreachable"))
    } finally {
      setBusy(false)
    }
  }

  const showForm = watch === null || editing
  return (
    <div class="watch-place">
      {watch !== null && (
        <p class="watching">
          {w("watch.watching", { place: watch.label, kinds: kindsInWords(watch.kinds) })} <a href={accountHref}>{w("watch.yours")}</a>
        </p>
      )}
      {showForm ? (
        <form class="watch-form" onSubmit={submit}>
          <fieldset class="watch-kinds">
            <legend>{w("watch.legend")}</legend>
            {KINDS.map((k) => (
              <label key={k} title={kindHint(k)}>
                <input
                  type="checkbox"
                  checked={kinds.includes(k)}
                  onChange={(e) => {
                    const on = (e.currentTarget as HTMLInputElement).checked
                    // The spell kinds, set on the account page, are kept as they are.
                    setKinds([...KINDS.filter((x) => (x === k ? on : kinds.includes(x))), ...kinds.filter((x) => !KINDS.includes(x))])
                  }}
                />
                {KIND_WORD[k]}
              </label>
            ))}
          </fieldset>
          <button type="submit" class="button primary" disabled={busy}>
            {watch === null ? w("watch.button") : w("watch.save")}
          </button>
        </form>
      ) : (
        <button type="button" class="button" onClick={() => setEditing(true)}>
          {w("watch.change")}
        </button>
      )}
      {config.value !== null && !config.value.delivery_configured && <p class="muted">{notConfigured()}</p>}
      <p role="status" class="muted">
        {notice}
      </p>
      <p role="alert" class="error-text">
        {error}
      </p>
    </div>
  )
}
