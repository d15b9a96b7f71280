/** The climate context in words and stripes, as the main page prints and draws it. */
import { describe, expect, it } from "vitest"
import type { TrendPayload, TrendStanding } from "../src/payloads.js"
import {
  extentOf,
  formatDifference,
  NO_STRIPE,
  periodTexts,
  periodWords,
  spanWords,
  STRIPE_COLOURS,
  standingWords,
  stripeColour,
  stripesOf,
  stripeWords
} from "../src/trend.js"

const standing = (s: Partial<TrendStanding>): TrendStanding => ({
  value: 12.3,
  rank: 3,
  of: 37,
  highest: { year: 2015, value: 14 },
  lowest: { year: 1993, value: 8.1 },
  ...s
})
const SUBJECT = "November so far"
/** The sentences keep a value and its unit together with a no-break space; compared here as plain spaces. */
const words = (...args: Parameters<typeof standingWords>) => standingWords(...args).replaceAll("\u00a0", " ")

describe("standingWords", () => {
  it("says the rank from the top in the upper half, naming the record year", () => {
    expect(words(SUBJECT, "tmax", standing({}), 2025, "metric")).toBe(
      "November so far is the 3rd warmest of 37 for daytime highs (mean high 12.3 °C); the warmest was 2015 (14.0 °C)."
    )
    expect(words(SUBJECT, "tmin", standing({ rank: 19 }), 2025, "metric")).toContain("is the 19th warmest of 37 for nighttime lows")
    expect(words(SUBJECT, "tmax", standing({}), 2025, "imperial")).toContain("(mean high 54.1 °F); the warmest was 2015 (57.2 °F)")
  })

  it("from the bottom: the 2nd only when certain, else among the lowest", () => {
    // One other year at or below, and it is the driest (strictly lower): exactly the 2nd driest.
    const dry = standing({ value: 31.2, rank: 36, highest: { year: 1981, value: 160 }, lowest: { year: 1976, value: 12 } })
    expect(words(SUBJECT, "precip", dry, 2025, "metric")).toBe(
      "November so far is the 2nd driest of 37 (total 31.2 mm); the driest was 1976 (12.0 mm)."
    )
    // Four other years at or below: some may tie with this one, so "among the 5".
    expect(words(SUBJECT, "tmin", standing({ rank: 33 }), 2025, "metric")).toBe(
      "November so far is among the 5 coldest of 37 for nighttime lows (mean low 12.3 °C); the coldest was 1993 (8.1 °C)."
    )
    // Below the middle but far from the bottom: the rank from the top, which is exact.
    expect(words(SUBJECT, "tmax", standing({ rank: 25 }), 2025, "metric")).toBe(
      "November so far is the 25th warmest of 37 for daytime highs (mean high 12.3 °C); the warmest was 2015 (14.0 °C)."
    )
    expect(words(SUBJECT, "precip", standing({ rank: 28, of: 30 }), 2025, "metric")).toContain("is among the 3 driest of 30")
  })

  it("records and ties at either end name the year", () => {
    expect(words(SUBJECT, "tmax", standing({ rank: 1, highest: { year: 2025, value: 12.3 } }), 2025, "metric")).toBe(
      "November so far is the warmest of 37 for daytime highs (mean high 12.3 °C), a record."
    )
    expect(words(SUBJECT, "tmax", standing({ rank: 1, highest: { year: 1998, value: 12.3 } }), 2025, "metric")).toBe(
      "November so far is the joint warmest of 37 for daytime highs (mean high 12.3 °C), with 1998."
    )
    expect(words(SUBJECT, "precip", standing({ rank: 37, lowest: { year: 2025, value: 12.3 } }), 2025, "metric")).toBe(
      "November so far is the driest of 37 (total 12.3 mm), a record."
    )
    expect(words(SUBJECT, "precip", standing({ rank: 30, lowest: { year: 1959, value: 12.3 } }), 2025, "metric")).toBe(
      "November so far is the joint driest of 37 (total 12.3 mm), with 1959."
    )
  })

  it("a period missing a day, and one with nothing to compare", () => {
    expect(words(SUBJECT, "precip", { value: null, rank: null, of: 37, highest: null, lowest: null }, 2025, "metric")).toBe(
      "November so far is not ranked for precipitation: the record misses a day of it."
    )
    expect(
      words(SUBJECT, "tmax", standing({ of: 1, rank: 1, highest: { year: 2025, value: 12.3 }, lowest: { year: 2025, value: 12.3 } }), 2025, "metric")
    ).toBe("November so far has a mean high of 12.3 °C; no earlier year in the record covers the same days.")
  })
})

describe("period names", () => {
  it("month, meteorological season by hemisphere, and year, 'so far' until whole", () => {
    expect(periodWords("month", "2025-11-01", "2025-11-21", 52)).toBe("November so far")
    expect(periodWords("month", "2025-11-01", "2025-11-30", 52)).toBe("November 2025")
    expect(periodWords("season", "2025-09-01", "2025-11-21", 52)).toBe("Autumn so far")
    expect(periodWords("season", "2025-09-01", "2025-11-21", -33)).toBe("Spring so far")
    expect(periodWords("season", "2024-12-01", "2025-01-15", 52)).toBe("Winter so far")
    expect(periodWords("season", "2024-12-01", "2025-02-28", -33)).toBe("Summer 2025")
    expect(periodWords("season", "2025-06-01", "2025-08-31", 10)).toBe("Summer 2025")
    expect(periodWords("year", "2025-01-01", "2025-11-21", 52)).toBe("2025 so far")
    expect(periodWords("year", "2024-01-01", "2024-12-31", 52)).toBe("2024")
  })

  it("spans of days", () => {
    expect(spanWords("2025-11-01", "2025-11-21")).toBe("1–21 Nov")
    expect(spanWords("2025-11-01", "2025-11-01")).toBe("1 Nov")
    expect(spanWords("2025-09-01", "2025-11-21")).toBe("1 Sep–21 Nov")
    expect(spanWords("2024-12-01", "2025-01-15")).toBe("1 Dec 2024–15 Jan 2025")
  })
})

const year = (y: number, days: number, tmax: number | null, tmin: number | null) => ({ year: y, days, tmax, tmin, precip: 700 })
const payload = (over: Partial<TrendPayload>): TrendPayload => {
  const s = standing({})
  const period = (from: string) => ({ from, to: "2025-11-21", variables: { tmax: s, tmin: s, precip: s } })
  return {
    view: "trend",
    v: 1,
    cell: { lat: 52.5, lon: 13.5, label: "Berlin, DE", timezone: "Europe/Berlin" },
    first: "1959-07-01",
    last: "2025-11-21",
    baseline: { from: 1960, to: 1989 },
    years: [],
    periods: { month: period("2025-11-01"), season: period("2025-09-01"), year: period("2025-01-01") },
    ...over
  }
}

describe("periodTexts", () => {
  it("three periods, each titled with its days, three sentences each", () => {
    const texts = periodTexts(payload({}), "metric")
    expect(texts.map((t) => t.title)).toEqual(["November so far (1–21 Nov)", "Autumn so far (1 Sep–21 Nov)", "2025 so far (1 Jan–21 Nov)"])
    expect(texts[1]!.sentences.map((s) => s.variable)).toEqual(["tmax", "tmin", "precip"])
    expect(texts[1]!.sentences[2]!.text.replaceAll("\u00a0", " ")).toMatch(/^Autumn so far is the 3rd wettest of 37 \(total 12\.3 mm\)/)
  })
})

describe("warming stripes", () => {
  const years = [
    year(1959, 184, 10, 2),
    year(1960, 366, 12, 4),
    year(1961, 365, 13, 5),
    year(1962, 365, null, 5),
    year(1963, 365, 15, 7),
    year(2025, 325, 16, 8)
  ]

  it("one stripe per complete year, its mean of highs and lows against the baseline's", () => {
    const { isBaseline, reference, stripes } = stripesOf(payload({ years, baseline: { from: 1960, to: 1962 } }))
    expect(stripes.map((s) => s.year)).toEqual([1960, 1961, 1962, 1963])
    // Baseline 1960–1962: means 8 and 9 (1962 has none): 8.5.
    expect(reference).toEqual({ from: 1960, to: 1962, mean: 8.5 })
    expect(isBaseline).toBe(true)
    expect(stripes.map((s) => s.anomaly)).toEqual([-0.5, 0.5, null, 2.5])
  })

  it("without a baseline, against every complete year with a mean", () => {
    const { isBaseline, reference } = stripesOf(payload({ years, baseline: null }))
    expect(isBaseline).toBe(false)
    expect(reference).toEqual({ from: 1960, to: 1963, mean: (8 + 9 + 11) / 3 })
  })

  it("colours: the middle class at 0, the ends at the largest anomaly, grey without a mean", () => {
    expect(stripeColour(0, 2)).toBe(STRIPE_COLOURS[5])
    expect(stripeColour(2, 2)).toBe(STRIPE_COLOURS[10])
    expect(stripeColour(-2, 2)).toBe(STRIPE_COLOURS[0])
    expect(stripeColour(-0.1, 2)).toBe(STRIPE_COLOURS[5])
    expect(stripeColour(1.1, 2)).toBe(STRIPE_COLOURS[8])
    expect(stripeColour(null, 2)).toBe("#8c8c8c")
    expect(extentOf(stripesOf(payload({ years, baseline: { from: 1960, to: 1962 } })).stripes)).toBe(2.5)
  })

  it("a stripe in words, in either units", () => {
    const reference = { from: 1961, to: 1990, mean: 9.4 }
    expect(stripeWords({ year: 1987, mean: 9.8, anomaly: 0.4 }, reference, "metric")).toBe(
      "1987: mean 9.8 °C, 0.4 °C above the 1961–1990 average."
    )
    expect(stripeWords({ year: 1963, mean: 8.9, anomaly: -0.5 }, reference, "imperial")).toBe(
      "1963: mean 48.0 °F, 0.9 °F below the 1961–1990 average."
    )
    expect(stripeWords({ year: 1970, mean: 9.4, anomaly: 0.02 }, reference, "metric")).toBe("1970: mean 9.4 °C, the same as the 1961–1990 average.")
    expect(stripeWords({ year: 1962, mean: null, anomaly: null }, reference, "metric")).toBe("1962: no yearly mean (too few days with values).")
    expect(formatDifference(-0.04, "metric")).toBe("±0.0 °C")
    expect(formatDifference(1.25, "imperial")).toBe("+2.3 °F")
  })
})

describe("the stripes' colours", () => {
  // WCAG 2 relative luminance and contrast ratio, written again here.
  const luminance = (hex: string) => {
    const c = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255)
    const [r, g, b] = c.map((x) => (x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4))
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
  }
  const contrast = (a: string, b: string) => {
    const [x, y] = [luminance(a), luminance(b)].sort((m, n) => n - m)
    return (x! + 0.05) / (y! + 0.05)
  }

  it("the chosen stripe's mark, a near-black and a white outline, stands out 3:1 or more on every colour", () => {
    for (const colour of [...STRIPE_COLOURS, NO_STRIPE]) {
      const best = Math.max(contrast(colour, "#111111"), contrast(colour, "#ffffff"))
      expect([colour, best >= 3]).toEqual([colour, true])
    }
  })

  it("RdBu runs from dark blue to dark red through a light middle: lightness rises to the middle, then falls", () => {
    const l = STRIPE_COLOURS.map(luminance)
    for (let i = 0; i < 5; i++) expect(l[i]!).toBeLessThan(l[i + 1]!)
    for (let i = 5; i < 10; i++) expect(l[i]!).toBeGreaterThan(l[i + 1]!)
  })
})
