/**
 * The card rendered to PNG by resvg (Rust, prebuilt binaries shipped as npm packages: no browser,
 * no system library), with Inter (SIL Open Font License) loaded from its npm package's files, so
 * what the card looks like does not depend on the fonts a machine happens to have.
 */
import { createRequire } from "node:module"
import { performance } from "node:perf_hooks"
import type { GradePayload } from "@climate-grade/core/data/Payloads"
import type { Language } from "@climate-grade/core/i18n/Languages"
import type { NotableSpell } from "@climate-grade/core/spells/Notable"
import { renderAsync, Resvg, type ResvgRenderOptions } from "@resvg/resvg-js"
import * as CardSvg from "./CardSvg.js"
import type { Words } from "@climate-grade/core/rules"

type Units = Words.Units

const require = createRequire(import.meta.url)

/** The three weights the card uses, from the font package (resolved like any module, not from the system). */
export const FONT_FILES: ReadonlyArray<string> = [
  "@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf",
  "@expo-google-fonts/inter/600SemiBold/Inter_600SemiBold.ttf",
  "@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf"
].map((file) => require.resolve(file))

/**
 * The script fonts, only for the languages that draw that script: resvg reads its font files on
 * every render, and Noto Sans JP is 5 MB a weight (two weights: 600 is drawn with the nearest).
 */
const SCRIPT_FONTS: Readonly<Partial<Record<Language, ReadonlyArray<string>>>> = {
  ar: [
    "@expo-google-fonts/noto-sans-arabic/400Regular/NotoSansArabic_400Regular.ttf",
    "@expo-google-fonts/noto-sans-arabic/600SemiBold/NotoSansArabic_600SemiBold.ttf",
    "@expo-google-fonts/noto-sans-arabic/700Bold/NotoSansArabic_700Bold.ttf"
  ].map((file) => require.resolve(file)),
  ja: [
    "@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf",
    "@expo-google-fonts/noto-sans-jp/700Bold/NotoSansJP_700Bold.ttf"
  ].map((file) => require.resolve(file))
}

const optionsFor = (lang: Language): ResvgRenderOptions => ({
  ...OPTIONS,
  font: { ...OPTIONS.font, fontFiles: [...FONT_FILES, ...(SCRIPT_FONTS[lang] ?? [])] }
})

const OPTIONS: ResvgRenderOptions = {
  font: {
    fontFiles: [...FONT_FILES],
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
 * Text width with the card's own font: the text's outline box at 100 px, scaled (outlines scale
 * linearly; resvg does not hint). Remembered per text and weight: the label words and units recur.
 */
export const measureIn = (lang: Language): CardSvg.Measure => (text, size, weight) => {
  const key = `${lang}:${weight}:${text}`
  let at100 = widths.get(key)
  if (at100 === undefined) {
    const probe = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text x="0" y="100" font-family="${CardSvg.FONT}, Noto Sans Arabic, Noto Sans JP" font-size="100" font-weight="${weight}">${text.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]!)}</text></svg>`
    at100 = new Resvg(probe, optionsFor(lang)).getBBox()?.width ?? 0
    if (widths.size >= MEASURED) widths.clear()
    widths.set(key, at100)
  }
  return (at100 * size) / 100
}

export const measure: CardSvg.Measure = measureIn("en")

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
  const png = new Resvg(CardSvg.svg(grade, units, measureIn(lang), spell, lang, demo), optionsFor(lang)).render().asPng()
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
  const svg = CardSvg.svg(grade, units, measure, spell)
  const image = await renderAsync(svg, OPTIONS, AbortSignal.timeout(timeoutMs))
  const png = image.asPng()
  return { png: new Uint8Array(png.buffer, png.byteOffset, png.byteLength), ms: performance.now() - start }
}
