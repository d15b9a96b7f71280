/**
 * Words that hold when a value ties with many days of its sample. The percentile counts days of the
 * same value half below and half above (scipy's `kind="mean"`), so a dry day where 69 % of the days
 * around its date were dry too sits at the 34.5th percentile: "wetter than 35 % of them" would be
 * false. Where the tie can be known from what a grade carries, it is described by where it sits
 * instead ("dry, like 69 % of days around this date"); elsewhere the words are ones that hold
 * whatever the ties: at least as warm as p % of the days (the share at or below a value is never
 * less than its percentile), at least as cold as 100 − p % (likewise from above).
 *
 * Browser-safe: no `effect`, no Node built-in. The site, the card and the messages use it.
 */

export type TieVariable = "tmax" | "tmin" | "precip"

/** What is known of a value's sample besides its percentile: its lowest, highest and median value. */
export interface SampleBounds {
  readonly min: number | null
  readonly max: number | null
  readonly p50?: number | null | undefined
}

/**
 * A value known to tie with part of its sample, at one end of it: `share` is the percentage of the
 * sample's days with the same value (0–100). At an end, the days on the far side of the tie are
 * none, so the percentile alone gives the share: twice it at the bottom, twice 100 − it at the top.
 */
export interface Tie {
  readonly at: "dry" | "lowest" | "highest"
  readonly share: number
}

/** From this share up, a tie is described as a tie rather than by the percentile. */
export const TIE_WORTH_SAYING = 5

interface Graded {
  readonly value: number | null
  readonly percentile: number | null
  readonly label: string | null
}

/**
 * The tie a value is known to sit in, or null: no precipitation at all (nothing is below 0 mm), or a
 * value equal to its sample's lowest or highest (when `bounds` are known, from the day's
 * climatology). Records are past every day, so they tie with none.
 */
export const tieOf = (variable: TieVariable, grade: Graded, bounds?: SampleBounds): Tie | null => {
  const { value, percentile: p, label } = grade
  if (value === null || p === null || label === null || label === "record-high" || label === "record-low") return null
  const clamp = (share: number) => Math.min(100, Math.max(0, Math.round(share * 10) / 10))
  let tie: Tie | null = null
  if (variable === "precip" && value === 0) tie = { at: "dry", share: clamp(2 * p) }
  else if (bounds?.min !== null && bounds?.min !== undefined && value === bounds.min) tie = { at: "lowest", share: clamp(2 * p) }
  else if (bounds?.max !== null && bounds?.max !== undefined && value === bounds.max) tie = { at: "highest", share: clamp(2 * (100 - p)) }
  return tie !== null && tie.share >= TIE_WORTH_SAYING ? tie : null
}

/** A share as printed: whole numbers, but never "0" or "100" for a share that is not all or none. */
export const formatShare = (share: number): string => {
  const rounded = Math.round(share)
  if (rounded === 0 && share > 0) return Math.max(0.1, share).toFixed(1)
  if (rounded === 100 && share < 100) return Math.min(99.9, share).toFixed(1)
  return String(rounded)
}

const AT_END: Readonly<Record<"lowest" | "highest", Readonly<Record<TieVariable, string>>>> = {
  lowest: { tmax: "as cold as the coldest", tmin: "as cold as the coldest", precip: "as dry as the driest" },
  highest: { tmax: "as warm as the warmest", tmin: "as warm as the warmest", precip: "as wet as the wettest" }
}

/**
 * The tie in a few words, for a card or a list: "dry, like 69% of days around this date",
 * "as warm as the warmest, like 12% of days around this date".
 */
export const tieWords = (variable: TieVariable, tie: Tie): string =>
  `${tie.at === "dry" ? "dry" : AT_END[tie.at][variable]}, like ${formatShare(tie.share)}% of days around this date`

/**
 * The share of days a value is at least as warm (`upper`) or at least as cold as, from the percentile
 * a payload carries, never more than is true: the share at or below a value is at least its
 * percentile, but that percentile is rounded to a tenth (a true 49.96 is carried as 50.0), so the
 * bound is taken from the lowest true percentile the rounded one can stand for (the highest, for the
 * share at or above) and floored to what is printed: whole numbers, tenths from 99 up. With the
 * sample's size `n`, the true percentile is a multiple of 50/n, which keeps most bounds whole
 * ("96th percentile" is "at least as warm as 96%" rather than 95%).
 */
export const standingShare = (percentile: number, n?: number | null): { readonly upper: boolean; readonly share: number } => {
  const upper = percentile >= 50
  const step = n !== undefined && n !== null && n > 0 ? 50 / n : null
  // Payloads round half up to a tenth: the true percentile is in [p − 0.05, p + 0.05).
  const low = percentile - 0.05
  const high = percentile + 0.05
  // The multiples of 50/n in that range, when there is one (else `n` is not the percentile's own).
  const first = step === null ? low : Math.ceil(low / step - 1e-9) * step
  const last = step === null ? high : Math.floor(high / step + 1e-9) * step
  const lowest = first <= high ? first : low
  const highest = last >= low ? last : high
  const bound = Math.max(0, upper ? lowest : 100 - highest)
  const share = bound >= 99 ? Math.floor(bound * 10 + 1e-9) / 10 : Math.floor(bound + 1e-9)
  return { upper, share }
}

/**
 * Where a value sits by its percentile, in words that hold whatever the ties (see above): "at least
 * as warm as 96% of days", "at least as cold as 90% of days", "at least as wet as 85% of days".
 * `n` is the sample's size (see `standingShare`); `format` prints the share.
 */
export const standingWords = (variable: TieVariable, percentile: number, n: number | null, format: (p: number) => string): string => {
  const { upper, share } = standingShare(percentile, n)
  const adjective = variable === "precip" ? (upper ? "wet" : "dry") : upper ? "warm" : "cold"
  return `at least as ${adjective} as ${format(share)}% of days`
}

type Label = "record-low" | "much-below" | "below" | "near-normal" | "above" | "much-above" | "record-high"

/**
 * The label to put into words. A value that the sample's median day shares (a dry day where most
 * days are dry, or a value equal to the median) is normal for the time of year whatever its
 * percentile, which counts the tie half below: "drier than normal" would be false, so it is
 * said to be near normal.
 */
export const shownLabel = <L extends Label>(variable: TieVariable, grade: Graded & { readonly label: L | null }, bounds?: SampleBounds): L | "near-normal" | null => {
  const label = grade.label
  if (label === null || label === "near-normal" || label === "record-high" || label === "record-low") return label
  if (grade.value !== null && bounds?.p50 !== null && bounds?.p50 !== undefined && grade.value === bounds.p50) return "near-normal"
  const tie = tieOf(variable, grade, bounds)
  return tie !== null && tie.share >= 50 ? "near-normal" : label
}
