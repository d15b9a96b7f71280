/**
 * The weather a cell's views are built from, spending the upstream's quota as little as it can
 * be spent (docs/architecture.md "Data"). This module only composes the parts, each in its own file:
 * - `RecordCache`: decoded records in memory in front of the `CellStore`;
 * - `Backoff`: an endpoint's Retry-After, honoured for every cell;
 * - `HistoryFlow`, `ForecastFlow`, `LabelFlow`: when each part of a record is fetched again.
 * Time comes from Effect's Clock, so tests move it with TestClock.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Duration from "effect/Duration"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import type { Cell } from "../Cell.js"
import type * as CivilDate from "../CivilDate.js"
import * as Backoff from "./Backoff.js"
import { CellStore } from "./CellStore.js"
import type { NoHistory, UpstreamError } from "./Errors.js"
import { ForecastEvents } from "./ForecastEvents.js"
import * as ForecastFlow from "./ForecastFlow.js"
import { type Forecast, type History, toForecast, toHistory } from "./Held.js"
import * as HistoryFlow from "./HistoryFlow.js"
import * as LabelFlow from "./LabelFlow.js"
import * as RecordCache from "./RecordCache.js"
import * as UpstreamBudget from "./UpstreamBudget.js"
import { Geocoder, WeatherSource } from "./WeatherSource.js"

export { type Forecast, HOUR_MS, type History } from "./Held.js"

export interface CellDataOptions {
  readonly historyStart: CivilDate.EpochDay
  /** How many decoded cell records to keep in memory. */
  readonly cacheSize?: number
  /**
   * The weather source's cost units a UTC day may spend on new cells (`UpstreamBudget`); null or absent:
   * unlimited. The ledger is the `BudgetLedger` service when provided, else this process's own.
   */
  readonly dailyUnits?: number | null
  /** How the day is split between clients (default `UpstreamBudget.UNSPLIT`: not at all). */
  readonly shares?: UpstreamBudget.Shares
  /** How long a view waits for a new cell's label queued behind other lookups before it is served without one (default 2 s). */
  readonly labelWait?: Duration.DurationInput
}

export class CellData extends Context.Tag("@climate-grade/core/CellData")<
  CellData,
  {
    readonly history: (cell: Cell) => Effect.Effect<History, UpstreamError | NoHistory>
    /** The history already held, without any upstream call (prefetch). */
    readonly heldHistory: (cell: Cell) => Effect.Effect<Option.Option<History>>
    readonly forecast: (cell: Cell) => Effect.Effect<Forecast, UpstreamError>
    /** The forecast already held, fresh or not, without any upstream call. */
    readonly heldForecast: (cell: Cell) => Effect.Effect<Option.Option<Forecast>>
    /**
     * The cell's label, looked up when it has none; null when that lookup fails or has not
     * answered within `labelWait` (it goes on in the background and labels the cell later).
     */
    readonly label: (cell: Cell) => Effect.Effect<string | null>
    /** The label held, without a lookup. */
    readonly heldLabel: (cell: Cell) => Effect.Effect<string | null>
    /** The last day a forecast holds, in days after the cell's today (the weather source's `forecastReach`). */
    readonly forecastReach: number
  }
>() {}

export const make = (options: CellDataOptions) =>
  Effect.gen(function* () {
    const store = yield* CellStore
    const source = yield* WeatherSource
    // Told of each forecast refetch, when someone listens (alerts).
    const refetched = yield* Effect.serviceOption(ForecastEvents)
    const geocoder = yield* Geocoder
    const cache = RecordCache.make(store, options.cacheSize ?? 64)
    const guard = Backoff.make()
    const ledger = Option.getOrElse(yield* Effect.serviceOption(UpstreamBudget.BudgetLedger), UpstreamBudget.memoryLedger)
    const budget = UpstreamBudget.make(ledger, options.dailyUnits ?? null, options.shares)
    // The runs that outlive a request (a cell's fetch shared by its callers, a label lookup) are
    // this scope's: shutdown interrupts those still under way.
    const fibers = yield* FiberSet.make()
    // The gauge tells the day's truth from the start, not only after this process's first call.
    yield* budget.observe
    return CellData.of({
      history: HistoryFlow.make({ store, source, cache, guard, budget, fibers, historyStart: options.historyStart }),
      heldHistory: (cell) => Effect.map(cache.current(cell.key), toHistory),
      forecast: ForecastFlow.make({ store, source, cache, guard, budget, fibers, refetched: Option.getOrUndefined(refetched) }),
      heldForecast: (cell) => Effect.map(cache.current(cell.key), toForecast),
      label: LabelFlow.make({ store, geocoder, cache, fibers, wait: options.labelWait ?? Duration.seconds(2) }),
      heldLabel: (cell) => Effect.map(cache.current(cell.key), (r) => r.label),
      forecastReach: source.forecastReach
    })
  })

export const layer = (options: CellDataOptions) => Layer.scoped(CellData, make(options))
