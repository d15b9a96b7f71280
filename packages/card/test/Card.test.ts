/**
 * The card's picture: long names fitted (smaller, then cut with an ellipsis, never wider than the
 * card), every text escaped, the three grades in words and numbers, a label the font cannot draw
 * replaced by the coordinates, and the PNG 1200 × 630.
 */
import { describe, expect, it } from "@effect/vitest"
import { CardPng, CardSvg } from "@climate-grade/card"
import type { Payloads } from "@climate-grade/core"
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
