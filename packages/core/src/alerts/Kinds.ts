/**
 * What a watch can ask to be told about (docs/api.md "Alerts"): each kind is one variable and the grade
 * labels that make a day extreme for it.
 */
import * as Either from "effect/Either"
import type { Label } from "../data/Payloads.js"
import type { Grade } from "../data/Payloads.js"
import type { Variable } from "../weather/DailySeries.js"

export const kinds = ["heat", "cold", "wet"] as const
export type Kind = (typeof kinds)[number]

export interface KindRule {
  readonly variable: Variable
  readonly labels: ReadonlyArray<typeof Label.Type>
}

export const RULES: { readonly [K in Kind]: KindRule } = {
  heat: { variable: "tmax", labels: ["much-above", "record-high"] },
  cold: { variable: "tmin", labels: ["much-below", "record-low"] },
  wet: { variable: "precip", labels: ["much-above", "record-high"] }
}

export const isKind = (u: unknown): u is Kind => typeof u === "string" && (kinds as ReadonlyArray<string>).includes(u)

/** Whether a graded value makes the day extreme for `kind`; an ungraded one (n < 30, no value) never does. */
export const qualifies = (kind: Kind, grade: Grade): boolean =>
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
export const noun: { readonly [K in Kind]: string } = { heat: "Heat", cold: "Cold", wet: "Heavy rain" }
