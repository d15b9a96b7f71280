import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { Cell } from "../Cell.js"
import type { EpochDay } from "../CivilDate.js"
import type { DailySeries } from "./DailySeries.js"
import type { UpstreamError } from "./Errors.js"

/** A daily series as the upstream answered it, with the cell's IANA time zone (`timezone=auto`). */
export interface SourcedSeries {
  readonly timezone: string
  readonly series: DailySeries
}

/**
 * The port to the weather upstream (Open-Meteo in production). The adapter knows what its calls
 * cost and how far its forecast reaches; the core asks it, and counts the costs against the daily
 * budget (`UpstreamBudget`) in whatever units the adapter prices them.
 */
export class WeatherSource extends Context.Tag("@climate-grade/core/WeatherSource")<
  WeatherSource,
  {
    /** Daily history for `[start, end]` inclusive. */
    readonly archive: (cell: Cell, start: EpochDay, end: EpochDay) => Effect.Effect<SourcedSeries, UpstreamError>
    /** The recent past and the forecast, up to `forecastReach` days after the cell's today. */
    readonly forecast: (cell: Cell) => Effect.Effect<SourcedSeries, UpstreamError>
    /** What each call costs, in the units of the daily budget. */
    readonly cost: {
      /** An `archive` call for `[start, end]`. */
      readonly archive: (start: EpochDay, end: EpochDay) => number
      /** A `forecast` call. */
      readonly forecast: number
    }
    /** The last day a forecast holds, in days after the cell's today (today itself is 0). */
    readonly forecastReach: number
  }
>() {}

/** The port to the reverse geocoder (Nominatim in production). */
export class Geocoder extends Context.Tag("@climate-grade/core/Geocoder")<
  Geocoder,
  {
    /**
     * A place label for the cell: `"Seattle, US"`, or the coordinate label when the
     * geocoder knows no place there. Fails when the call itself fails (the cell stays unlabeled).
     */
    readonly label: (cell: Cell) => Effect.Effect<string, UpstreamError>
  }
>() {}
