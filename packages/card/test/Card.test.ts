/**
 * The card's picture: long names fitted (smaller, then cut with an ellipsis, never wider than the
 * card), every text escaped, the three grades in words and numbers, a label the font cannot draw
 * replaced by the coordinates, and the PNG 1200 × 630.
 */
import { describe, expect, it } from "@effect/vitest"
import { CardPng, CardSvg, ShareText } from "@climate-grade/card"
import type { Payloads } from "@climate-grade/core"
import { LANGUAGES } from "@climate-grade/core/i18n/Languages"
import * as FastCheck from "effect/FastCheck"

/** A stand-in for the font: every character 0.6 em wide. */
const measure: CardSvg.Measure = (text, size) => [...text].length * size * 0.6

const grade = (label: string | null): Payloads.GradePayload => ({
  view: "grade",
  v: 1,
  cell: { lat: 35.75, lon: 139.75, label, timezone: "Asia/Tokyo" },
  date: "2026-11-26",
  issued: "2026-11-26T00:00:00.000Z",
  variables: {
    tmax: { value: 21.4, unit: "°C", percentile: 100, label: "record-high", n: 430 },
    tmin: { value: -2.7, unit: "°C", percentile: 25.2, label: "below", n: 430 },
    precip: { value: 0, unit: "mm", percentile: null, label: null, n: 12 }
  }
})

describe("CardSvg", () => {
  it("fitText: the largest size that fits, else cut with an ellipsis at the smallest; never wider than asked", () => {
    let cut = 0
    FastCheck.assert(
      FastCheck.property(FastCheck.string({ minLength: 1, maxLength: 120 }), FastCheck.integer({ min: 200, max: 1100 }), (text, width) => {
        const { content, size } = CardSvg.fitText(measure, text, width, 64, 40, 700)
        expect(size).toBeGreaterThanOrEqual(40)
        expect(size).toBeLessThanOrEqual(64)
        expect(measure(content, size, 700)).toBeLessThanOrEqual(width)
        if (content !== text) {
          cut++
          expect(size).toBe(40)
          expect(content.endsWith("…")).toBe(true)
        } else if (size < 64) expect(measure(text, size + 2, 700)).toBeGreaterThan(width)
      }),
      // Random strings are mostly short: these always run, so the cut branch is always checked
      // (six texts too wide for any width at the smallest size), whatever the seed draws.
      { examples: [200, 380, 560, 740, 920, 1100].map((width, i) => [`${"Wм東"[i % 3]!.repeat(100)} ${i}`, width] as [string, number]) }
    )
    expect(cut).toBeGreaterThan(5)
  })

  it("draws the place, the date and each grade in words, every text escaped", () => {
    const svg = CardSvg.svg(grade(`<script>&"Tōkyō"</script>`), "metric", measure)
    expect(svg).toMatch(/^<svg [^>]*width="1200" height="630"/)
    expect(svg).toContain("&lt;script&gt;&amp;&quot;Tōkyō&quot;&lt;/script&gt;")
    expect(svg).not.toContain("<script")
    for (const text of ["Thu 26 November 2026 · 35.75°N 139.75°E", "HIGH", "LOW", "PRECIPITATION", "21.4 °C", "record high", "100th percentile", "−2.7 °C", "below normal", "25th percentile", "0.0 mm", "no percentile (n = 12)"]) {
      expect(svg).toContain(`>${text}<`)
    }
    expect(CardSvg.svg(grade("Tokyo, JP"), "imperial", measure)).toContain(">70.5 °F<")
  })

  it("in Arabic the date line's sentence and its coordinates are isolated from each other, and the footer is one right-to-left run", () => {
    const svg = CardSvg.svg(grade("Tokyo, JP"), "metric", measure, null, "ar")
    // RLI date PDI · LRI coordinates PDI: the coordinates' digits and "°N" stay out of the Arabic
    // date; the whole line one right-to-left run (RLI … PDI), so the date comes first from the right.
    expect(svg).toMatch(/>\u2067\u2067[^<\u2069]*2026\u2069 · \u206635\.75°N 139\.75°E\u2069\u2069</)
    expect(svg).toMatch(/>\u2067[^<]*1940[^<]*\u2069</)
    // Left-to-right languages get no isolates.
    expect(CardSvg.svg(grade("Tokyo, JP"), "metric", measure, null, "de")).not.toMatch(/[\u2066-\u2069]/)
  })

  it("a severe or extreme heat wave or cold spell on or coming: a band at the foot says it, with its standing", () => {
    const spell = {
      spell: { kind: "heat", start: "2026-11-28", end: "2026-12-02", severity: "severe", rank_peak: 4, of: 212, forecast: true },
      since: 1940
    } as const
    const svg = CardSvg.svg(grade("Tokyo, JP"), "metric", measure, spell)
    expect(svg).toContain(">A severe heat wave from Sat 28 Nov<")
    expect(svg).toContain(">It would be the 4th hottest here since 1940 if the forecast holds.<")
    expect(svg).toContain('fill="#b2182b"')
    expect(svg).not.toContain("Ranked against the same days")
    expect(CardSvg.svg(grade("Tokyo, JP"), "metric", measure, { ...spell, spell: { ...spell.spell, kind: "cold", start: "2026-11-26", severity: "extreme", rank_peak: 1 } })).toContain(
      ">An extreme cold spell since today<"
    )
    expect(CardSvg.svg(grade("Tokyo, JP"), "metric", measure)).not.toContain("heat wave")
  })

  it("in every language a notable spell draws its band in that language's words, and the shared head says it first", () => {
    const spell = {
      spell: { kind: "heat", start: "2026-11-28", end: "2026-12-02", severity: "severe", rank_peak: 4, of: 212, forecast: true },
      since: 1940
    } as const
    const g = grade("Tokyo, JP")
    /** The SVG's text as read: entities undone, Arabic's isolates (RLI, LRI, PDI) left out. */
    const read = (svg: string) =>
      svg.replace(/[\u2066-\u2069]/g, "").replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[e]!)
    const english = CardPng.layout(g, "metric", spell, "en", false).svg
    const sentences = new Set<string>()
    for (const lang of LANGUAGES) {
      // Laid out with the card's real fonts, so that no sentence is cut to fit a stand-in's widths.
      const withSpell = CardPng.layout(g, "metric", spell, lang, false).svg
      expect(withSpell, lang).not.toBe(CardPng.layout(g, "metric", null, lang, false).svg)
      if (lang !== "en") expect(withSpell, lang).not.toBe(english)
      expect(withSpell, lang).toContain('fill="#b2182b"')
      const told = ShareText.spellText(spell, g.date, lang)!
      expect(told.text, lang).toContain("1940")
      expect(told.text, lang).toContain("4")
      expect(told.text, lang).not.toMatch(/[{}]|undefined|NaN/)
      if (lang !== "en") expect(told.text, lang).not.toMatch(/heat wave|hottest|forecast/)
      sentences.add(told.text)
      // The band: what and when, then the standing (its first letter a capital), both whole.
      expect(read(withSpell), lang).toContain(`>${told.lead}<`)
      expect(read(withSpell), lang).toContain(`>${told.standing.charAt(0).toLocaleUpperCase(lang)}${told.standing.slice(1)}<`)
      // The shared head: the notice before the grades, in the description and the picture's words.
      const head = ShareText.forGrade(g, null, "metric", spell, lang)
      expect(head.description.startsWith(`${told.text} `), lang).toBe(true)
      expect(head.imageAlt.startsWith(`${told.text} `), lang).toBe(true)
      expect(ShareText.forGrade(g, null, "metric", null, lang).description, lang).not.toContain(told.standing)
      // A spell under way since today is "since today" in the language.
      const today = ShareText.spellText({ spell: { ...spell.spell, start: g.date }, since: 1940 }, g.date, lang)!
      expect(today.lead, lang).toContain({ en: "since today", de: "heute", fr: "aujourd'hui", es: "hoy", pt: "hoje", ja: "今日", ar: "اليوم" }[lang])
    }
    expect(sentences.size).toBe(LANGUAGES.length)
    // Arabic's band is right-to-left: each line one isolated run, set against the band's right edge.
    const arabic = CardPng.layout(g, "metric", spell, "ar", false).svg
    expect(arabic).toMatch(/text-anchor="end">\u2067موجة حر شديدة[^<]*\u2069</)
  })

  it("in Arabic a panel's line with a part in brackets is drawn in right-to-left order: the Arabic words on the right", () => {
    const svg = CardSvg.svg(grade("Tokyo, JP"), "metric", measure, null, "ar")
    const at = (content: string) => Number(new RegExp(`<text x="([0-9.]+)" y="440"[^>]*>${content.replace(/[()]/g, "\\$&")}</text>`).exec(svg)?.[1])
    // "لا مئين (n = 12)": the words and the part in brackets, each its own run, the brackets' left of the words.
    expect(at("(n = 12)")).toBeLessThan(at("لا مئين"))
    // A number among the Arabic words is ordered right by the renderer: one run.
    expect(svg).toContain(">المئين 100<")
    // Left-to-right languages keep the line whole.
    expect(CardSvg.svg(grade("Tokyo, JP"), "metric", measure, null, "de")).toMatch(/>[^<]*\(n = 12\)</)
  })

  it("a demo's card carries a 'Demo data' stamp beside a fitted title, and credits no real source", () => {
    const plain = CardSvg.svg(grade("Tokyo, JP"), "metric", measure)
    expect(plain).not.toContain(CardSvg.DEMO_STAMP.words)
    expect(plain).toContain("ERA5 via Open-Meteo")
    for (const lang of ["en", "de", "ja"] as const) {
      const demo = CardSvg.svg(grade("Tokyo, JP"), "metric", measure, null, lang, true)
      expect(demo, lang).toContain(">DEMO DATA<")
      expect(demo, lang).toContain(">Not real weather<")
      expect(demo, lang).not.toContain("Open-Meteo")
    }
    // A title long enough to reach the stamp is fitted to the room left of it (stand-in font: 0.6 em).
    const long = CardSvg.svg(grade("Llanfairpwllgwyngyllgogerychwyrndrobwll, GB"), "metric", measure, null, "en", true)
    const title = /<text x="60" y="100" [^>]*font-size="(\d+)"[^>]*>([^<]*)</.exec(long)!
    expect(measure(title[2]!, Number(title[1]), 700)).toBeLessThanOrEqual(1200 - 2 * 60 - 300)
  })

  it("names a place in a script the font lacks by its coordinates", () => {
    expect(CardSvg.drawableLabel(grade("東京都, JP"))).toBe("35.75°N 139.75°E")
    expect(CardSvg.drawableLabel(grade(null))).toBe("35.75°N 139.75°E")
    for (const drawable of ["Reykjavík, IS", "Αθήνα, GR", "Москва, RU", "Zürich, CH"]) {
      expect(CardSvg.drawableLabel(grade(drawable))).toBe(drawable)
    }
  })
})

describe("the card's direction", () => {
  const spell = {
    spell: { kind: "heat", start: "2026-11-28", end: "2026-12-02", severity: "severe", rank_peak: 4, of: 212, forecast: true },
    since: 1940
  } as const
  const attribute = (attributes: string, name: string) => new RegExp(` ${name}="([^"]*)"`).exec(attributes)?.[1]
  /** Each text's, box's and group's x (a group's rotation centre) and anchor, in the SVG's order. */
  const geometry = (svg: string) =>
    [...svg.matchAll(/<(text|rect|g)\b([^>]*)>/g)]
      .map(([, tag, attributes]) => {
        const x = attribute(attributes!, "x") ?? /rotate\(\S+ (\S+)/.exec(attributes!)?.[1] ?? ""
        const anchor = attribute(attributes!, "text-anchor")
        return `${tag![0]}${x}${anchor === undefined ? "" : `:${anchor}`}`
      })
      .join(" ")
  /** The texts of a card's SVG with their place: x, y, anchor, size, weight and what they say. */
  const texts = (svg: string) =>
    [...svg.matchAll(/<text\b([^>]*)>([^<]*)<\/text>/g)].map(([, attributes, content]) => ({
      x: Number(attribute(attributes!, "x")),
      y: Number(attribute(attributes!, "y")),
      anchor: attribute(attributes!, "text-anchor") ?? "start",
      size: Number(attribute(attributes!, "font-size")),
      weight: Number(attribute(attributes!, "font-weight")) as CardSvg.Weight,
      content: content!.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[e]!)
    }))
  /** The three panels' boxes (340 px wide, from y 190), in the SVG's order: high, low, precipitation. */
  const panels = (svg: string) => [...svg.matchAll(/<rect x="([0-9.]+)" y="190" width="340"/g)].map((m) => Number(m[1]))

  it("left to right, every language's card is laid out as it was before Arabic's was mirrored", () => {
    // The x of every element of the card before the change, the same in every left-to-right
    // language (only widths follow the words): the title and date at the left margin, the panels
    // from the left, the band at the bottom left, the brand's end at the bottom right, the stamp
    // at the top right.
    const panelsAndBars =
      "r r t60 t60 r60 t88 t88 r88 t108 t88 r88.0 r116.4 r182.7 r277.3 r343.6 r88 r369 r430 t458 t458 r458 t478 t458 r458.0 r486.4 r552.7 r647.3 r713.6 r458 r526.6 r800 t828 t828 t828 r828.0 r856.4 r922.7 r1017.3 r1083.6 r828"
    for (const lang of LANGUAGES.filter((lang) => lang !== "ar")) {
      expect(geometry(CardPng.layout(grade("Tokyo, JP"), "metric", null, lang, false).svg), lang).toBe(`${panelsAndBars} t60 t1140:end`)
      expect(geometry(CardPng.layout(grade("Tokyo, JP"), "metric", spell, lang, true).svg), lang).toBe(
        `${panelsAndBars} r46 t64 t64 t1140:end g996.0 r856.0 t996:middle t996:middle`
      )
    }
  })

  it("in Arabic the card is mirrored: the title, date line and footer at the right margin, the high's panel on the right, each panel's texts against its right edge", () => {
    const { svg, families } = CardPng.layout(grade("القاهرة, EG"), "metric", null, "ar", false)
    const measured = CardPng.measureWith(families)
    const drawn = texts(svg)
    // The title and the date line end at the right margin; the title, an Arabic name, is one
    // right-to-left run (the name first from the right); the date line too.
    const at = (y: number) => drawn.find((t) => t.y === y)!
    expect(at(100)).toMatchObject({ x: 1200 - 60, anchor: "end", content: "\u2067القاهرة, EG\u2069" })
    expect(at(150)).toMatchObject({ x: 1200 - 60, anchor: "end" })
    expect(at(150).content.startsWith("\u2067\u2067")).toBe(true)
    // The footer at the right margin, the brand at the bottom left.
    expect(drawn.filter((t) => t.y === 588).map((t) => [t.x, t.anchor, t.content.includes("1940")])).toEqual([
      [1140, "end", true],
      [60, "start", false]
    ])
    // Reading order from the right: the high's panel has the largest x.
    const xs = panels(svg)
    expect(xs).toEqual([800, 430, 60])
    expect(Math.max(...xs)).toBe(xs[0])
    // Each panel's texts end at the panel's right padding (the label's words at the pill's) and fit in it.
    let inPanels = 0
    for (const x of xs) {
      const inside = drawn.filter((t) => t.y > 190 && t.y < 530 && t.x > x && t.x <= x + 340)
      expect(inside.length).toBeGreaterThanOrEqual(4)
      for (const t of inside) {
        inPanels++
        expect(t.anchor, t.content).toBe("end")
        expect(t.x, t.content).toBeLessThanOrEqual(x + 340 - 28)
        expect(t.x - measured(t.content, t.size, t.weight), t.content).toBeGreaterThanOrEqual(x + 28)
      }
      expect(inside.filter((t) => t.y !== 375 && t.y !== 440).map((t) => t.x)).toEqual([x + 340 - 28, x + 340 - 28])
    }
    expect(inPanels).toBe(4 + 4 + 4)
    // The label's pill sits at the panel's right edge.
    expect(svg).toMatch(/<rect x="([0-9.]+)" y="342" width="([0-9.]+)"/)
    for (const [, x, width] of svg.matchAll(/<rect x="([0-9.]+)" y="342" width="([0-9.]+)"/g)) {
      expect(xs.some((panel) => Math.abs(Number(x) + Number(width) - (panel + 340 - 28)) < 0.11)).toBe(true)
    }
    // The bars keep running from cold to hot left to right: today's 100th percentile at the right end.
    const bar = [...svg.matchAll(/<rect x="([0-9.]+)" y="466" width="([0-9.]+)" height="14" fill="#/g)].slice(0, 5).map((m) => Number(m[1]))
    expect(bar).toEqual([...bar].sort((a, b) => a - b))
    expect(svg).toContain('<rect x="1109" y="458" width="6"')
  })

  it("in Arabic the heat wave's band is at the bottom right, the brand at the bottom left, and a demo's stamp at the top left", () => {
    const { svg } = CardPng.layout(grade("Tokyo, JP"), "metric", spell, "ar", true)
    const band = /<rect x="([0-9.]+)" y="546" width="([0-9.]+)"/.exec(svg)!
    // Mirrored: 14 px beyond the right margin, as the left-to-right band is beyond the left one.
    expect(Number(band[1]) + Number(band[2])).toBe(1200 - 60 + 14)
    expect(svg).toMatch(/<text x="1136" y="575"[^>]*text-anchor="end">\u2067/)
    expect(svg).toMatch(/<text x="60" y="588" [^>]*fill="#1f2a44">Climate grade</)
    expect(Number(/rotate\(-6 ([0-9.]+)/.exec(svg)![1])).toBeLessThan(1200 / 2)
    // A Latin name on an Arabic card is left as it is: it reads left to right.
    expect(svg).toMatch(/<text x="1140" y="100" [^>]*text-anchor="end">Tokyo, JP</)
  })
})

describe("CardPng", () => {
  it("renders a 1200 × 630 PNG with the bundled font, and measures text with it", async () => {
    const { png } = await CardPng.render(grade("Tōkyō, JP"), "metric")
    const data = Buffer.from(png)
    expect(data.subarray(1, 4).toString("latin1")).toBe("PNG")
    expect(data.toString("latin1", 12, 16)).toBe("IHDR")
    expect([data.readUInt32BE(16), data.readUInt32BE(20)]).toEqual([1200, 630])
    // Wider text measures wider, and twice the size twice as wide.
    const narrow = CardPng.measure("iiii", 40, 400)
    const wide = CardPng.measure("WWWW", 40, 400)
    expect(narrow).toBeGreaterThan(0)
    expect(wide).toBeGreaterThan(2 * narrow)
    expect(CardPng.measure("WWWW", 80, 400)).toBeCloseTo(2 * wide, 5)
  })

  it("draws a demo's card differently from the same grade's real one", () => {
    const real = CardPng.drawSync(grade("Tokyo, JP"), "metric")
    const demo = CardPng.drawSync(grade("Tokyo, JP"), "metric", null, "en", true)
    expect(Buffer.from(demo.png).equals(Buffer.from(real.png))).toBe(false)
  })

  it("is abandoned past its time bound: the render rejects rather than answering late", async () => {
    await expect(CardPng.render(grade("Tōkyō, JP"), "metric", 1)).rejects.toThrow(/Abort/)
    // The same card within the default bound is drawn.
    expect((await CardPng.render(grade("Tōkyō, JP"), "metric")).png.byteLength).toBeGreaterThan(0)
  })
})
