/**
 * The account page's alerts (docs/api.md, "Alerts"): the watched places with their kinds, each with
 * "Stop watching {label}", the last alerts sent and what became of them, and whether anything can be
 * delivered at all (delivery configured on the server, chat linked).
 */
import { useEffect, useState } from "preact/hooks"
import { formatAddress } from "../address.js"
import { longDate } from "../format.js"
import { watchNames } from "../storage.js"
import {
  type AlertsConfig,
  KIND_MEANING,
  KIND_WORD,
  KINDS,
  type Kind,
  SPELL_KINDS,
  SPELL_SWITCH,
  kindsInWords,
  loadConfig,
  loadSent,
  loadWatches,
  NOT_CONFIGURED,
  type SentAlert,
  STATUS_WORD,
  stopWatching,
  type Watch,
  watchPlace
} from "../watches.js"
import { plainDetail } from "../refusal.js"

type Loaded<A> = { readonly tag: "loading" } | { readonly tag: "failed"; readonly message: string } | { readonly tag: "ok"; readonly value: A }

const failedText = (status: number, detail: string | null, what: string) =>
  status === 401 ? "You are no longer signed in. Reload the page to sign in again." : (plainDetail(detail) ?? `${what} could not be loaded. Reload the page to try again.`)

/** A watched place's address on the main page, by the name it was picked by here, else its label. */
const placeLink = (watch: Watch, names: Readonly<Record<string, string>>) => {
  const name = names[watch.cell] ?? null
  return { href: `./${formatAddress({ lat: watch.lat, lon: watch.lon, name, date: null, units: null })}`, text: name ?? watch.label }
}

export const Watches = ({ chatLinked, chatLabel }: { chatLinked: boolean; chatLabel: string }) => {
  const [watches, setWatches] = useState<Loaded<ReadonlyArray<Watch>>>({ tag: "loading" })
  const [sent, setSent] = useState<Loaded<ReadonlyArray<SentAlert>>>({ tag: "loading" })
  const [config, setConfig] = useState<AlertsConfig | null>(null)
  const [message, setMessage] = useState<string | null>(null)
  const [names] = useState(watchNames)

  const refresh = async () => {
    try {
      const answer = await loadWatches()
      setWatches(answer.body !== null ? { tag: "ok", value: answer.body.watches } : { tag: "failed", message: failedText(answer.status, answer.detail, "Your watched places") })
    } catch {
      setWatches({ tag: "failed", message: "The service could not be reached. Reload the page to try again." })
    }
  }

  useEffect(() => {
    void refresh()
    loadSent().then(
      (answer) =>
        setSent(answer.body !== null ? { tag: "ok", value: answer.body.alerts } : { tag: "failed", message: failedText(answer.status, answer.detail, "The last alerts") }),
      () => setSent({ tag: "failed", message: "The service could not be reached. Reload the page to try again." })
    )
    loadConfig().then(
      (answer) => setConfig(answer.body),
      () => setConfig(null)
    )
  }, [])

  const change = async (watch: Watch, kinds: ReadonlyArray<Kind>) => {
    setMessage(null)
    if (kinds.length === 0) {
      setMessage(`Keep at least one kind for ${watch.label}, or stop watching it.`)
      return
    }
    try {
      const answer = await watchPlace(watch.lat, watch.lon, kinds)
      if (answer.status === 200 && answer.body !== null) {
        setMessage(`${watch.label} is now watched for ${kindsInWords(answer.body.kinds)}.`)
        await refresh()
      } else {
        setMessage(plainDetail(answer.detail) ?? `${watch.label} could not be changed. Try again later.`)
      }
    } catch {
      setMessage("The service could not be reached. Check the connection and try again.")
    }
  }

  const stop = async (watch: Watch) => {
    setMessage(null)
    try {
      const answer = await stopWatching(watch.id)
      if (answer.status === 204 || answer.status === 404) {
        // 404: already gone (removed in another tab); either way it is no longer watched.
        setMessage(`${watch.label} is no longer watched.`)
        await refresh()
      } else {
        setMessage(plainDetail(answer.detail) ?? `${watch.label} could not be removed. Try again later.`)
      }
    } catch {
      setMessage("The service could not be reached. Check the connection and try again.")
    }
  }

  return (
    <>
      <section class="panel" aria-labelledby="watches-title">
        <h2 id="watches-title">Watched places</h2>
        <p class="muted">
          When one of the coming {config === null ? "" : `${config.days_ahead + 1} `}days at a watched place is extreme for that place, you get one
          direct message. Add a place with “Watch this place” on the <a href="./">main page</a>
          {config === null ? "" : ` (at most ${config.watch_limit})`}.
        </p>
        {config !== null && !config.delivery_configured && <p class="status-message info">{NOT_CONFIGURED}</p>}
        {!chatLinked && (
          <p class="status-message info">
            Alerts are delivered by direct message on {chatLabel}, so they need {chatLabel} linked to this account (see Linked accounts).
          </p>
        )}
        {watches.tag === "loading" && <p class="muted">Loading your watched places…</p>}
        {watches.tag === "failed" && <p class="error-text">{watches.message}</p>}
        {watches.tag === "ok" &&
          (watches.value.length === 0 ? (
            <p class="muted">You watch no place yet.</p>
          ) : (
            <ul class="identities watches">
              {watches.value.map((w) => {
                const link = placeLink(w, names)
                return (
                  <li key={w.id}>
                    <span>
                      <a class="watch-link" href={link.href}>
                        <strong>{link.text}</strong>
                      </a>{" "}
                      <span class="muted">{kindsInWords(w.kinds)}</span>
                    </span>
                    <button type="button" class="button" onClick={() => stop(w)}>
                      Stop watching {w.label}
                    </button>
                  </li>
                )
              })}
            </ul>
          ))}
        <p role="status" class="muted">
          {message}
        </p>
        {watches.tag === "ok" && watches.value.length > 0 && (
          <div class="spell-watches">
            <h3>Heat waves and cold spells</h3>
            <p class="muted">
              One message per severe or extreme heat wave or cold spell at a watched place, however the forecast moves it.
            </p>
            {watches.value.map((w) => (
              <fieldset key={w.id} class="watch-kinds">
                <legend>{w.label}</legend>
                {SPELL_KINDS.map((k) => (
                  <label key={k}>
                    <input
                      type="checkbox"
                      checked={w.kinds.includes(k)}
                      onChange={(e) => {
                        const on = (e.currentTarget as HTMLInputElement).checked
                        void change(w, KINDS.filter((x) => (x === k ? on : w.kinds.includes(x))))
                      }}
                    />
                    {SPELL_SWITCH[k]} at {w.label}
                  </label>
                ))}
              </fieldset>
            ))}
          </div>
        )}
        <details class="kind-meanings">
          <summary>What each kind means</summary>
          <dl>
            {KINDS.map((k) => (
              <div key={k}>
                <dt>{KIND_WORD[k]}</dt>
                <dd>{KIND_MEANING[k]}</dd>
              </div>
            ))}
          </dl>
        </details>
      </section>
      <section class="panel" aria-labelledby="sent-title">
        <h2 id="sent-title">Last alerts</h2>
        {sent.tag === "loading" && <p class="muted">Loading the last alerts…</p>}
        {sent.tag === "failed" && <p class="error-text">{sent.message}</p>}
        {sent.tag === "ok" &&
          (sent.value.length === 0 ? (
            <p class="muted">No alert yet.</p>
          ) : (
            // A list, not a table: each alert wraps on a narrow screen instead of scrolling sideways.
            <ul class="identities sent">
              {sent.value.map((a) => (
                <li key={a.id}>
                  <span>
                    <strong>{a.spell === undefined ? longDate(a.date) : `From ${longDate(a.date)}`}</strong> · {a.label} ·{" "}
                    {a.spell === undefined ? (KIND_WORD[a.kind] ?? a.kind) : `${a.spell.severity} ${a.kind === "heatwave" ? "heat wave" : "cold spell"}`}
                  </span>
                  <span class="muted">{STATUS_WORD[a.status] ?? a.status}</span>
                </li>
              ))}
            </ul>
          ))}
      </section>
    </>
  )
}
