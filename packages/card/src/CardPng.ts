/**
 * The card rendered to PNG by resvg (Rust, prebuilt binaries shipped as npm packages: no browser,
 * no system library), with the fonts loaded from files in this package and its dependencies
 * (Fonts), so what the card looks like does not depend on the fonts a machine happens to have.
 */
import { performance } from "node:perf_hooks"
import type { GradePayload } from "@climate-grade/core/data/Payloads"
import type { Language } from "@climate-grade/core/i18n/Languages"
import type { NotableSpell } from "@climate-grade/core/spells/Notable"
import { renderAsync, Resvg, type ResvgRenderOptions } from "@resvg/resvg-js"
import * as CardSvg from "./CardSvg.js"
import * as Fonts from "./Fonts.js"
import { placeLabel } from "./ShareText.js"
import type { Words } from "@climate-grade/core/rules"

type Units = Words.Units

/**
 * resvg reads its font files on every render and every measurement (resvg-js 2.6 takes fonts as
 * paths only; its `fontBuffers` is the WebAssembly build's): a card is given only the families it
 * draws with (Fonts.forCard).
 */
const optionsFor = (families: ReadonlyArray<Fonts.Family>): ResvgRenderOptions => ({
  ...OPTIONS,
  font: { ...OPTIONS.font, fontFiles: families.flatMap((family) => family.files) }
})

const OPTIONS: ResvgRenderOptions = {
  font: {
    fontFiles: [...Fonts.INTER.files],
    loadSystemFonts: false,
    defaultFontFamily: CardSvg.FONT,
    sansSerifFamily: CardSvg.FONT
  },
  fitTo: { mode: "original" },
  logLevel: "off"
}

/** How long one render may take before it is abandoned (a card is small: ~10–50 ms). */
export const RENDER_TIMEOUT_MS = 5_000

const MEASURED = 2_000
const widths = new Map<string, number>()

/**
 * Text width with the card's own fonts: the text's outline box at 100 px, scaled (outlines scale
 * linearly; resvg does not hint). Measured with Inter and only those of `families` that have a
 * character of the text Inter lacks (the others could not draw any of it: the width is the same,
 * and a number or a Latin name on a Japanese card does not read Noto Sans JP's files). Remembered
 * per fonts, text and weight: the label words and units recur.
 */
export const measureWith = (families: ReadonlyArray<Fonts.Family>): CardSvg.Measure => (text, size, weight) => {
  const inter = Fonts.coverage(Fonts.INTER)
  const beyond = [...text].map((char) => char.codePointAt(0)!).filter((c) => !inter.has(c))
  const used = families.filter((family) => family === Fonts.INTER || beyond.some((c) => Fonts.coverage(family).has(c)))
  const key = `${used.map((family) => family.name).join()}:${weight}:${text}`
  let at100 = widths.get(key)
  if (at100 === undefined) {
    const probe = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text x="0" y="100" font-family="${CardSvg.familiesOf(text)}" font-size="100" font-weight="${weight}">${text.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]!)}</text></svg>`
    at100 = new Resvg(probe, optionsFor(used)).getBBox()?.width ?? 0
    if (widths.size >= MEASURED) widths.clear()
    widths.set(key, at100)
  }
  return (at100 * size) / 100
}

/** Text width in Inter alone. */
export const measure: CardSvg.Measure = measureWith([Fonts.INTER])

/** A card's SVG, laid out with the fonts it will be drawn with, and resvg's options naming those fonts. */
export const layout = (grade: GradePayload, units: Units, spell: NotableSpell | null, lang: Language, demo: boolean) => {
  const { families } = Fonts.forCard(lang, placeLabel(grade))
  const svg = CardSvg.svg(grade, units, measureWith(families), spell, lang, demo, (text) => Fonts.draws(families, text))
  return { svg, families, options: optionsFor(families) }
}

export interface Rendered {
  readonly png: Uint8Array
  /** Wall-clock milliseconds from the grade to the PNG's bytes. */
  readonly ms: number
}

/**
 * Draws a place's card at once, on the calling thread: layout, rasterising and PNG encoding. For
 * a worker thread (CardWorker), never the server's event loop.
 */
export const drawSync = (
  grade: GradePayload,
  units: Units,
  spell: NotableSpell | null = null,
  lang: Language = "en",
  demo = false
): Rendered => {
  const start = performance.now()
  const { svg, options } = layout(grade, units, spell, lang, demo)
  const png = new Resvg(svg, options).render().asPng()
  return { png: new Uint8Array(png), ms: performance.now() - start }
}

/**
 * Renders a place's card. The rasterising runs on libuv's thread pool (`renderAsync`), so the
 * event loop is held only for the layout and the PNG encoding; past `timeoutMs` it is abandoned.
 */
export const render = async (
  grade: GradePayload,
  units: Units,
  timeoutMs = RENDER_TIMEOUT_MS,
  spell: NotableSpell | null = null
): Promise<Rendered> => {
  const start = performance.now()
  const { svg, options } = layout(grade, units, spell, "en", false)
  const image = await renderAsync(svg, options, AbortSignal.timeout(timeoutMs))
  const png = image.asPng()
  return { png: new Uint8Array(png.buffer, png.byteOffset, png.byteLength), ms: performance.now() - start }
}
