/**
 * The alerts API as the site uses it (docs/api.md, "Alerts"): the user's watches, the last alerts sent and the
 * server's delivery settings, shared by the account page and the main page's "Watch this place".
 */
import { getJson } from "./api.js"

export type Kind = "heat" | "cold" | "wet" | "heatwave" | "coldspell"
export const KINDS: ReadonlyArray<Kind> = ["heat", "cold", "wet", "heatwave", "coldspell"]
/** The daily kinds, which "Watch this place" offers; the spell kinds are offered on the account page. */
export const DAILY_KINDS: ReadonlyArray<Kind> = ["heat", "cold", "wet"]
export const SPELL_KINDS: ReadonlyArray<Kind> = ["heatwave", "coldspell"]
/** How the account page names a spell kind's switch for one place. */
export const SPELL_SWITCH: Partial<Record<Kind, string>> = { heatwave: "Heat waves", coldspell: "Cold spells" }

/** The kinds in words, as the checkboxes and lists show them. */
export const KIND_WORD: Record<Kind, string> = { heat: "heat", cold: "cold", wet: "wet", heatwave: "heat waves", coldspell: "cold spells" }
export const KIND_HINT: Record<Kind, string> = {
  heat: "very high maximum temperature",
  cold: "very low minimum temperature",
  wet: "very heavy precipitation",
  heatwave: "a severe or extreme heat wave, one message per heat wave",
  coldspell: "a severe or extreme cold spell, one message per cold spell"
}

/** What each kind means, as the account page explains it. */
export const KIND_MEANING: Record<Kind, string> = {
  heat: "A coming day whose high temperature is much above normal or a record for the place and time of year. One message per day.",
  cold: "A coming day whose low temperature is much below normal or a record for the place and time of year. One message per day.",
  wet: "A coming day whose precipitation is much above normal or a record for the place and time of year. One message per day.",
  heatwave:
    "A severe or extreme heat wave: three or more days whose mean temperature is above the place's hottest 5% of days and above the month before, " +
    "ranked against every heat wave there since the record began. One message per heat wave, however the forecast moves it.",
  coldspell:
    "A severe or extreme cold spell: three or more days whose mean temperature is below the place's coldest 5% of days and below the month before, " +
    "ranked against every cold spell there since the record began. One message per cold spell, however the forecast moves it."
}

export const kindsInWords = (kinds: ReadonlyArray<string>): string => {
  const words = KINDS.filter((k) => kinds.includes(k)).map((k) => KIND_WORD[k])
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
export const NOT_CONFIGURED =
  "Direct-message delivery is not configured on this server: your watched places are kept, but no alert is sent."

/** What became of each alert, in words. */
export const STATUS_WORD: Record<SentAlert["status"], string> = {
  pending: "waiting to be sent",
  sent: "sent",
  failed: "failed",
  dropped: "not sent (muted or unlinked before sending)",
  muted: "not sent (chat not linked or direct messages off)",
  off: "not sent (delivery not configured)"
}

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
