/**
 * The views this client knows, in one table: for each, the top-level fields a consumer reads and
 * the JSON kind each must have. A payload is checked against its row, its `view` and its `v`
 * (Payload.ts), nothing deeper: the server's schemas are trusted for the rest, and a phone does
 * not pay for a schema library. A new view is one row here, once the server answers it and the
 * core's PAYLOAD_VER has its entry (Payload.ts reads `PAYLOAD_VER[view]`, so a row without one
 * does not type-check).
 */

/** A JSON value's kind, told by its first character in the text and by `typeof` once parsed. */
export type Kind = "object" | "array" | "string" | "number"

export const VIEWS = {
  grade: { cell: "object", date: "string", variables: "object" },
  forecast: { cell: "object", days: "array" },
  calendar: { cell: "object", dates: "array", series: "object" },
  day: { cell: "object", date: "string", variables: "object" },
  // Not in the bundle: fetched on its own (the baseline, which may be null, is not checked here).
  trend: { cell: "object", first: "string", last: "string", years: "array", periods: "object" },
  // Not in the bundle either (baseline and thresholds, which may be null, are not checked here).
  spells: { cell: "object", first: "string", last: "string", until: "string", now: "array", top: "object", years: "array", recent: "array" }
} as const satisfies Readonly<Record<string, Readonly<Record<string, Kind>>>>

export type ViewName = keyof typeof VIEWS

export const VIEW_NAMES = Object.keys(VIEWS) as ReadonlyArray<ViewName>

export const isViewName = (name: string): name is ViewName => Object.hasOwn(VIEWS, name)

/** The views a full `/cell` bundle carries, in its order; grade and forecast may be null. */
export const SLICES = ["grade", "forecast", "calendar", "day"] as const satisfies ReadonlyArray<ViewName>
export type SliceName = (typeof SLICES)[number]
