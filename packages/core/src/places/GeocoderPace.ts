/**
 * The geocoder's pace for the whole deployment, not per instance: Nominatim's usage policy allows
 * one call a second from an application, and three instances each keeping to one a second would
 * make three. Each call first claims the next start time from a shared place (the database), in
 * one atomic step, so however many instances call at once, their starts are `gap` apart.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

export class GeocoderPace extends Context.Tag("@climate-grade/core/GeocoderPace")<
  GeocoderPace,
  {
    /** Claims the next start at or after `nowMs` (epoch ms), `gapMs` after the one claimed before it: when this call may start. */
    readonly claim: (nowMs: number, gapMs: number) => Effect.Effect<number>
  }
>() {}

/** The rule the store applies atomically: the claimed start, and the earliest start it leaves for the next claim. */
export const step = (next: number | undefined, nowMs: number, gapMs: number): { readonly start: number; readonly next: number } => {
  const start = Math.max(next ?? nowMs, nowMs)
  return { start, next: start + gapMs }
}
