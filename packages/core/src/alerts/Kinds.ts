/**
 * What a watch can ask to be told about (docs/api.md "Alerts"). The daily kinds are one variable and
 * the grade labels that make a day extreme for it; the spell kinds are a severe or extreme heat wave
 * or cold spell (the core's spells rules), one message per spell.
 */
import * as Either from "effect/Either"
import type { Label } from "../data/Payloads.js"
import type { Grade } from "../data/Payloads.js"
import type { Variable } from "../weather/DailySeries.js"

export const dailyKinds = ["heat", "cold", "wet"] as const
export type DailyKind = (typeof dailyKinds)[number]
export const spellKinds = ["heatwave", "coldspell"] as const
export type SpellKind = (typeof spellKinds)[number]
export const kinds = [...dailyKinds, ...spellKinds] as const
export type Kind = (typeof kinds)[number]

export const isSpellKind = (kind: Kind): kind is SpellKind => kind === "heatwave" || kind === "coldspell"

export interface KindRule {
  readonly variable: Variable
  readonly labels: ReadonlyArray<typeof Label.Type>
}

export const RULES: { readonly [K in DailyKind]: KindRule } = {
  heat: { variable: "tmax", labels: ["much-above", "record-high"] },
  cold: { variable: "tmin", labels: ["much-below", "record-low"] },
  wet: { variable: "precip", labels: ["much-above", "record-high"] }
}

export const isKind = (u: unknown): u is Kind => typeof u === "string" && (kinds as ReadonlyArray<string>).includes(u)

/** Whether a graded value makes the day extreme for `kind`; an ungraded one (n < 30, no value) never does. */
export const qualifies = (kind: DailyKind, grade: Grade): boolean =>
  grade.label !== null && RULES[kind].labels.includes(grade.label)

/**
 * A request's `kinds`: a non-empty list of known kinds. Repeats collapse; the result keeps the
 * canonical order, so the same set is stored and shown the same way. Left: a detail for a 400.
 */
export const parse = (u: unknown): Either.Either<ReadonlyArray<Kind>, string> => {
  const expected = `expected a non-empty list of ${kinds.join(", ")}`
  if (!Array.isArray(u)) return Either.left(`'kinds' must be a list: ${expected}.`)
  if (u.length === 0) return Either.left(`'kinds' is empty: ${expected}.`)
  const unknown = u.find((k) => !isKind(k))
  if (unknown !== undefined) return Either.left(`Unknown kind ${JSON.stringify(unknown)} in 'kinds': ${expected}.`)
  const chosen = new Set(u as ReadonlyArray<Kind>)
  return Either.right(kinds.filter((k) => chosen.has(k)))
}

/** How a kind is named in a message. */
export const noun: { readonly [K in Kind]: string } = {
  heat: "Heat",
  cold: "Cold",
  wet: "Heavy rain",
  heatwave: "Heat wave",
  coldspell: "Cold spell"
}

/** What each kind watches for, in words (the API's description and the account page's). */
export const meaning: { readonly [K in Kind]: string } = {
  heat: "a coming day whose high temperature is much above normal or a record for the place and date",
  cold: "a coming day whose low temperature is much below normal or a record for the place and date",
  wet: "a coming day whose precipitation is much above normal or a record for the place and date",
  heatwave: "a severe or extreme heat wave (three or more days hotter than the place's 95th percentile and than the month before): one message per heat wave",
  coldspell: "a severe or extreme cold spell (three or more days colder than the place's 5th percentile and than the month before): one message per cold spell"
}
