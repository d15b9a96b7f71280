/**
 * Every language's site words, the first ones (i18n/*.ts) and those drawn after the grades
 * (i18n/later/*.ts): the keys English has, no other, each with English's placeholders; and the English
 * page's built text (the text without JavaScript) is the core's.
 */
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Languages, Messages, PageWords } from "@climate-grade/core/rules"
import { describe, expect, it } from "vitest"
import ar from "../src/i18n/ar.js"
import de from "../src/i18n/de.js"
import { en, type SiteCatalog } from "../src/i18n/en.js"
import es from "../src/i18n/es.js"
import fr from "../src/i18n/fr.js"
import ja from "../src/i18n/ja.js"
import pt from "../src/i18n/pt.js"
import laterAr from "../src/i18n/later/ar.js"
import laterDe from "../src/i18n/later/de.js"
import { type LaterCatalog, later as laterEn } from "../src/i18n/later/en.js"
import laterEs from "../src/i18n/later/es.js"
import laterFr from "../src/i18n/later/fr.js"
import laterJa from "../src/i18n/later/ja.js"
import laterPt from "../src/i18n/later/pt.js"

const CATALOGS: Readonly<Record<Languages.Language, SiteCatalog>> = { en, de, fr, es, pt, ja, ar }
const LATER: Readonly<Record<Languages.Language, LaterCatalog>> = {
  en: laterEn,
  de: laterDe,
  fr: laterFr,
  es: laterEs,
  pt: laterPt,
  ja: laterJa,
  ar: laterAr
}

describe("the site's words", () => {
  for (const lang of Languages.LANGUAGES) {
    it(`${lang} has every key English has, no other, with English's placeholders, and no empty message`, () => {
      const catalog = CATALOGS[lang]
      expect(Object.keys(catalog).sort()).toEqual(Object.keys(en).sort())
      for (const key of Object.keys(en) as Array<keyof typeof en>) {
        expect([key, Messages.placeholders(catalog[key])]).toEqual([key, Messages.placeholders(en[key])])
        expect(catalog[key].trim(), key).not.toBe("")
      }
    })
  }

  for (const lang of Languages.LANGUAGES) {
    it(`${lang}'s later words have every key English's have, no other, with English's placeholders, and no empty message`, () => {
      const catalog = LATER[lang]
      expect(Object.keys(catalog).sort()).toEqual(Object.keys(laterEn).sort())
      for (const key of Object.keys(laterEn) as Array<keyof typeof laterEn>) {
        expect([key, Messages.placeholders(catalog[key])]).toEqual([key, Messages.placeholders(laterEn[key])])
        expect(catalog[key].trim(), key).not.toBe("")
      }
    })
  }

  it("no key is both a first word and a later one (the later one would never be read)", () => {
    expect(Object.keys(laterEn).filter((key) => Object.hasOwn(en, key))).toEqual([])
  })

  it("the built page's text without JavaScript is the core's English", () => {
    const build = readFileSync(join(dirname(fileURLToPath(import.meta.url)), "..", "scripts", "build.mjs"), "utf8")
    expect(build).toContain(`<p class="noscript">${PageWords.NOSCRIPT.en}</p>`)
  })
})
