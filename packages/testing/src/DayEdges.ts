/**
 * Tests that run on the real clock and expect one date throughout: the budget's UTC day, the
 * Berlin "today" of the fake Open-Meteo's cells, the words a page picks for "today" or
 * "tomorrow". A test that starts just before such a date changes would see it change in the
 * middle; these wait, in that case only, until just after it.
 */
import { CivilDate } from "@climate-grade/core"
import * as Effect from "effect/Effect"

/** The time zone of the fake Open-Meteo's cells, whose date the server and the pages call today. */
export const CELL_ZONE = "Europe/Berlin"

/** The budget's day: 00:00 UTC. */
export const BUDGET_ZONE = "Etc/UTC"

/**
 * When the date in `timeZone` changes within `marginMs` from now, the milliseconds to wait until
 * one second after it; else 0. `shiftMs` asks about a clock that is that far ahead (a page whose
 * `Date` is moved) — its date changes at its own instants across a daylight-saving change.
 */
export const waitNeeded = (timeZone: string, marginMs: number, now = Date.now(), shiftMs = 0): number => {
  const change = CivilDate.dateChangeWithin(now + shiftMs, timeZone, marginMs)
  return change === undefined ? 0 : change - (now + shiftMs) + 1_000
}

/**
 * Waits (on the real clock, whatever clock the test's Effects use) until the date in `timeZone`
 * will hold for `marginMs`, which is at once unless it changes within that time.
 */
export const clearOfDateChange = (timeZone: string, marginMs: number, shiftMs = 0): Effect.Effect<void> =>
  Effect.promise(() => {
    const ms = waitNeeded(timeZone, marginMs, Date.now(), shiftMs)
    return ms === 0 ? Promise.resolve() : new Promise<void>((resolve) => setTimeout(resolve, ms))
  })
