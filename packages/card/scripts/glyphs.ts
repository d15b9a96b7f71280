/**
 * The characters the card's Japanese font is cut down to (subset-fonts.ts): what a card can draw
 * in Japanese. The card's own words are few, but a place's name comes from the geocoder in the
 * local script, so the set is the one Japanese text in general is written in: JIS X 0208 (levels 1
 * and 2 kanji, kana, its symbols), the NEC-selected IBM extension kanji Windows adds to it (髙, 﨑,
 * common in names), the kana and full-width blocks whole, ASCII, and every character of the
 * catalog's Japanese words (read from the core's i18n files, so a new word's kanji is never left out).
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const I18N = join(import.meta.dirname, "../../core/src/i18n")

/** Every character in the core's i18n sources (the message catalogs, however they are split into files). */
export const catalogText = (dir = I18N): string =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name))
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8"))
    .join("\n")

/** The catalog's characters that the Japanese font is for: kanji, kana, and CJK and full-width punctuation. */
const JAPANESE_WORD = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u

/** JIS X 0208's rows as EUC-JP two-byte codes, decoded by Node's (WHATWG) EUC-JP decoder. */
const jisRows = (from: number, to: number): Array<number> => {
  const decoder = new TextDecoder("euc-jp")
  const out: Array<number> = []
  for (let row = from; row <= to; row++) {
    for (let cell = 1; cell <= 94; cell++) {
      const text = decoder.decode(new Uint8Array([0xa0 + row, 0xa0 + cell]))
      const cp = text.codePointAt(0)!
      if (text.length === 1 && cp !== 0xfffd) out.push(cp)
    }
  }
  return out
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

/** The code points asked of the Japanese subset, ascending (those the font has no glyph for are left out by pyftsubset). */
export const japanese = (words = catalogText()): ReadonlyArray<number> => {
  const set = new Set<number>([
    ...range(0x20, 0x7e), // ASCII: digits, Latin letters, punctuation
    ...range(0x2010, 0x2027), // dashes, quotes, ‥ …
    ...range(0x3000, 0x30ff), // CJK punctuation (、。々〜), hiragana, katakana (ー ヶ)
    ...range(0x31f0, 0x31ff), // small katakana for Ainu place names (ㇰ ㇱ)
    ...range(0xff01, 0xffef), // full-width and half-width forms
    ...jisRows(1, 84), // JIS X 0208: symbols, kana, Greek, Cyrillic, level 1 (16–47) and level 2 (48–84) kanji
    ...jisRows(89, 92) // the NEC-selected IBM extension kanji
  ])
  for (const char of words) if (JAPANESE_WORD.test(char)) set.add(char.codePointAt(0)!)
  return [...set].sort((a, b) => a - b)
}
