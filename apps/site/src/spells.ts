/**
 * The spells view (`/spells`) as the page reads it, and its words: the notice at the top of the page
 * for a heat wave or cold spell on or coming, and the rows of the "Spells" section. The standing's
 * words are the core's (SpellWords), the same as the alert messages, the card and the shared head.
 */
import { mostNotable, notice, ordinalNumber, type RankedSpell, SPELL_NOUN } from "@climate-grade/core/spells/SpellWords"
import { dayNumber, longDate, shortMonth, weekday } from "./format.js"

export type SpellKind = "heat" | "cold" | "dry" | "wet"
export const SPELL_KINDS: ReadonlyArray<SpellKind> = ["heat", "cold", "dry", "wet"]

export interface Spell {
  readonly kind: SpellKind
  readonly start: string
  readonly end: string
  readonly days: number
  readonly peak?: number
  readonly total?: number
  readonly severity?: "low" | "severe" | "extreme"
  readonly rank_days: number
  readonly rank_peak?: number
  readonly rank_total?: number
  readonly of: number
  readonly forecast: boolean
}

export interface SpellsPayload {
  readonly view: "spells"
  readonly first: string
  readonly last: string
  readonly until: string
  readonly baseline: { readonly from: number; readonly to: number } | null
  readonly thresholds: { readonly t95: number; readonly t05: number; readonly ehf85: number | null; readonly cf85: number | null } | null
  readonly now: ReadonlyArray<Spell>
  readonly top: Readonly<Record<SpellKind, ReadonlyArray<Spell>>>
  readonly years: ReadonlyArray<{ readonly year: number; readonly heat_days: number; readonly cold_days: number; readonly dry_longest: number; readonly wet_days: number }>
  readonly recent: ReadonlyArray<Spell>
}

export const KIND_NAME: Record<SpellKind, string> = { heat: "Heat waves", cold: "Cold spells", dry: "Dry spells", wet: "Wet spells" }
export const KIND_NOUN: Record<SpellKind, string> = { heat: SPELL_NOUN.heat, cold: SPELL_NOUN.cold, dry: "dry spell", wet: "wet spell" }
export const KIND_COLOR: Record<SpellKind, string> = { heat: "#b2182b", cold: "#2166ac", dry: "#8c510a", wet: "#35978f" }

const isRanked = (s: Spell): s is Spell & RankedSpell =>
  (s.kind === "heat" || s.kind === "cold") && s.severity !== undefined && s.rank_peak !== undefined

/** "today", "tomorrow", "Thursday" (within the week), else "Thu 14 July 2026". */
export const dayInWords = (date: string, today: string): string => {
  const diff = dayNumber(date) - dayNumber(today)
  if (diff === 0) return "today"
  if (diff === 1) return "tomorrow"
  if (diff === -1) return "yesterday"
  if (diff > 1 && diff < 7) return ({ Sun: "Sunday", Mon: "Monday", Tue: "Tuesday", Wed: "Wednesday", Thu: "Thursday", Fri: "Friday", Sat: "Saturday" } as const)[weekday(date) as "Sun"]
  return longDate(date)
}

/** The heat wave or cold spell to tell at the top of the page, in words; null when none is severe or extreme. */
export const spellNotice = (data: SpellsPayload, today: string): { readonly spell: Spell; readonly text: string } | null => {
  const spell = mostNotable(data.now.filter(isRanked))
  if (spell === undefined) return null
  const since = Number(data.first.slice(0, 4))
  const started = spell.start <= today
  return { spell, text: `${notice(spell, since, dayInWords(spell.start, today), started)}.` }
}

/** "3–7 Jul 2025", "30 Jun–2 Jul 2025", "30 Dec 2024–2 Jan 2025". */
export const spanWords = (start: string, end: string): string => {
  const [y1, m1, d1] = start.split("-").map(Number) as [number, number, number]
  const [y2, m2, d2] = end.split("-").map(Number) as [number, number, number]
  if (y1 !== y2) return `${d1} ${shortMonth(m1)} ${y1}–${d2} ${shortMonth(m2)} ${y2}`
  if (m1 !== m2) return `${d1} ${shortMonth(m1)}–${d2} ${shortMonth(m2)} ${y2}`
  return d1 === d2 ? `${d1} ${shortMonth(m1)} ${y1}` : `${d1}–${d2} ${shortMonth(m2)} ${y2}`
}

/** A spell's measure in words: its peak (°C², the Excess Heat or Cold Factor) or its total (mm). */
export const measureWords = (s: Spell): string =>
  s.peak !== undefined ? `peak ${s.peak.toFixed(1)} °C²` : s.total !== undefined ? `${s.total.toFixed(1)} mm` : `${s.days} days`

/** A spell in one line, for the timeline's list and its pointer labels. */
export const spellWords = (s: Spell): string => {
  const rank = s.rank_peak ?? s.rank_total ?? s.rank_days
  const by = s.kind === "heat" ? "hottest" : s.kind === "cold" ? "coldest" : s.kind === "wet" ? "wettest" : "longest"
  const severity = s.severity === undefined ? "" : `${s.severity} `
  return (
    `${severity}${KIND_NOUN[s.kind]}, ${spanWords(s.start, s.end)} (${s.days} days${s.peak !== undefined || s.total !== undefined ? `, ${measureWords(s)}` : ""}): ` +
    `${rank === 1 ? "the" : `the ${ordinalNumber(rank)}`} ${by} of ${s.of}` +
    `${s.forecast ? ", partly forecast" : ""}`
  )
}
