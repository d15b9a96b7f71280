/**
 * A heat wave's or cold spell's standing in words, for every reader of the spells view: the alert
 * message, the main page's notice, the share card and the shared head (whose whole notice, in every
 * language, is Localize's `spellNotice`). Browser-safe: no import.
 *
 * A spell's `rank_peak` counts the spells of its kind with a strictly larger peak, so rank 3 of the
 * heat waves is "the 3rd hottest"; a spell with forecast days "would be" that, "if the forecast holds".
 */

export type SpellSeverity = "low" | "severe" | "extreme"

/** The fields of a `/spells` spell these words read (heat and cold only). */
export interface RankedSpell {
  readonly kind: "heat" | "cold"
  readonly start: string
  readonly end: string
  readonly severity: SpellSeverity
  readonly rank_peak: number
  readonly of: number
  readonly forecast: boolean
}

export const SPELL_NOUN = { heat: "heat wave", cold: "cold spell" } as const
const SUPERLATIVE = { heat: "hottest", cold: "coldest" } as const

/** 1st, 2nd, 3rd, 4th, 11th, 21st. */
export const ordinalNumber = (n: number): string => {
  const tens = n % 100
  if (tens >= 11 && tens <= 13) return `${n}th`
  return `${n}${n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th"}`
}

/** The severities worth telling people about unasked. */
export type NotableSeverity = "severe" | "extreme"

/** Whether a spell is worth telling people about unasked: severe or extreme. */
export const isNotable = <S extends { readonly severity: SpellSeverity | null | undefined }>(
  spell: S
): spell is S & { readonly severity: NotableSeverity } => spell.severity === "severe" || spell.severity === "extreme"

/** "the hottest", "the 3rd coldest". */
export const superlative = (spell: Pick<RankedSpell, "kind" | "rank_peak">): string =>
  spell.rank_peak <= 1 ? `the ${SUPERLATIVE[spell.kind]}` : `the ${ordinalNumber(spell.rank_peak)} ${SUPERLATIVE[spell.kind]}`

/**
 * "would be the 3rd hottest heat wave here since 1940 if the forecast holds" (`noun`), or without
 * the noun "would be the 3rd hottest here since 1940 if the forecast holds"; a spell wholly in the
 * record "is". `since` is the record's first year.
 */
export const standing = (spell: Pick<RankedSpell, "kind" | "rank_peak" | "forecast">, since: number, noun = true): string => {
  const what = `${superlative(spell)}${noun ? ` ${SPELL_NOUN[spell.kind]}` : ""} here since ${since}`
  return spell.forecast ? `would be ${what} if the forecast holds` : `is ${what}`
}

/** The spell to tell first among those on or coming: the most severe, then the earliest. */
export const mostNotable = <S extends RankedSpell>(spells: ReadonlyArray<S>): S | undefined => {
  const weight = { extreme: 2, severe: 1, low: 0 } as const
  let best: S | undefined
  for (const s of spells) {
    if (!isNotable(s)) continue
    if (best === undefined || weight[s.severity] > weight[best.severity] || (weight[s.severity] === weight[best.severity] && s.start < best.start)) {
      best = s
    }
  }
  return best
}
