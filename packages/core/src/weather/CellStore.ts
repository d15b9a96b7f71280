import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { Cell } from "../Cell.js"
import type { DailySeries } from "./DailySeries.js"

/** What is kept for one cell. Times are epoch milliseconds from Effect's Clock. */
export interface CellRecord {
  readonly key: string
  readonly timezone: string | null
  /** Null until a place name (or coordinate label) is known. */
  readonly label: string | null
  /** The record from the first fetched day to its last day with a value; null before the first fetch or when it held nothing. */
  readonly history: DailySeries | null
  /** When the history was last fetched or topped up (attempts count, so the upstream sees at most one an hour). */
  readonly historyCheckedAt: number | null
  /** The last recent-and-forecast series fetched. */
  readonly forecast: DailySeries | null
  /** When `forecast` was fetched: the forecast stamp. */
  readonly forecastStamp: number | null
  /** When the forecast was last fetched or tried (a failed refetch counts, as for the history). */
  readonly forecastCheckedAt: number | null
}

export type ClaimKind = "history" | "forecast"

/** The port to where cell records live (a table in PostgreSQL or PGlite). */
export class CellStore extends Context.Tag("@climate-grade/core/CellStore")<
  CellStore,
  {
    readonly load: (key: string) => Effect.Effect<Option.Option<CellRecord>>
    readonly saveHistory: (
      cell: Cell,
      value: { readonly timezone: string; readonly history: DailySeries | null; readonly checkedAt: number }
    ) => Effect.Effect<void>
    readonly markHistoryChecked: (cell: Cell, checkedAt: number) => Effect.Effect<void>
    readonly saveForecast: (
      cell: Cell,
      value: { readonly timezone: string; readonly forecast: DailySeries; readonly stamp: number }
    ) => Effect.Effect<void>
    /** A refetch was tried and failed: the held forecast and its stamp stay. */
    readonly markForecastChecked: (cell: Cell, checkedAt: number) => Effect.Effect<void>
    readonly saveLabel: (cell: Cell, label: string) => Effect.Effect<void>
    /** The cell's stored label (null when it has none or no row), read without its series. */
    readonly label: (key: string) => Effect.Effect<string | null>
    /**
     * Claims the cell's label lookup for this process, so instances sharing the store make one
     * lookup per cell; false while another holds it. A claim left by a process that died is
     * taken over once it is older than a minute. Unlike `exclusive`, holds no connection.
     */
    readonly claimLabel: (key: string, now: number) => Effect.Effect<boolean>
    readonly releaseLabel: (key: string) => Effect.Effect<void>
    /**
     * Inside `exclusive`: the record as it is now, given what this process holds of it (None when
     * it holds nothing). Whether another process may have written it meanwhile is this store's to
     * know: one shared by several processes (a PostgreSQL server) loads it again, since another
     * may have written while this one waited for the claim; one only this process writes (PGlite)
     * answers with what is held, loading only when nothing is.
     */
    readonly latest: (key: string, held: Option.Option<CellRecord>) => Effect.Effect<Option.Option<CellRecord>>
    /**
     * Runs `effect` holding a claim on (cell, kind) that other server processes sharing the
     * database respect, so a cold cell costs one upstream call however many instances ask.
     */
    readonly exclusive: <A, E, R>(key: string, kind: ClaimKind, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }
>() {}
