/**
 * The card's fonts: every character a card draws, in every language and for a place named in
 * Japanese or Arabic, has a glyph in a font the card loads (no blank boxes); a name no font draws
 * is replaced by the coordinates; Japanese and Arabic keep their weights; and the Japanese subset
 * files are what scripts/subset-fonts.ts makes of the catalog's words and JIS X 0208.
 */
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { CardPng, CardSvg, Fonts } from "@climate-grade/card"
import type { Payloads } from "@climate-grade/core"
import { LANGUAGES } from "@climate-grade/core/i18n/Languages"
import { Resvg } from "@resvg/resvg-js"
import { catalogText, japanese } from "../scripts/glyphs.js"

const require = createRequire(import.meta.url)

const grade = (label: string | null): Payloads.GradePayload => ({
  view: "grade",
  v: 1,
  cell: { lat: 43.0, lon: 141.25, label, timezone: "Asia/Tokyo" },
  date: "2026-11-26",
  issued: "2026-11-26T00:00:00.000Z",
  variables: {
    tmax: { value: 21.4, unit: "°C", percentile: 100, label: "record-high", n: 430 },
    tmin: { value: -2.7, unit: "°C", percentile: 25.2, label: "below", n: 430 },
    precip: { value: 0, unit: "mm", percentile: null, label: null, n: 12 }
  }
})

const unescape = (s: string) => s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[e]!)

/** Every text of a card's SVG. */
const texts = (svg: string) => [...svg.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => unescape(m[1]!))

/**
 * The characters of `text` none of `families` has a glyph for; the bidirectional isolates an Arabic
 * card's date line and footer carry (LRI, RLI, FSI, PDI) are formatting, drawn as nothing by design.
 */
const missing = (families: ReadonlyArray<Fonts.Family>, text: string) =>
  [...text].filter((char) => !/[\u2066-\u2069]/.test(char) && !families.some((family) => Fonts.coverage(family).has(char.codePointAt(0)!)))

/** Kanji outside the catalog's words, a name in Arabic, and a Latin one. */
const PLACES = ["札幌市, JP", "鹿児島市, JP", "那覇市, JP", "稚内市, JP", "القاهرة, EG", "Reykjavík, IS"]

describe("the card's fonts", () => {
  it("a place named in Japanese or Arabic is drawn, on a card in any language, and every character of every card has a glyph", () => {
    for (const lang of LANGUAGES) {
      for (const place of PLACES) {
        for (const demo of [false, true]) {
          const { svg, families } = CardPng.layout(grade(place), "metric", null, lang, demo)
          const drawn = texts(svg)
          // On an Arabic card an Arabic name is one right-to-left run (RLI … PDI).
          expect(drawn[0]!.replace(/[\u2066-\u2069]/g, ""), `${lang} ${place}`).toBe(place)
          for (const text of drawn) expect(missing(families, text), `${lang} ${place}: ${text}`).toEqual([])
        }
      }
    }
    // A Japanese name loads the Japanese font on an English card; an English card of a Latin name loads Inter alone.
    expect(CardPng.layout(grade("札幌市, JP"), "metric", null, "en", false).families).toEqual([Fonts.INTER, Fonts.JAPANESE])
    expect(CardPng.layout(grade("Reykjavík, IS"), "metric", null, "en", false).families).toEqual([Fonts.INTER])
  })

  it("every character of a heat wave's or cold spell's band has a glyph, in every language, kind, severity, standing and day", () => {
    const spells = [
      ...(["heat", "cold"] as const).flatMap((kind) =>
        (["severe", "extreme"] as const).flatMap((severity) =>
          [1, 3, 22].flatMap((rank_peak) => [true, false].map((forecast) => ({ kind, severity, rank_peak, forecast, start: "2026-11-28" })))
        )
      ),
      // Every weekday and month a day is named by, and today.
      ...Array.from({ length: 12 }, (_, i) => ({ kind: "heat", severity: "severe", rank_peak: 2, forecast: true, start: `2027-${String(i + 1).padStart(2, "0")}-0${1 + (i % 7)}` }) as const),
      { kind: "cold", severity: "extreme", rank_peak: 2, forecast: false, start: "2026-11-26" } as const
    ]
    for (const lang of LANGUAGES) {
      for (const s of spells) {
        const spell = { spell: { ...s, end: "2027-12-31", of: 212 }, since: 1940 }
        const { svg, families } = CardPng.layout(grade("Reykjavík, IS"), "metric", spell, lang, false)
        expect(svg, `${lang} ${s.start}`).toContain("1940")
        for (const text of texts(svg)) expect(missing(families, text), `${lang} ${s.kind} ${s.start}: ${text}`).toEqual([])
      }
    }
  })

  it("a name with a character no font has (Hangul, a kanji outside JIS X 0208) is replaced by the coordinates, and loads no font", () => {
    for (const place of ["서울, KR", "𠮷野町, JP"]) {
      for (const lang of ["en", "ja"] as const) {
        const { svg, families } = CardPng.layout(grade(place), "metric", null, lang, false)
        expect(texts(svg)[0], `${lang} ${place}`).toBe("43.00°N 141.25°E")
        expect(families).toEqual(lang === "ja" ? [Fonts.INTER, Fonts.JAPANESE] : [Fonts.INTER])
      }
    }
  })

  it("the PNG of a card named in kanji is drawn, and differs from the same card named by its coordinates", () => {
    const named = CardPng.drawSync(grade("鹿児島市, JP"), "metric", null, "ja")
    const unnamed = CardPng.drawSync(grade(null), "metric", null, "ja")
    expect(Buffer.from(named.png).subarray(1, 4).toString("latin1")).toBe("PNG")
    expect(Buffer.from(named.png).equals(Buffer.from(unnamed.png))).toBe(false)
  })

  it("a Japanese or Arabic text keeps its weight: bold is drawn with the bold font, not the regular one", () => {
    /** The ink of a text at a weight, with every font the card has. */
    const ink = (text: string, weight: number) => {
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="140"><rect width="600" height="140" fill="#fff"/><text x="10" y="100" font-family="${CardSvg.familiesOf(text)}" font-size="80" font-weight="${weight}">${text}</text></svg>`
      const pixels = new Resvg(svg, {
        font: { fontFiles: [Fonts.INTER, ...Fonts.SCRIPTS].flatMap((f) => [...f.files]), loadSystemFonts: false, defaultFontFamily: "Inter" },
        logLevel: "off"
      })
        .render()
        .pixels
      let sum = 0
      for (let i = 0; i < pixels.length; i += 4) sum += 255 - pixels[i]!
      return sum
    }
    for (const text of ["札幌市", "القاهرة"]) expect(ink(text, 700), text).toBeGreaterThan(ink(text, 400) * 1.2)
  })

  it("measures a Latin text on a Japanese card as Inter alone would (the script fonts are not read for it)", () => {
    const both = CardPng.measureWith([Fonts.INTER, Fonts.JAPANESE])
    expect(both("21.4 °C", 60, 700)).toBeCloseTo(CardPng.measure("21.4 °C", 60, 700), 6)
    expect(both("最高気温", 60, 700)).toBeGreaterThan(0)
  })
})

describe("the Japanese subset (scripts/subset-fonts.ts)", () => {
  const dir = join(import.meta.dirname, "../fonts")
  const sources = JSON.parse(readFileSync(join(dir, "SOURCES.json"), "utf8")) as {
    codePoints: number
    files: ReadonlyArray<{ file: string; source: string; sha256: string }>
  }

  it("the files are the ones the script wrote, from the characters it asks for now (rerun it when a word adds a kanji)", () => {
    expect(sources.codePoints).toBe(japanese().length)
    for (const { file, sha256 } of sources.files) {
      expect(createHash("sha256").update(readFileSync(join(dir, file))).digest("hex"), file).toBe(sha256)
    }
    expect(readFileSync(join(dir, "OFL.txt"), "utf8")).toMatch(/SIL OPEN FONT LICENSE Version 1\.1/)
  })

  it("draws every Japanese word of the catalog, the kana, JIS X 0208's kanji, and all the full font draws of what was asked", () => {
    const covered = Fonts.coverage(Fonts.JAPANESE)
    const words = [...new Set(catalogText())].filter((c) => /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(c))
    expect(words.length).toBeGreaterThan(50)
    expect(words.filter((c) => !covered.has(c.codePointAt(0)!))).toEqual([])
    const asked = japanese()
    for (const { source } of sources.files) {
      const full = Fonts.codePoints(readFileSync(require.resolve(source)))
      expect(asked.filter((c) => full.has(c) && !covered.has(c)).map((c) => String.fromCodePoint(c))).toEqual([])
    }
    // JIS X 0208 level 1 begins with 亜 and level 2 ends with 熙; kana, 々 and ヶ.
    for (const char of "亜熙あゔアヶ々札幌鹿児島那覇稚内") expect(covered.has(char.codePointAt(0)!), char).toBe(true)
    // A Korean or Chinese-only character is not in it.
    for (const char of "서东") expect(covered.has(char.codePointAt(0)!), char).toBe(false)
  })
})

describe("Fonts.codePoints", () => {
  it("reads a font's character map (format 4 and 12)", () => {
    const inter = Fonts.coverage(Fonts.INTER)
    for (const char of "AzÄßΩЖ€0") expect(inter.has(char.codePointAt(0)!), char).toBe(true)
    expect(inter.has("札".codePointAt(0)!)).toBe(false)
    const arabic = Fonts.coverage(Fonts.ARABIC)
    for (const char of "القاهرة٢") expect(arabic.has(char.codePointAt(0)!), char).toBe(true)
  })
})
