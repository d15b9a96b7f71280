/**
 * Colours by grade: ColorBrewer's RdBu for temperature and BrBG for precipitation (diverging,
 * colour-blind safe, and printed in grey they still order light to dark from the middle out).
 * Text drawn on a colour uses `inkOn`, chosen for contrast.
 */
import { labelOfPercentile } from "./format.js"
import type { GradeLabel, Variable } from "./payloads.js"

const TEMPERATURE: Record<GradeLabel, string> = {
  "record-low": "#053061",
  "much-below": "#2166ac",
  below: "#92c5de",
  "near-normal": "#f2f2ee",
  above: "#f4a582",
  "much-above": "#d6604d",
  "record-high": "#67001f"
}

const PRECIPITATION: Record<GradeLabel, string> = {
  "record-low": "#543005",
  "much-below": "#8c510a",
  below: "#dfc27d",
  "near-normal": "#f2f2ee",
  above: "#80cdc1",
  "much-above": "#35978f",
  "record-high": "#003c30"
}

const DARK = new Set<GradeLabel>(["record-low", "much-below", "much-above", "record-high"])

export const labelColor = (variable: Variable, label: GradeLabel): string =>
  (variable === "precip" ? PRECIPITATION : TEMPERATURE)[label]

export const percentileColor = (variable: Variable, p: number): string => labelColor(variable, labelOfPercentile(p))

/** Black or white text on a grade colour, whichever keeps WCAG AA contrast. */
export const inkOn = (label: GradeLabel): string => (DARK.has(label) ? "#ffffff" : "#1a1a1a")

export const LEGEND: ReadonlyArray<GradeLabel> = ["record-low", "much-below", "below", "near-normal", "above", "much-above", "record-high"]

export const NO_DATA = "#d9d9d4"
