import { describe, expect, it } from "vitest"
import { choose, dir, fromAcceptLanguage, LANGUAGES } from "../../src/i18n/Languages.js"
import { de } from "../../src/i18n/catalogs/de.js"
import { CATALOGS, formatDecimal, type Key, longDate, percentileWords, placeholders, shortDate, spellNotice, t } from "../../src/i18n/Messages.js"
import * as PageMessages from "../../src/i18n/PageMessages.js"

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

describe("a page's messages", () => {
  it("read English until the page's language is given, then that language alike the server's", () => {
    expect(PageMessages.holds("fr")).toBe(false)
    expect(PageMessages.t("fr", "label.much-above")).toBe(CATALOGS.en["label.much-above"])
    PageMessages.use("de", de)
    expect(PageMessages.holds("de")).toBe(true)
    for (const key of Object.keys(CATALOGS.en) as Array<Key>) {
      expect(PageMessages.t("de", key, { year: 1940, n: 3 })).toBe(t("de", key, { year: 1940, n: 3 }))
    }
    expect(PageMessages.percentileWords("de", 96)).toBe("96. Perzentil")
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

  it("a spell's notice: one sentence per language from its catalog, cut into what and when and its standing", () => {
    const spell = { kind: "heat", start: "2026-07-16", end: "2026-07-20", severity: "severe", rank_peak: 4, of: 212, forecast: true } as const
    // English says what the pages always said.
    expect(spellNotice("en", spell, 1940, "Thursday", false)).toEqual({
      text: "A severe heat wave from Thursday: it would be the 4th hottest here since 1940 if the forecast holds.",
      lead: "A severe heat wave from Thursday",
      standing: "it would be the 4th hottest here since 1940 if the forecast holds."
    })
    expect(spellNotice("de", spell, 1940, shortDate("de", spell.start), false)).toEqual({
      text: "Eine starke Hitzewelle ab Do., 16. Juli. Sie stünde auf Platz 4 der heißesten Hitzewellen hier seit 1940, wenn die Vorhersage eintrifft.",
      lead: "Eine starke Hitzewelle ab Do., 16. Juli.",
      standing: "Sie stünde auf Platz 4 der heißesten Hitzewellen hier seit 1940, wenn die Vorhersage eintrifft."
    })
    for (const lang of LANGUAGES) {
      for (const kind of ["heat", "cold"] as const) {
        for (const severity of ["severe", "extreme"] as const) {
          for (const started of [true, false]) {
            const told = spellNotice(lang, { ...spell, kind, severity }, 1940, shortDate(lang, spell.start), started)
            expect(told.text, lang).toContain(told.lead)
            expect(told.text.endsWith(told.standing), lang).toBe(true)
            expect(told.lead.length, lang).toBeGreaterThan(0)
            expect(told.standing, lang).toContain("1940")
            expect(told.text, lang).not.toMatch(/[{}]|\.\./)
          }
        }
      }
    }
    expect(["en", "fr", "ja", "ar"].map((lang) => shortDate(lang as "en", "2026-12-03"))).toEqual(["Thu 3 Dec", "jeu. 3 décembre", "12月3日(木)", "الخميس، 3 ديسمبر"])
  })
})
