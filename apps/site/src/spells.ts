/**
 * The spells view (`/spells`) as the page reads it, and its words: the notice at the top of the page
 * for a heat wave or cold spell on or coming, and the rows of the "Spells" section. The standing's
 * words are the core's (SpellWords), the same as the alert messages, the card and the shared head.
 */
import { PageMessages } from "@climate-grade/core/rules"
import { isNotable, mostNotable, type RankedSpell, SPELL_NOUN } from "@climate-grade/core/spells/SpellWords"
import { dayNumber, formatCount, ltr, longDate, shortMonth, weekdayLong } from "./format.js"
import { lang } from "./i18n/index.js"

/** The core's words in the page's language (its catalog came with the page's language chunk). */
const t = (key: PageMessages.Key, values?: PageMessages.Values): string => PageMessages.t(lang(), key, values)

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

/** "Heat waves", "Hitzewellen"…: a kind's name in the page's language. */
export const kindName = (kind: SpellKind): string => t(`spells.kinds.${kind}`)
export const KIND_NOUN: Record<SpellKind, string> = { heat: SPELL_NOUN.heat, cold: SPELL_NOUN.cold, dry: "dry spell", wet: "wet spell" }
export const KIND_COLOR: Record<SpellKind, string> = { heat: "#b2182b", cold: "#2166ac", dry: "#8c510a", wet: "#35978f" }

const isRanked = (s: Spell): s is Spell & RankedSpell =>
  (s.kind === "heat" || s.kind === "cold") && s.severity !== undefined && s.rank_peak !== undefined

/** "today", "tomorrow", "Thursday" (within the week), else "Thu 14 July 2026"; in the page's language. */
export const dayInWords = (date: string, today: string): string => {
  const diff = dayNumber(date) - dayNumber(today)
  if (diff === 0) return t("day.today")
  if (diff === 1) return t("day.tomorrow")
  if (diff === -1) return t("day.yesterday")
  if (diff > 1 && diff < 7) return t("day.weekday", { weekday: weekdayLong(date) })
  return longDate(date)
}

/** The heat wave or cold spell to tell at the top of the page, in words; null when none is severe or extreme. */
export const spellNotice = (data: SpellsPayload, today: string): { readonly spell: Spell; readonly text: string } | null => {
  const spell = mostNotable(data.now.filter(isRanked))
  if (spell === undefined || !isNotable(spell)) return null
  const since = Number(data.first.slice(0, 4))
  // The core's sentence, as the card and a shared link's head say it (only the day is the page's own).
  const { text } = PageMessages.spellNotice(lang(), spell, since, dayInWords(spell.start, today), spell.start <= today)
  return { spell, text }
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
  s.peak !== undefined
    ? t("spells.peak", { value: ltr(`${formatCount(s.peak, 1)} °C²`) })
    : s.total !== undefined
      ? ltr(`${formatCount(s.total, 1)} mm`)
      : t("spells.days", { n: s.days })

/** A spell in one line, for the timeline's list and its pointer labels. */
export const spellWords = (s: Spell): string => {
  const rank = s.rank_peak ?? s.rank_total ?? s.rank_days
  const what =
    s.kind === "dry" || s.kind === "wet" ? t(`spells.what.${s.kind}`) : s.severity === undefined ? KIND_NOUN[s.kind] : t(`spells.what.${s.kind}.${s.severity}`)
  return t("spells.line", {
    what,
    span: spanWords(s.start, s.end),
    days: t("spells.days", { n: s.days }),
    measure: s.peak !== undefined || s.total !== undefined ? t("spells.measure", { value: measureWords(s) }) : "",
    rank: t(`spells.rank.${s.kind}.${rank === 1 ? "first" : "nth"}`, {
      rank: PageMessages.rankWords(lang(), rank),
      of: s.of
    }),
    forecast: s.forecast ? t("spells.line.forecast") : ""
  })
}
