/**
 * The heat waves and cold spells on or coming at a cell (the spells view's `now`, heat and cold
 * only) from its record and forecast, for the readers that tell one unasked: alerts, the share card
 * and a shared link's head. Pure; the thresholds, a function of the record's baseline alone, are
 * computed once per record by `heldThresholds` and passed in.
 */
import * as CivilDate from "../CivilDate.js"
import * as Baseline from "../trend/Baseline.js"
import type { DailySeries } from "../weather/DailySeries.js"
import * as Spells from "./Spells.js"
import { mostNotable, type RankedSpell } from "./SpellWords.js"

export interface NowSpells {
  readonly now: ReadonlyArray<RankedSpell>
  /** The record's first year: "since 1940". */
  readonly since: number
}

/** The thresholds to hold for a record (undefined when a forecast could still enter them). */
export const heldThresholds = (record: DailySeries, recordLast: CivilDate.EpochDay): Spells.Thresholds | null | undefined =>
  Spells.thresholdsHeld(record, recordLast) ? Spells.thresholds(record, Baseline.of(record.start, recordLast)) : undefined

export const nowOf = (input: {
  readonly record: DailySeries
  readonly recordLast: CivilDate.EpochDay
  readonly forecast: DailySeries | null
  readonly today: CivilDate.EpochDay
  readonly thresholds?: Spells.Thresholds | null | undefined
}): NowSpells => {
  const built = Spells.build({
    series: Spells.series(input.record, input.recordLast, input.forecast),
    recordLast: input.recordLast,
    today: input.today,
    ...(input.thresholds === undefined ? {} : { thresholds: input.thresholds })
  })
  const now = built.now.filter((x) => x.kind === "heat" || x.kind === "cold").map(Spells.spellJson) as ReadonlyArray<RankedSpell>
  return { now, since: CivilDate.toYmd(input.record.start).year }
}

/** A severe or extreme heat wave or cold spell on or coming, with the record's first year. */
export interface NotableSpell {
  readonly spell: RankedSpell
  readonly since: number
}

export const notableOf = (spells: NowSpells): NotableSpell | null => {
  const spell = mostNotable(spells.now)
  return spell === undefined ? null : { spell, since: spells.since }
}
