/**
 * The card of a place's today (1200 × 630, the size chat clients and social sites show large) as
 * SVG: the place, the date, and for each of high, low and precipitation the value with its unit,
 * the label in words on its grade's colour, the percentile and a bar, in the site's colours.
 * Pure: text widths come from `measure` (the renderer's real font), so long names are fitted.
 */
import type { GradePayload } from "@climate-grade/core/data/Payloads"
import type { Language } from "@climate-grade/core/i18n/Languages"
import * as Messages from "@climate-grade/core/i18n/Messages"
import type { NotableSpell } from "@climate-grade/core/spells/Notable"
import { Palette, Percentile, type Variable, Words } from "@climate-grade/core/rules"
import { formatShare, shownLabel, tieOf } from "@climate-grade/core/grading/Ties"
import { PAGE } from "./Palette.js"
import { placeLabel, SITE_NAME, spellText } from "./ShareText.js"

const { inkOnColor, labelColor } = Palette
const { formatCoordinates, formatValue, labelWords, longDate, ordinal, sinceYearOf, VARIABLE_NAME, VARIABLES } = Words
type Units = Words.Units

/** The layout's version, part of the card's ETag: raise it with any change to what a card looks like. */
export const VERSION = 5

export const WIDTH = 1200
export const HEIGHT = 630
/** The one font family the renderer loads (from files in this package's dependencies). */
export const FONT = "Inter"
/** Inter first; the script fonts for what it lacks (loaded only for the languages that need them). */
const FAMILIES = `${FONT}, Noto Sans Arabic, Noto Sans JP`

export type Weight = 400 | 600 | 700

/** The advance width of `text` in px at `size` and `weight`. */
export type Measure = (text: string, size: number, weight: Weight) => number

const escapeXml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!)

const text = (x: number, y: number, size: number, weight: Weight, fill: string, content: string, extra = "") =>
  `<text x="${x}" y="${y}" font-family="${FAMILIES}" font-size="${size}" font-weight="${weight}" fill="${fill}"${extra}>${escapeXml(content)}</text>`

/**
 * The narrowest advance a character of the card's font has, in em (Inter's thinnest marks are
 * wider): at most `width / (size × this)` characters can be shown at `size`, so a longer text is
 * cut to that before anything is measured.
 */
export const NARROWEST_EM = 0.15

/**
 * `content` at the largest size from `size` down to `min` that fits `width`; at `min`, cut with
 * an ellipsis until it does. A text is measured once for every size (widths scale with the size),
 * and the cut is found by a binary search over its length, after the text has been cut to what
 * the width could ever show: a few measurements, whatever the text's length.
 */
export const fitText = (measure: Measure, content: string, width: number, size: number, min: number, weight: Weight) => {
  const chars = [...content]
  const showable = Math.max(1, Math.floor(width / (min * NARROWEST_EM)))
  if (chars.length <= showable) {
    for (let s = size; s >= min; s -= 2) if (measure(content, s, weight) <= width) return { content, size: s }
  }
  const cutAt = (n: number) => `${chars.slice(0, n).join("").trimEnd()}…`
  // The longest cut that fits: `fits` holds at `low` (or nothing does), never at `high`.
  let low = 0
  let high = Math.min(chars.length, showable + 1)
  while (high - low > 1) {
    const middle = (low + high) >>> 1
    if (measure(cutAt(middle), min, weight) <= width) low = middle
    else high = middle
  }
  return low === 0 ? { content: "…", size: min } : { content: cutAt(low), size: min }
}

const BANDS = Percentile.BANDS

const MARGIN = 60
const GAP = 30
const PANEL_WIDTH = (WIDTH - 2 * MARGIN - 2 * GAP) / 3
const PANEL_TOP = 190
const PANEL_HEIGHT = 340
const PAD = 28

const panel = (measure: Measure, grade: GradePayload, variable: Variable, units: Units, x: number, lang: Language): string => {
  const en = lang === "en"
  const g = grade.variables[variable]
  const record = g.label === "record-high" || g.label === "record-low"
  const inner = PANEL_WIDTH - 2 * PAD
  const left = x + PAD
  const parts = [
    `<rect x="${x}" y="${PANEL_TOP}" width="${PANEL_WIDTH}" height="${PANEL_HEIGHT}" rx="16" fill="${PAGE.panel}" stroke="${record ? PAGE.record : PAGE.line}" stroke-width="${record ? 4 : 2}"/>`,
    text(left, PANEL_TOP + 52, 24, 600, PAGE.muted, (en ? VARIABLE_NAME[variable] : Messages.variableName(lang, variable)).toLocaleUpperCase(lang), ' letter-spacing="1.5"')
  ]
  const value = fitText(measure, en ? formatValue(g.value, g.unit, units) : Messages.formatValue(lang, g.value, g.unit, units), inner, 60, 36, 700)
  parts.push(text(left, PANEL_TOP + 128, value.size, 700, PAGE.ink, value.content))
  // A dry day is described by the dry days it ties with (core's Ties), and is normal where most are.
  const shown = shownLabel(variable, g)
  const tie = tieOf(variable, g)
  if (shown !== null) {
    const fill = labelColor(variable, shown)
    const words = fitText(measure, en ? labelWords(variable, shown) : Messages.labelWords(lang, variable, shown), inner - 40, 26, 20, 600)
    const chip = Math.min(inner, measure(words.content, words.size, 600) + 40)
    parts.push(
      `<rect x="${left}" y="${PANEL_TOP + 152}" width="${chip.toFixed(1)}" height="48" rx="24" fill="${fill}" stroke="rgba(0,0,0,0.15)" stroke-width="1.5"/>`,
      text(left + 20, PANEL_TOP + 185, words.size, 600, inkOnColor(fill), words.content)
    )
  }
  const percentile = en
    ? g.percentile === null ? `no percentile (n = ${g.n})` : tie !== null ? `Dry, like ${formatShare(tie.share)}% of days` : `${ordinal(g.percentile)} percentile`
    : g.percentile === null
      ? Messages.t(lang, "percentile.none", { n: g.n })
      : tie !== null
        ? Messages.t(lang, "dry.like", { share: Messages.formatPercentile(lang, tie.share) })
        : Messages.percentileWords(lang, g.percentile)
  const line = fitText(measure, percentile, inner, 28, 18, 600)
  parts.push(text(left, PANEL_TOP + 250, line.size, g.percentile === null ? 400 : 600, g.percentile === null ? PAGE.muted : PAGE.ink, line.content))
  // The bar: the grade bands from 0 to 100, and where today falls on it.
  const barY = PANEL_TOP + 276
  for (const [from, to, label] of BANDS) {
    parts.push(
      `<rect x="${(left + (from / 100) * inner).toFixed(1)}" y="${barY}" width="${(((to - from) / 100) * inner).toFixed(1)}" height="14" fill="${labelColor(variable, label)}"/>`
    )
  }
  parts.push(`<rect x="${left}" y="${barY}" width="${inner}" height="14" fill="none" stroke="#8a8a85" stroke-width="1"/>`)
  if (g.percentile !== null) {
    const at = (left + (g.percentile / 100) * inner).toFixed(1)
    parts.push(`<rect x="${Number(at) - 3}" y="${barY - 8}" width="6" height="30" rx="2" fill="${PAGE.ink}" stroke="#ffffff" stroke-width="1.5"/>`)
  }
  return parts.join("")
}

/**
 * What Inter draws: Latin, Greek and Cyrillic, with the punctuation and marks they use. A label in
 * another script (東京都, القاهرة) would come out as blanks: the card then names the place by its
 * coordinates, which the line below it shows anyway.
 */
const DRAWABLE = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}\p{Script=Inherited}]*$/u

export const drawableLabel = (grade: GradePayload): string => {
  const label = placeLabel(grade)
  return DRAWABLE.test(label) ? label : formatCoordinates(grade.cell.lat, grade.cell.lon)
}

/** The band's colour for a heat wave or a cold spell (white text on it is AA). */
const SPELL_FILL = { heat: "#b2182b", cold: "#2166ac" } as const

/** The demo's stamp: what it says (in English, as the demo's page heads do) and its colour. */
export const DEMO_STAMP = { words: "DEMO DATA", detail: "Not real weather" } as const
const DEMO_INK = "#b2182b"
/** The room the stamp takes at the top right, kept clear of the place and the date. */
const DEMO_ROOM = 300

/** A rubber stamp at the top right, tilted, in red on white, sized to its words in the card's font. */
const demoStamp = (measure: Measure): string => {
  const w = Math.min(DEMO_ROOM - 20, Math.max(measure(DEMO_STAMP.words, 42, 700), measure(DEMO_STAMP.detail, 24, 600)) + 56)
  const h = 104
  const [cx, cy] = [WIDTH - MARGIN - w / 2 - 4, 92]
  return [
    `<g transform="rotate(-6 ${cx.toFixed(1)} ${cy})">`,
    `<rect x="${(cx - w / 2).toFixed(1)}" y="${cy - h / 2}" width="${w.toFixed(1)}" height="${h}" rx="12" fill="#ffffff" fill-opacity="0.92" stroke="${DEMO_INK}" stroke-width="6"/>`,
    text(Number(cx.toFixed(1)), cy + 4, 42, 700, DEMO_INK, DEMO_STAMP.words, ' text-anchor="middle"'),
    text(Number(cx.toFixed(1)), cy + 36, 24, 600, DEMO_INK, DEMO_STAMP.detail, ' text-anchor="middle"'),
    "</g>"
  ].join("")
}

/**
 * The card's SVG for a place's grade payload; with a severe or extreme heat wave or cold spell on
 * or coming, a band at the foot says it in place of the footer. On a demo (`demo`: the weather is
 * made up) a stamp says "Demo data" at the top right and the footer credits no real source.
 */
export const svg = (
  grade: GradePayload,
  units: Units,
  measure: Measure,
  spell: NotableSpell | null = null,
  lang: Language = "en",
  demo = false
): string => {
  const en = lang === "en"
  // The spell's sentence is the core's, in English: other languages keep the footer instead.
  if (!en) spell = null
  const top = WIDTH - 2 * MARGIN - (demo ? DEMO_ROOM : 0)
  const place = fitText(measure, drawableLabel(grade), top, 64, 40, 700)
  const since = sinceYearOf(Math.max(...VARIABLES.map((v) => grade.variables[v].n)), grade.date)
  const subtitle = `${en ? longDate(grade.date) : Messages.longDate(lang, grade.date)} · ${formatCoordinates(grade.cell.lat, grade.cell.lon)}`
  const ranked = en
    ? `Ranked against the same days of the year ${since === null ? "in the record" : `since ${since}`} · ERA5 via Open-Meteo`
    : Messages.t(lang, "card.footer", {
        since: since === null ? Messages.t(lang, "since.record") : Messages.t(lang, "card.since", { year: since })
      })
  // The credit of the data's source follows the last " · ": a demo's weather has none.
  const footer = demo ? ranked.slice(0, ranked.lastIndexOf(" · ")) : ranked
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="${PAGE.background}"/>`,
    `<rect width="${WIDTH}" height="10" fill="${PAGE.accent}"/>`,
    text(MARGIN, 100, place.size, 700, PAGE.ink, place.content),
    ...(() => {
      // Beside the demo's stamp the date line has less room.
      const line = demo ? fitText(measure, subtitle, top, 30, 22, 400) : { content: subtitle, size: 30 }
      return [text(MARGIN, 150, line.size, 400, PAGE.muted, line.content)]
    })(),
    ...VARIABLES.map((v, i) => panel(measure, grade, v, units, MARGIN + i * (PANEL_WIDTH + GAP), lang)),
    ...(spell === null
      ? [text(MARGIN, HEIGHT - 42, 24, 400, PAGE.muted, fitText(measure, footer, WIDTH - 2 * MARGIN - 260, 24, 18, 400).content)]
      : (() => {
          // Two lines: what and when, then its standing.
          const [what = "", standing = ""] = spellText(spell, grade.date).split(": ")
          const room = WIDTH - 2 * MARGIN - 240 - 36
          const first = fitText(measure, what, room, 24, 17, 700)
          const second = fitText(measure, standing.charAt(0).toUpperCase() + standing.slice(1), room, 22, 16, 400)
          return [
            `<rect x="${MARGIN - 14}" y="${HEIGHT - 84}" width="${WIDTH - 2 * MARGIN - 240}" height="72" rx="12" fill="${SPELL_FILL[spell.spell.kind]}"/>`,
            text(MARGIN + 4, HEIGHT - 55, first.size, 700, "#ffffff", first.content),
            text(MARGIN + 4, HEIGHT - 25, second.size, 400, "#ffffff", second.content)
          ]
        })()),
    text(WIDTH - MARGIN, HEIGHT - 42, 28, 700, PAGE.accent, SITE_NAME, ' text-anchor="end"'),
    ...(demo ? [demoStamp(measure)] : []),
    "</svg>"
  ].join("")
}
