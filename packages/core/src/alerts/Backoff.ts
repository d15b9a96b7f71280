/** When a failed message is tried again: exponential backoff for up to 24 hours. */

export const CAP_MS = 60 * 60 * 1000

/** The wait after the `attempts`-th failed attempt: base, 2·base, 4·base, … at most an hour (or base, if larger). */
export const delay = (attempts: number, baseMs: number): number =>
  Math.min(Math.max(CAP_MS, baseMs), baseMs * 2 ** Math.min(40, Math.max(0, attempts - 1)))

export type Step = { readonly _tag: "Retry"; readonly at: number } | { readonly _tag: "Fail" }

/**
 * After a failure at `now`: retry at `now + wait` (the wait is the backoff, or what a 429 asked
 * for), but never past `createdAt + windowMs` — the last try is at that deadline; a failure at or
 * after it gives up.
 */
export const next = (input: {
  readonly now: number
  readonly createdAt: number
  readonly windowMs: number
  readonly waitMs: number
}): Step => {
  const deadline = input.createdAt + input.windowMs
  if (input.now >= deadline) return { _tag: "Fail" }
  return { _tag: "Retry", at: Math.min(input.now + Math.max(0, input.waitMs), deadline) }
}
