/**
 * The one cache of gradings (the grading rules built over one cell's history record) and of the
 * spells' baseline thresholds of that record, shared by the views and the alert evaluator, so a
 * cell both shown and watched is graded once. A grading is a pure function of the record, and the
 * record changes only when its end does: an entry is good while the record's end is the one it
 * was built for.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Lru from "../Lru.js"
import * as Notable from "../spells/Notable.js"
import type * as Spells from "../spells/Spells.js"
import * as DailySeries from "../weather/DailySeries.js"
import type { History } from "../weather/Held.js"
import { type Grading, makeGrader } from "../grading/Grader.js"

export class GradingCache extends Context.Tag("@climate-grade/core/GradingCache")<
  GradingCache,
  {
    /** The grading of the cell's record, built on first use and whenever the record's end moves. */
    readonly grading: (cellKey: string, history: History) => Effect.Effect<Grading>
    /**
     * The spells' thresholds of the cell's record, computed once and held with its grading;
     * undefined where the forecast enters them (a record ending within two days of its baseline's
     * end), so the caller computes them from its series each time.
     */
    readonly thresholds: (cellKey: string, history: History) => Effect.Effect<Spells.Thresholds | null | undefined>
  }
>() {}

export interface GradingCacheOptions {
  /** The grading rules over one record; the core's `Grader` unless a test gives another. */
  readonly makeGrading?: (series: DailySeries.DailySeries) => Grading
  /** How many cells' gradings to keep built (default 64). */
  readonly capacity?: number
  /** And how many bytes of them at most (default 40 MB). */
  readonly maxBytes?: number
}

interface Entry {
  readonly end: number
  readonly grading: Grading
  readonly bytes: number
  thresholds?: Spells.Thresholds | null
}

export const make = (options: GradingCacheOptions = {}): Effect.Effect<Context.Tag.Service<GradingCache>> =>
  Effect.sync(() => {
    const makeGrading = options.makeGrading ?? ((series: DailySeries.DailySeries) => makeGrader(series))
    // Weighed as twice its record: the grader keeps the record, and once a calendar asks for them,
    // per variable either a table of counts or a sorted copy of the values, and each day's slot.
    const entries = Lru.make<string, Entry>({
      name: "gradings",
      capacity: options.capacity ?? 64,
      maxWeight: options.maxBytes ?? 40 * 1024 * 1024,
      weigh: (entry) => entry.bytes
    })
    const entryFor = (cellKey: string, history: History): Entry => {
      const hit = entries.get(cellKey)
      if (hit !== undefined && hit.end === history.end) return hit
      const entry: Entry = { end: history.end, grading: makeGrading(history.series), bytes: 2 * DailySeries.bytes(history.series) }
      entries.set(cellKey, entry)
      return entry
    }
    return {
      grading: (cellKey, history) => Effect.sync(() => entryFor(cellKey, history).grading),
      thresholds: (cellKey, history) =>
        Effect.sync(() => {
          const entry = entryFor(cellKey, history)
          if (entry.thresholds === undefined) {
            const held = Notable.heldThresholds(history.series, history.end)
            if (held === undefined) return undefined
            entry.thresholds = held
          }
          return entry.thresholds
        })
    }
  })

/** The cache, for the views and the alert evaluator both: provide it once. */
export const layer = (options: GradingCacheOptions = {}): Layer.Layer<GradingCache> => Layer.effect(GradingCache, make(options))
