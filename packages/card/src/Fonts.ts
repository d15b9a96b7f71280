/**
 * The card's fonts (all SIL Open Font License): Inter for Latin, Greek and Cyrillic, Noto Sans
 * Arabic, and Noto Sans JP cut down to what a card can draw in Japanese (fonts/, made by
 * scripts/subset-fonts.ts). resvg reads every font file it is given on each drawing, so a card loads
 * Inter and only the script fonts its language or its place's name needs; which characters a font
 * draws is read from the font's own character map, so a name is drawn only when every character of
 * it has a glyph (else the card shows the coordinates, never blank boxes).
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { Language } from "@climate-grade/core/i18n/Languages"

const require = createRequire(import.meta.url)

export interface Family {
  /** The family name, as the card's SVG names it. */
  readonly name: string
  /** One file per weight drawn (resvg draws a missing weight with the nearest). */
  readonly files: ReadonlyArray<string>
}

export const INTER: Family = {
  name: "Inter",
  files: [
    "@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf",
    "@expo-google-fonts/inter/600SemiBold/Inter_600SemiBold.ttf",
    "@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf"
  ].map((file) => require.resolve(file))
}

export const ARABIC: Family = {
  name: "Noto Sans Arabic",
  files: [
    "@expo-google-fonts/noto-sans-arabic/400Regular/NotoSansArabic_400Regular.ttf",
    "@expo-google-fonts/noto-sans-arabic/600SemiBold/NotoSansArabic_600SemiBold.ttf",
    "@expo-google-fonts/noto-sans-arabic/700Bold/NotoSansArabic_700Bold.ttf"
  ].map((file) => require.resolve(file))
}

/** 2.5 MB a weight where the full font is 5.5 MB (JIS X 0208's kanji and kana; scripts/glyphs.ts). */
export const JAPANESE: Family = {
  name: "Noto Sans JP",
  files: ["@climate-grade/card/fonts/NotoSansJP-Regular.subset.ttf", "@climate-grade/card/fonts/NotoSansJP-Bold.subset.ttf"].map((file) =>
    require.resolve(file)
  )
}

/** The script fonts, in the order the SVG falls back to them after Inter. */
export const SCRIPTS: ReadonlyArray<Family> = [ARABIC, JAPANESE]

/** The script font of a language's own words. */
const OF_LANGUAGE: Readonly<Partial<Record<Language, Family>>> = { ar: ARABIC, ja: JAPANESE }

/**
 * The code points a TrueType/OpenType font maps to a glyph, from its `cmap` table's Unicode
 * subtable (format 12, else format 4).
 */
export const codePoints = (font: Uint8Array): Set<number> => {
  const view = new DataView(font.buffer, font.byteOffset, font.byteLength)
  const tables = view.getUint16(4)
  let cmap = -1
  for (let i = 0; i < tables; i++) {
    const record = 12 + 16 * i
    if (view.getUint32(record) === 0x636d6170 /* "cmap" */) cmap = view.getUint32(record + 8)
  }
  if (cmap < 0) throw new Error("the font has no cmap table")
  const subtables = new Map<number, number>()
  for (let i = 0; i < view.getUint16(cmap + 2); i++) {
    const record = cmap + 4 + 8 * i
    const format = view.getUint16(cmap + view.getUint32(record + 4))
    // Only the Unicode subtables: platform 0 (Unicode) or 3 (Windows) with encoding 1 or 10.
    const [platform, encoding] = [view.getUint16(record), view.getUint16(record + 2)]
    if ((platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10))) && !subtables.has(format)) {
      subtables.set(format, cmap + view.getUint32(record + 4))
    }
  }
  const out = new Set<number>()
  const twelve = subtables.get(12)
  if (twelve !== undefined) {
    for (let g = 0; g < view.getUint32(twelve + 12); g++) {
      const group = twelve + 16 + 12 * g
      const [start, end, glyph] = [view.getUint32(group), view.getUint32(group + 4), view.getUint32(group + 8)]
      for (let c = start; c <= end; c++) if (glyph + (c - start) !== 0) out.add(c)
    }
    return out
  }
  const four = subtables.get(4)
  if (four === undefined) throw new Error("the font has no Unicode cmap of format 4 or 12")
  const segments = view.getUint16(four + 6) / 2
  const ends = four + 14
  const starts = ends + 2 * segments + 2
  const deltas = starts + 2 * segments
  const rangeOffsets = deltas + 2 * segments
  for (let s = 0; s < segments; s++) {
    const [start, end] = [view.getUint16(starts + 2 * s), view.getUint16(ends + 2 * s)]
    const delta = view.getUint16(deltas + 2 * s)
    const rangeOffset = view.getUint16(rangeOffsets + 2 * s)
    for (let c = start; c <= end && c !== 0xffff; c++) {
      const at = rangeOffsets + 2 * s + rangeOffset + 2 * (c - start)
      const glyph = rangeOffset === 0 ? (c + delta) & 0xffff : view.getUint16(at) === 0 ? 0 : (view.getUint16(at) + delta) & 0xffff
      if (glyph !== 0) out.add(c)
    }
  }
  return out
}

const coverages = new Map<Family, ReadonlySet<number>>()

/** What a family draws in every weight it has, read once per process. */
export const coverage = (family: Family): ReadonlySet<number> => {
  let covered = coverages.get(family)
  if (covered === undefined) {
    const [first, ...rest] = family.files.map((file) => codePoints(readFileSync(file)))
    covered = new Set([...first!].filter((c) => rest.every((other) => other.has(c))))
    coverages.set(family, covered)
  }
  return covered
}

export interface CardFonts {
  /** Inter, then the script fonts the card needs, in SCRIPTS' order. */
  readonly families: ReadonlyArray<Family>
  /** Whether the place's name can be drawn with them (else the card names the place by its coordinates). */
  readonly label: boolean
}

/**
 * The fonts of a card in `lang` naming the place `label`: Inter, the language's script font, and
 * the script font each character of the name Inter lacks needs (a Japanese name on an English
 * card, an Arabic one on a German card). A name with a character no font has is not drawn.
 */
export const forCard = (lang: Language, label: string): CardFonts => {
  const wanted = new Set<Family>()
  const own = OF_LANGUAGE[lang]
  if (own !== undefined) wanted.add(own)
  let drawable = true
  const inter = coverage(INTER)
  for (const char of label) {
    const c = char.codePointAt(0)!
    if (inter.has(c)) continue
    const family = own !== undefined && coverage(own).has(c) ? own : SCRIPTS.find((f) => coverage(f).has(c))
    if (family === undefined) {
      drawable = false
      break
    }
    wanted.add(family)
  }
  // A name that cannot be drawn brings no font of its own.
  if (!drawable) {
    wanted.clear()
    if (own !== undefined) wanted.add(own)
  }
  return { families: [INTER, ...SCRIPTS.filter((f) => wanted.has(f))], label: drawable }
}

/** Whether every character of `text` is drawn by one of `families`. */
export const draws = (families: ReadonlyArray<Family>, text: string): boolean =>
  [...text].every((char) => families.some((f) => coverage(f).has(char.codePointAt(0)!)))
