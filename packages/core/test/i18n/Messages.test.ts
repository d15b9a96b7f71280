import { describe, expect, it } from "vitest"
import { choose, dir, fromAcceptLanguage, LANGUAGES } from "../../src/i18n/Languages.js"
import { CATALOGS, formatDecimal, type Key, longDate, percentileWords, placeholders, t } from "../../src/i18n/Messages.js"

describe("the messages", () => {
  const english = Object.keys(CATALOGS.en) as Array<Key>

  it.each(LANGUAGES.filter((l) => l !== "en"))("%s has every message English has, with English's placeholders", (lang) => {
    const catalog = CATALOGS[lang] as Readonly<Record<string, string>>
    expect(Object.keys(catalog).sort()).toEqual([...english].sort())
    for (const key of english) {
      expect(catalog[key]?.trim(), `${lang} ${key}`).not.toBe("")
      expect(placeholders(catalog[key]!), `${lang} ${key}`).toEqual(placeholders(CATALOGS.en[key]))
    }
  })

  it("the placeholder check sees a missing or renamed placeholder", () => {
    expect(placeholders("{noun} {value}")).not.toEqual(placeholders("{noun} {valeur}"))
    expect(placeholders("{noun}")).not.toEqual(placeholders("{noun} {value}"))
  })

  it("fills placeholders and formats numbers and dates in the language's locale", () => {
    expect(t("de", "head.today", { place: "Berlin", verdict: "x" })).toBe("Berlin heute: x")
    expect(formatDecimal("de", 31.24, 1)).toBe("31,2")
    expect(formatDecimal("fr", -0.04, 1)).toBe("0,0")
    expect(formatDecimal("en", -3.25, 1)).toBe("−3.3")
    expect(formatDecimal("ar", -31.2, 1)).toBe("−31.2")
    expect(formatDecimal("pt", 31.2, 1)).toBe("31,2")
    expect(percentileWords("en", 92)).toBe("92nd percentile")
    expect(percentileWords("en", 11)).toBe("11th percentile")
    expect(percentileWords("de", 96)).toBe("96. Perzentil")
    expect(longDate("de", "2025-03-03")).toContain("März")
    expect(longDate("ja", "2025-03-03")).toContain("2025年3月3日")
  })
})

describe("choosing the language", () => {
  it("lang= first, then the kept choice, then Accept-Language's best supported, then English", () => {
    expect(choose({ query: "fr", acceptLanguage: "de" })).toBe("fr")
    expect(choose({ query: "xx", kept: "ja", acceptLanguage: "de" })).toBe("ja")
    expect(choose({ query: "xx", acceptLanguage: "de" })).toBe("de")
    expect(choose({})).toBe("en")
    expect(fromAcceptLanguage("pt-BR,pt;q=0.9,en;q=0.8")).toBe("pt")
    expect(fromAcceptLanguage("nl;q=1, es;q=0.5, ja;q=0.7")).toBe("ja")
    expect(fromAcceptLanguage("de;q=0, fr;q=0.1")).toBe("fr")
    expect(fromAcceptLanguage("nl, *")).toBeUndefined()
    expect(fromAcceptLanguage("ar-EG")).toBe("ar")
    expect(dir("ar")).toBe("rtl")
    expect(dir("ja")).toBe("ltr")
  })
})
