/**
 * Colours by label: ColorBrewer's RdBu for temperature and BrBG for precipitation (diverging,
 * colour-blind safe, and printed in grey they still order light to dark from the middle out), the
 * same on the site's pages and the share card. Text drawn on a colour uses `inkOnColor`.
 */
import { type Label, LABELS, labelOfPercentile } from "../grading/Percentile.js"
import type { Variable } from "../weather/DailySeries.js"

export const TEMPERATURE: Readonly<Record<Label, string>> = {
  "record-low": "#053061",
  "much-below": "#2166ac",
  below: "#92c5de",
  "near-normal": "#e9e7df",
  above: "#f4a582",
  "much-above": "#d6604d",
  "record-high": "#67001f"
}

export const PRECIPITATION: Readonly<Record<Label, string>> = {
  "record-low": "#543005",
  "much-below": "#8c510a",
  below: "#dfc27d",
  "near-normal": "#e9e7df",
  above: "#80cdc1",
  "much-above": "#35978f",
  "record-high": "#003c30"
}

/** The labels in a legend's order, coldest (driest) first. */
export const LEGEND: ReadonlyArray<Label> = LABELS

/** No percentile: white, so it reads as empty beside the grey of "near normal". */
export const NO_DATA = "#ffffff"

export const labelColor = (variable: Variable, label: Label): string =>
  (variable === "precip" ? PRECIPITATION : TEMPERATURE)[label]

/** A calendar cell's colour: the label its percentile falls in. */
export const percentileColor = (variable: Variable, p: number): string => labelColor(variable, labelOfPercentile(p))

const luminance = (hex: string): number => {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
}

const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)

/** Near-black or white text on a colour, whichever contrasts more (WCAG 2 relative luminance). */
export const inkOnColor = (background: string): string => {
  const l = luminance(background)
  return contrast(l, luminance("#1a1a1a")) >= contrast(l, 1) ? "#1a1a1a" : "#ffffff"
}

export const inkOn = (variable: Variable, label: Label): string => inkOnColor(labelColor(variable, label))
