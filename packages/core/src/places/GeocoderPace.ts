/**
 * The geocoder's pace for the whole deployment, not per instance: Nominatim's usage policy allows
 * one call a second from an application, and three instances each keeping to one a second would
 * make three. Each call first claims the next start time from a shared place (the database), in
 * one atomic step, so however many instances call at once, their starts are `gap` apart. Times
 * are the shared place's own clock, so instances whose clocks disagree still agree on the pace.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

export class GeocoderPace extends Context.Tag("@climate-grade/core/GeocoderPace")<
  GeocoderPace,
  {
    /** Claims the next start, `gapMs` after the one claimed before it: how long (ms) this call waits for it. */
    readonly claim: (gapMs: number) => Effect.Effect<number>
  }
>() {}

/** A stored next start further ahead than this is not believed (a clock that was wrong): now instead. */
export const MAX_AHEAD_MS = 60_000

/** The rule the store applies atomically: the claimed start, and the earliest start it leaves for the next claim. */
export const step = (next: number | undefined, nowMs: number, gapMs: number): { readonly start: number; readonly next: number } => {
  const believed = next === undefined || next > nowMs + MAX_AHEAD_MS ? nowMs : next
  const start = Math.max(believed, nowMs)
  return { start, next: start + gapMs }
}
