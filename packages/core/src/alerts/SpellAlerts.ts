/**
 * Alerts per spell, as pure functions: a heat wave or cold spell on or coming (`/spells`' `now`),
 * severe or extreme, that starts on or before today + ALERT_DAYS_AHEAD makes one message per watch
 * and spell. Forecasts move a spell's days from one evaluation to the next, so a spell overlapping
 * the one alerted is that spell (the alert log keeps the latest days seen): never a second message.
 */
import * as CivilDate from "../CivilDate.js"
import { FALLBACK } from "../i18n/Languages.js"
import { longDate, standingSentence, t } from "../i18n/Messages.js"
import { isNotable, type RankedSpell } from "../spells/SpellWords.js"
import type { SpellKind } from "./Kinds.js"
import type { Reader } from "./Message.js"

export const KIND_OF_SPELL = { heat: "heatwave", cold: "coldspell" } as const satisfies Record<RankedSpell["kind"], SpellKind>

export interface SpellCandidate {
  readonly kind: SpellKind
  readonly start: CivilDate.EpochDay
  readonly end: CivilDate.EpochDay
  readonly spell: RankedSpell
}

/** A day range, both ends included. */
export interface Days {
  readonly start: CivilDate.EpochDay
  readonly end: CivilDate.EpochDay
}

export const overlaps = (a: Days, b: Days): boolean => a.start <= b.end && b.start <= a.end

const dayOf = (date: string): CivilDate.EpochDay | undefined => CivilDate.parse(date)

/**
 * The spells of `now` that make alerts: heat waves and cold spells, severe or extreme, starting on
 * or before today + `daysAhead` (one under way started before today and counts too).
 */
export const candidates = (input: {
  readonly now: ReadonlyArray<{ readonly kind: string }>
  readonly today: CivilDate.EpochDay
  readonly daysAhead: number
}): ReadonlyArray<SpellCandidate> => {
  const out: Array<SpellCandidate> = []
  for (const s of input.now) {
    if (s.kind !== "heat" && s.kind !== "cold") continue
    const spell = s as unknown as RankedSpell
    if (!isNotable(spell)) continue
    const start = dayOf(spell.start)
    const end = dayOf(spell.end)
    if (start === undefined || end === undefined || end < input.today) continue
    if (start > input.today + Math.max(0, input.daysAhead)) continue
    out.push({ kind: KIND_OF_SPELL[spell.kind], start, end, spell })
  }
  return out
}

export interface SpellMessageInput {
  readonly place: string
  readonly candidate: SpellCandidate
  /** The record's first year: "since 1940". */
  readonly since: number
  readonly link: string
  readonly reader?: Reader | undefined
}

/** The spell's standing as a sentence, as the messages' catalog says it (Localize). */
export { standingSentence }

/**
 * E.g. `Heat wave alert for Berlin, DE: severe, from Tue 14 July 2026. It would be the 3rd
 * hottest heat wave here since 1940 if the forecast holds. https://…/?lat=52.52&lon=13.4&date=2026-07-14`,
 * in the reader's language.
 */
export const content = (input: SpellMessageInput): string => {
  const lang = input.reader?.language ?? FALLBACK
  const { candidate } = input
  const s = candidate.spell
  return t(lang, "message.spell", {
    alert: t(lang, `alert.${candidate.kind}`),
    place: input.place,
    severity: t(lang, `severity.${s.severity}`),
    date: longDate(lang, CivilDate.format(candidate.start)),
    standing: standingSentence(lang, s, input.since),
    url: input.link
  })
}
