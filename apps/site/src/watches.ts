/**
 * The alerts API as the site uses it (docs/api.md, "Alerts"): the user's watches, the last alerts sent and the
 * server's delivery settings, shared by the account page and the main page's "Watch this place".
 */
import { getJson } from "./api.js"
import { lang } from "./i18n/index.js"
import { w } from "./i18n/later.js"

export type Kind = "heat" | "cold" | "wet" | "heatwave" | "coldspell"
export const KINDS: ReadonlyArray<Kind> = ["heat", "cold", "wet", "heatwave", "coldspell"]
/** The daily kinds, which "Watch this place" offers; the spell kinds are offered on the account page. */
export const DAILY_KINDS: ReadonlyArray<Kind> = ["heat", "cold", "wet"]
export const SPELL_KINDS: ReadonlyArray<Kind> = ["heatwave", "coldspell"]
/** How the account page names a spell kind's switch for one place. */
export const spellSwitch = (kind: Kind, place: string): string =>
  w(kind === "coldspell" ? "watches.coldspell-at" : "watches.heatwave-at", { place })

/** The kinds in words, as the checkboxes and lists show them (getters: the page's language when read). */
export const KIND_WORD: Readonly<Record<Kind, string>> = {
  get heat() {
    return w("kind.heat")
  },
  get cold() {
    return w("kind.cold")
  },
  get wet() {
    return w("kind.wet")
  },
  get heatwave() {
    return w("kind.heatwave")
  },
  get coldspell() {
    return w("kind.coldspell")
  }
}
export const kindHint = (kind: Kind): string => w(`kind.${kind}.hint`)

/** What each kind means, as the account page explains it. */
export const kindMeaning = (kind: Kind): string => w(`kind.${kind}.meaning`)

/** "heat, cold and wet" (English without the serial comma, as the pages write it); other languages by Intl's list. */
export const kindsInWords = (kinds: ReadonlyArray<string>): string => {
  const words = KINDS.filter((k) => kinds.includes(k)).map((k) => KIND_WORD[k])
  if (lang() !== "en") return new Intl.ListFormat(lang(), { type: "conjunction" }).format(words)
  return words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`
}

export interface Watch {
  readonly id: string
  readonly lat: number
  readonly lon: number
  readonly cell: string
  readonly label: string
  readonly kinds: ReadonlyArray<Kind>
  readonly created_at: string
}

export interface SentAlert {
  readonly id: string
  readonly label: string
  /** The day that qualified; a spell's first day. */
  readonly date: string
  readonly kind: Kind
  readonly spell?: { readonly start: string; readonly end: string; readonly severity: string }
  readonly status: "pending" | "sent" | "failed" | "dropped" | "muted" | "off"
  readonly created_at: string
  readonly sent_at: string | null
}

export interface AlertsConfig {
  readonly delivery_configured: boolean
  readonly days_ahead: number
  readonly watch_limit: number
  readonly kinds: ReadonlyArray<Kind>
}

/** The sentence both pages show when CHAT_BOT_TOKEN or CHAT_API_URL is unset. */
export const notConfigured = (): string => w("alerts.not-configured")

/** What became of an alert, in words. */
export const statusWord = (status: string): string =>
  Object.hasOwn(STATUS_KEYS, status) ? w(STATUS_KEYS[status as SentAlert["status"]]) : status

const STATUS_KEYS = {
  pending: "status.pending",
  sent: "status.sent",
  failed: "status.failed",
  dropped: "status.dropped",
  muted: "status.muted",
  off: "status.off"
} as const satisfies Record<SentAlert["status"], string>

export const loadWatches = () => getJson<{ watches: ReadonlyArray<Watch> }>("alerts/watches")
export const loadSent = () => getJson<{ alerts: ReadonlyArray<SentAlert> }>("alerts/sent")
export const loadConfig = () => getJson<AlertsConfig>("alerts/config")

export const watchPlace = (lat: number, lon: number, kinds: ReadonlyArray<Kind>) =>
  getJson<Watch>("alerts/watches", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ lat, lon, kinds })
  })

export const stopWatching = (id: string) => getJson<unknown>(`alerts/watches/${encodeURIComponent(id)}`, { method: "DELETE" })

/** Whether a watch's cell ("{lat},{lon}", 0.25°) is the cell centred at (lat, lon). */
export const isCell = (watch: Watch, lat: number, lon: number): boolean => {
  const [wLat, wLon] = watch.cell.split(",").map(Number)
  return wLat !== undefined && wLon !== undefined && Math.abs(wLat - lat) < 0.125 && Math.abs(wLon - lon) < 0.125
}
