/**
 * The card of a place's today (1200 × 630, the size chat clients and social sites show large) as
 * SVG: the place, the date, and for each of high, low and precipitation the value with its unit,
 * the label in words on its grade's colour, the percentile and a bar, in the site's colours.
 * Pure: text widths come from `measure` (the renderer's real font), so long names are fitted.
 */
import type { GradePayload } from "@climate-grade/core/data/Payloads"
import { dir, type Language } from "@climate-grade/core/i18n/Languages"
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
export const VERSION = 9

export const WIDTH = 1200
export const HEIGHT = 630
/** The card's main font (Latin, Greek, Cyrillic); Fonts has the Arabic and Japanese ones. */
export const FONT = "Inter"
/** Inter first; the script fonts for what it lacks (loaded only for the cards that need them: CardPng). */
const FAMILIES = `${FONT}, Noto Sans Arabic, Noto Sans JP`

const JAPANESE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u
const ARABIC = /\p{Script=Arabic}/u
/**
 * A text whose first letter is Arabic: on a right-to-left card such a place name is one
 * right-to-left run ("القاهرة, EG" read from the right: the name, then its country), as a browser's
 * `dir="auto"` would set it; a name in another script is left as it is.
 */
const ARABIC_FIRST = /^[^\p{L}]*\p{Script=Arabic}/u

/**
 * The font families of a text: a text in Japanese or Arabic names its script's font first. resvg
 * draws a character the first family lacks with the first loaded font that has it, in whatever
 * weight comes first, so behind Inter a bold Japanese or Arabic title came out regular (and each
 * such character sent resvg looking through the font files). Noto Sans JP draws the digits and
 * Latin letters of a Japanese text itself; Noto Sans Arabic leaves Latin ones to Inter.
 */
export const familiesOf = (content: string): string =>
  JAPANESE.test(content) ? `Noto Sans JP, ${FONT}` : ARABIC.test(content) ? `Noto Sans Arabic, ${FONT}` : FAMILIES

export type Weight = 400 | 600 | 700

/** The advance width of `text` in px at `size` and `weight`. */
export type Measure = (text: string, size: number, weight: Weight) => number

const escapeXml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!)

const text = (x: number, y: number, size: number, weight: Weight, fill: string, content: string, extra = "") =>
  `<text x="${x}" y="${y}" font-family="${familiesOf(content)}" font-size="${size}" font-weight="${weight}" fill="${fill}"${extra}>${escapeXml(content)}</text>`

/** A text at a place a `Flow` gives: its x and its anchor. */
const textAt = ([x, anchor]: readonly [number, string], y: number, size: number, weight: Weight, fill: string, content: string, extra = "") =>
  text(x, y, size, weight, fill, content, `${extra}${anchor}`)

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

/**
 * A sentence of a right-to-left language as one right-to-left run (Unicode's RLI … PDI): resvg lays
 * out every <text> as a left-to-right paragraph (it ignores `direction`), and without the isolate the
 * number in the footer's Arabic sentence and the date line's coordinates are moved into each other's
 * words. (resvg mirrors only one bracket of a pair in such a run: the panels' lines are cut into
 * runs instead, `rtlLine`.)
 */
const isolated = (lang: Language, s: string): string => (dir(lang) === "rtl" ? `\u2067${s}\u2069` : s)

/**
 * Where the card's things go in a language's direction. The layout is written left to right; in a
 * right-to-left language it is mirrored about the card's middle: a text that starts at `x` ends at
 * `WIDTH - x` (anchored at its end: resvg does not lay out by `direction`, so the positions are
 * computed), and a box `width` wide at `x` lies at `WIDTH - x - width`. Left to right, both are the
 * identity, so those cards are drawn exactly as before.
 */
interface Flow {
  readonly rtl: boolean
  /** The x and the anchor attribute of a text that starts at `x` left to right. */
  readonly start: (x: number) => readonly [number, string]
  /** The x and the anchor attribute of a text that ends at `x` left to right. */
  readonly end: (x: number) => readonly [number, string]
  /** The x of a box `width` wide at `x` left to right. */
  readonly box: (x: number, width: number) => number
}

const END = ' text-anchor="end"'
const round = (x: number) => Number(x.toFixed(1))

const flowOf = (lang: Language): Flow =>
  dir(lang) === "rtl"
    ? { rtl: true, start: (x) => [round(WIDTH - x), END], end: (x) => [round(WIDTH - x), ""], box: (x, width) => round(WIDTH - x - width) }
    : { rtl: false, start: (x) => [x, ""], end: (x) => [x, END], box: (x) => x }

/**
 * A panel's line in a right-to-left language, cut into the runs resvg draws right, each its own
 * <text>, set leftwards from `right` (the line's end) in reading order: the Arabic words, and each
 * part in brackets with no Arabic in it (the "(n = 12)" of "لا مئين (n = 12)"). resvg lays out a
 * <text> as a left-to-right paragraph, so plain, such a part stays on the right of the Arabic, where
 * a right-to-left reader reads it first; inside RLI … PDI the order is right but resvg mirrors only
 * one bracket of the pair ("(n = 12("). A number among Arabic words ("المئين 100") is ordered right
 * as it is.
 */
const rtlLine = (measure: Measure, right: number, y: number, size: number, weight: Weight, fill: string, content: string): string => {
  const runs = content
    .split(/(\([^()\p{Script=Arabic}]*\))/u)
    .map((run) => run.trim())
    .filter((run) => run !== "")
  if (runs.length <= 1) return text(right, y, size, weight, fill, content, END)
  // The widths are of the runs' ink, without side bearings: the gap is a space and a half.
  const space = 1.5 * (measure("n n", size, weight) - measure("nn", size, weight))
  let at = right
  return runs
    .map((run) => {
      const drawn = text(round(at), y, size, weight, fill, run, END)
      at -= measure(run, size, weight) + space
      return drawn
    })
    .join("")
}

/**
 * A grade's panel, `x` from the card's left edge in the left-to-right layout (`flow` mirrors it).
 * Its texts start at the panel's reading edge; the percentile bar runs from cold to hot left to
 * right in every language: a scale keeps its axis, as the page's percentile bar does (`dir="ltr"`).
 */
const panel = (measure: Measure, grade: GradePayload, variable: Variable, units: Units, x: number, lang: Language, flow: Flow): string => {
  const en = lang === "en"
  const g = grade.variables[variable]
  const record = g.label === "record-high" || g.label === "record-low"
  const inner = PANEL_WIDTH - 2 * PAD
  const left = x + PAD
  const start = flow.start(left)
  const parts = [
    `<rect x="${flow.box(x, PANEL_WIDTH)}" y="${PANEL_TOP}" width="${PANEL_WIDTH}" height="${PANEL_HEIGHT}" rx="16" fill="${PAGE.panel}" stroke="${record ? PAGE.record : PAGE.line}" stroke-width="${record ? 4 : 2}"/>`,
    textAt(start, PANEL_TOP + 52, 24, 600, PAGE.muted, (en ? VARIABLE_NAME[variable] : Messages.variableName(lang, variable)).toLocaleUpperCase(lang), ' letter-spacing="1.5"')
  ]
  const value = fitText(measure, en ? formatValue(g.value, g.unit, units) : Messages.formatValue(lang, g.value, g.unit, units), inner, 60, 36, 700)
  parts.push(textAt(start, PANEL_TOP + 128, value.size, 700, PAGE.ink, value.content))
  // A dry day is described by the dry days it ties with (core's Ties), and is normal where most are.
  const shown = shownLabel(variable, g)
  const tie = tieOf(variable, g)
  if (shown !== null) {
    const fill = labelColor(variable, shown)
    const words = fitText(measure, en ? labelWords(variable, shown) : Messages.labelWords(lang, variable, shown), inner - 40, 26, 20, 600)
    const chip = Math.min(inner, measure(words.content, words.size, 600) + 40)
    parts.push(
      `<rect x="${flow.box(left, Number(chip.toFixed(1)))}" y="${PANEL_TOP + 152}" width="${chip.toFixed(1)}" height="48" rx="24" fill="${fill}" stroke="rgba(0,0,0,0.15)" stroke-width="1.5"/>`,
      textAt(flow.start(left + 20), PANEL_TOP + 185, words.size, 600, inkOnColor(fill), words.content)
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
  const [weight, fill] = g.percentile === null ? ([400, PAGE.muted] as const) : ([600, PAGE.ink] as const)
  const lineY = PANEL_TOP + 250
  parts.push(flow.rtl ? rtlLine(measure, start[0], lineY, line.size, weight, fill, line.content) : text(left, lineY, line.size, weight, fill, line.content))
  // The bar: the grade bands from 0 to 100, and where today falls on it (mirrored as a whole).
  const barY = PANEL_TOP + 276
  const barLeft = flow.box(left, inner)
  for (const [from, to, label] of BANDS) {
    parts.push(
      `<rect x="${(barLeft + (from / 100) * inner).toFixed(1)}" y="${barY}" width="${(((to - from) / 100) * inner).toFixed(1)}" height="14" fill="${labelColor(variable, label)}"/>`
    )
  }
  parts.push(`<rect x="${barLeft}" y="${barY}" width="${inner}" height="14" fill="none" stroke="#8a8a85" stroke-width="1"/>`)
  if (g.percentile !== null) {
    const at = (barLeft + (g.percentile / 100) * inner).toFixed(1)
    parts.push(`<rect x="${Number(at) - 3}" y="${barY - 8}" width="6" height="30" rx="2" fill="${PAGE.ink}" stroke="#ffffff" stroke-width="1.5"/>`)
  }
  return parts.join("")
}

/** Whether the card's fonts have a glyph for every character of a text (CardPng reads their character maps). */
export type Draws = (text: string) => boolean

/**
 * The scripts Inter draws: Latin, Greek and Cyrillic, with the punctuation and marks they use; what
 * a card is judged by when no font's character map is at hand (a stand-in `measure`).
 */
export const INTER_SCRIPTS: Draws = (text) =>
  /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}\p{Script=Inherited}]*$/u.test(text)

/**
 * The place's name, when the card's fonts draw all of it (東京都 with the Japanese font, القاهرة
 * with the Arabic one); else it would come out as blank boxes, and the card names the place by its
 * coordinates, which the line below it shows anyway.
 */
export const drawableLabel = (grade: GradePayload, draws: Draws = INTER_SCRIPTS): string => {
  const label = placeLabel(grade)
  return draws(label) ? label : formatCoordinates(grade.cell.lat, grade.cell.lon)
}

/** The band's colour for a heat wave or a cold spell (white text on it is AA). */
const SPELL_FILL = { heat: "#b2182b", cold: "#2166ac" } as const

/** The demo's stamp: what it says (in English, as the demo's page heads do) and its colour. */
export const DEMO_STAMP = { words: "DEMO DATA", detail: "Not real weather" } as const
const DEMO_INK = "#b2182b"
/** The room the stamp takes at the top right, kept clear of the place and the date. */
const DEMO_ROOM = 300

/**
 * A rubber stamp at the top right (top left in a right-to-left language, where the title starts
 * on the right), tilted, in red on white, sized to its words in the card's font.
 */
const demoStamp = (measure: Measure, flow: Flow): string => {
  const w = Math.min(DEMO_ROOM - 20, Math.max(measure(DEMO_STAMP.words, 42, 700), measure(DEMO_STAMP.detail, 24, 600)) + 56)
  const h = 104
  const [cx, cy] = [flow.box(WIDTH - MARGIN - w / 2 - 4, 0), 92]
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
 * `draws` says which place names the renderer's fonts can draw.
 */
export const svg = (
  grade: GradePayload,
  units: Units,
  measure: Measure,
  spell: NotableSpell | null = null,
  lang: Language = "en",
  demo = false,
  draws: Draws = INTER_SCRIPTS
): string => {
  const en = lang === "en"
  const flow = flowOf(lang)
  const told = spell === null ? null : spellText(spell, grade.date, lang)
  const top = WIDTH - 2 * MARGIN - (demo ? DEMO_ROOM : 0)
  const place = fitText(measure, drawableLabel(grade, draws), top, 64, 40, 700)
  const since = sinceYearOf(Math.max(...VARIABLES.map((v) => grade.variables[v].n)), grade.date)
  const rtl = flow.rtl
  // The coordinates beside a right-to-left date are kept apart by LRI … PDI, so the bidirectional
  // algorithm cannot move a number or "°N" from one into the other; the line as a whole is one
  // right-to-left run, so the date comes first from the right.
  const rtlIsolate = (s: string) => isolated(lang, s)
  const ltrIsolate = (s: string) => (rtl ? `\u2066${s}\u2069` : s)
  const subtitle = rtlIsolate(
    `${rtlIsolate(en ? longDate(grade.date) : Messages.longDate(lang, grade.date))} · ${ltrIsolate(formatCoordinates(grade.cell.lat, grade.cell.lon))}`
  )
  const ranked = en
    ? `Ranked against the same days of the year ${since === null ? "in the record" : `since ${since}`} · ERA5 via Open-Meteo`
    : Messages.t(lang, "card.footer", {
        since: since === null ? Messages.t(lang, "since.record") : Messages.t(lang, "card.since", { year: since })
      })
  // The credit of the data's source follows the last " · ": a demo's weather has none.
  const footer = rtlIsolate(demo ? ranked.slice(0, ranked.lastIndexOf(" · ")) : ranked)
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="${PAGE.background}"/>`,
    `<rect width="${WIDTH}" height="10" fill="${PAGE.accent}"/>`,
    textAt(flow.start(MARGIN), 100, place.size, 700, PAGE.ink, rtl && ARABIC_FIRST.test(place.content) ? isolated(lang, place.content) : place.content),
    ...(() => {
      // Beside the demo's stamp the date line has less room.
      const line = demo ? fitText(measure, subtitle, top, 30, 22, 400) : { content: subtitle, size: 30 }
      return [textAt(flow.start(MARGIN), 150, line.size, 400, PAGE.muted, line.content)]
    })(),
    // In reading order: the high first, on the left or (right to left) on the right.
    ...VARIABLES.map((v, i) => panel(measure, grade, v, units, MARGIN + i * (PANEL_WIDTH + GAP), lang, flow)),
    ...(spell === null || told === null
      ? [textAt(flow.start(MARGIN), HEIGHT - 42, 24, 400, PAGE.muted, fitText(measure, footer, WIDTH - 2 * MARGIN - 260, 24, 18, 400).content)]
      : (() => {
          // Two lines: what and when, then its standing, in a band where the reader starts (in
          // Arabic each line one right-to-left run, RLI … PDI, against the band's right edge).
          const band = WIDTH - 2 * MARGIN - 240
          const room = band - 36
          const first = fitText(measure, told.lead, room, 24, 17, 700)
          // Down to 14 px: French's longest standing takes 850 px at 16.
          const second = fitText(measure, told.standing.charAt(0).toLocaleUpperCase(lang) + told.standing.slice(1), room, 22, 14, 400)
          return [
            `<rect x="${flow.box(MARGIN - 14, band)}" y="${HEIGHT - 84}" width="${band}" height="72" rx="12" fill="${SPELL_FILL[spell.spell.kind]}"/>`,
            textAt(flow.start(MARGIN + 4), HEIGHT - 55, first.size, 700, "#ffffff", rtlIsolate(first.content)),
            textAt(flow.start(MARGIN + 4), HEIGHT - 25, second.size, 400, "#ffffff", rtlIsolate(second.content))
          ]
        })()),
    // The brand where the reader ends: bottom right, or bottom left right to left.
    textAt(flow.end(WIDTH - MARGIN), HEIGHT - 42, 28, 700, PAGE.accent, SITE_NAME),
    ...(demo ? [demoStamp(measure, flow)] : []),
    "</svg>"
  ].join("")
}
