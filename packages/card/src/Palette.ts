/**
 * The site's colours (apps/site/src/colors.ts and styles.css), for the card: ColorBrewer's RdBu
 * for temperature and BrBG for precipitation by grade, and the page's ink, muted text, lines and
 * background. apps/site/test/ShareWords.test.ts holds them equal to the site's.
 */
import type { GradeLabel, Variable } from "./Words.js"

const TEMPERATURE: Readonly<Record<GradeLabel, string>> = {
  "record-low": "#053061",
  "much-below": "#2166ac",
  below: "#92c5de",
  "near-normal": "#e9e7df",
  above: "#f4a582",
  "much-above": "#d6604d",
  "record-high": "#67001f"
}

const PRECIPITATION: Readonly<Record<GradeLabel, string>> = {
  "record-low": "#543005",
  "much-below": "#8c510a",
  below: "#dfc27d",
  "near-normal": "#e9e7df",
  above: "#80cdc1",
  "much-above": "#35978f",
  "record-high": "#003c30"
}

export const labelColor = (variable: Variable, label: GradeLabel): string =>
  (variable === "precip" ? PRECIPITATION : TEMPERATURE)[label]

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

/** The page's own colours (styles.css `:root`, `.card`). */
export const PAGE = {
  ink: "#1a1a1a",
  muted: "#55554f",
  line: "#dcdcd5",
  background: "#f7f6f2",
  panel: "#fcfcfa",
  accent: "#1f2a44",
  record: "#67001f"
} as const
