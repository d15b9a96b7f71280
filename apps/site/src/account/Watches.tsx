/**
 * The account page's alerts (docs/api.md, "Alerts"): the watched places with their kinds, each with
 * "Stop watching {label}", the last alerts sent and what became of them, and whether anything can be
 * delivered at all (delivery configured on the server, chat linked).
 */
import { useEffect, useState } from "preact/hooks"
import { formatAddress } from "../address.js"
import { longDate } from "../format.js"
import { watchNames } from "../storage.js"
import { around, type LaterKey, w as word } from "../i18n/later.js"
import { plainDetail } from "../refusal.js"
import {
  type AlertsConfig,
  KIND_WORD,
  KINDS,
  type Kind,
  kindMeaning,
  kindsInWords,
  loadConfig,
  loadSent,
  loadWatches,
  notConfigured,
  type SentAlert,
  SPELL_KINDS,
  spellSwitch,
  statusWord,
  stopWatching,
  type Watch,
  watchPlace
} from "../watches.js"

type Loaded<A> = { readonly tag: "loading" } | { readonly tag: "failed"; readonly message: string } | { readonly tag: "ok"; readonly value: A }

const failedText = (status: number, detail: string | null, failed: LaterKey) =>
  status === 401 ? word("watches.signed-out") : (plainDetail(detail) ?? word(failed))

/** A spell alert's name: its severity and kind in one phrase, as each language agrees them. */
const spellName = (alert: SentAlert & { readonly spell: NonNullable<SentAlert["spell"]> }): string => {
  const kind = alert.kind === "heatwave" ? "heatwave" : "coldspell"
  const severity = alert.spell.severity
  return severity === "severe" || severity === "extreme" ? word(`sent.${kind}.${severity}`) : word(`sent.${kind}`)
}

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
      setWatches(answer.body !== null ? { tag: "ok", value: answer.body.watches } : { tag: "failed", message: failedText(answer.status, answer.detail, "watches.load-failed") })
    } catch {
      setWatches({ tag: "failed", message: word("account.unreachable") })
    }
  }

  useEffect(() => {
    void refresh()
    loadSent().then(
      (answer) =>
        setSent(answer.body !== null ? { tag: "ok", value: answer.body.alerts } : { tag: "failed", message: failedText(answer.status, answer.detail, "sent.load-failed") }),
      () => setSent({ tag: "failed", message: word("account.unreachable") })
    )
    loadConfig().then(
      (answer) => setConfig(answer.body),
      () => setConfig(null)
    )
  }, [])

  const change = async (watch: Watch, kinds: ReadonlyArray<Kind>) => {
    setMessage(null)
    if (kinds.length === 0) {
      setMessage(word("watches.keep-one", { place: watch.label }))
      return
    }
    try {
      const answer = await watchPlace(watch.lat, watch.lon, kinds)
      if (answer.status === 200 && answer.body !== null) {
        setMessage(word("watch.now-for", { place: watch.label, kinds: kindsInWords(answer.body.kinds) }))
        await refresh()
      } else {
        setMessage(plainDetail(answer.detail) ?? word("watches.change-failed", { place: watch.label }))
      }
    } catch {
      setMessage(word("unreachable"))
    }
  }

  const stop = async (watch: Watch) => {
    setMessage(null)
    try {
      const answer = await stopWatching(watch.id)
      if (answer.status === 204 || answer.status === 404) {
        // 404: already gone (removed in another tab); either way it is no longer watched.
        setMessage(word("watches.stopped", { place: watch.label }))
        await refresh()
      } else {
        setMessage(plainDetail(answer.detail) ?? word("watches.stop-failed", { place: watch.label }))
      }
    } catch {
      setMessage(word("unreachable"))
    }
  }

  // "Add a place with “Watch this place” on the {link}", the link in its place.
  const add = around(config === null ? "watches.add" : "watches.add.limit", "link").map((part) =>
    config === null ? part : part.replace("{n}", String(config.watch_limit))
  )
  return (
    <>
      <section class="panel" aria-labelledby="watches-title">
        <h2 id="watches-title">{word("watches.title")}</h2>
        <p class="muted">
          {config === null ? word("watches.intro.days") : word("watches.intro", { days: config.days_ahead + 1 })}{" "}
          {add[0]}
          <a href="./">{word("watches.main-page")}</a>
          {add[1]}
        </p>
        {config !== null && !config.delivery_configured && <p class="status-message info">{notConfigured()}</p>}
        {!chatLinked && <p class="status-message info">{word("watches.needs-chat", { chat: chatLabel })}</p>}
        {watches.tag === "loading" && <p class="muted">{word("watches.loading")}</p>}
        {watches.tag === "failed" && <p class="error-text">{watches.message}</p>}
        {watches.tag === "ok" &&
          (watches.value.length === 0 ? (
            <p class="muted">{word("watches.none")}</p>
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
                      {word("watches.stop", { place: w.label })}
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
            <h3>{word("watches.spells")}</h3>
            <p class="muted">{word("watches.spells.intro")}</p>
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
                    {spellSwitch(k, w.label)}
                  </label>
                ))}
              </fieldset>
            ))}
          </div>
        )}
        <details class="kind-meanings">
          <summary>{word("watches.meanings")}</summary>
          <dl>
            {KINDS.map((k) => (
              <div key={k}>
                <dt>{KIND_WORD[k]}</dt>
                <dd>{kindMeaning(k)}</dd>
              </div>
            ))}
          </dl>
        </details>
      </section>
      <section class="panel" aria-labelledby="sent-title">
        <h2 id="sent-title">{word("sent.title")}</h2>
        {sent.tag === "loading" && <p class="muted">{word("sent.loading")}</p>}
        {sent.tag === "failed" && <p class="error-text">{sent.message}</p>}
        {sent.tag === "ok" &&
          (sent.value.length === 0 ? (
            <p class="muted">{word("sent.none")}</p>
          ) : (
            // A list, not a table: each alert wraps on a narrow screen instead of scrolling sideways.
            <ul class="identities sent">
              {sent.value.map((a) => (
                <li key={a.id}>
                  <span>
                    <strong>{a.spell === undefined ? longDate(a.date) : word("sent.from", { date: longDate(a.date) })}</strong> · {a.label} ·{" "}
                    {a.spell === undefined ? (KIND_WORD[a.kind] ?? a.kind) : spellName({ ...a, spell: a.spell })}
                  </span>
                  <span class="muted">{statusWord(a.status)}</span>
                </li>
              ))}
            </ul>
          ))}
      </section>
    </>
  )
}
