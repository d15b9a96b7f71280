/**
 * The pages in each of the seven languages, in Chromium on the real server: a place's page and the
 * account page show that language's words, `<html lang dir>` say so, numbers follow the language (a
 * decimal comma in German), axe finds nothing serious; Arabic reads right to left without sideways
 * scroll at 375 px; the picker switches, keeps the place and its choice lasts across a reload; `lang=`
 * beats Accept-Language; the HTML a plain fetch sees is in the language too. The language changes
 * nothing the database does, so this file runs on PGlite only.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Languages, Messages, PageWords } from "@climate-grade/core/rules"
import { backends, Chromium } from "@climate-grade/testing"
import { TestServer } from "@climate-grade/server/test/TestServer"
import * as Effect from "effect/Effect"
import type { Page } from "playwright-core"
import ar from "../src/i18n/ar.js"
import de from "../src/i18n/de.js"
import { en, type SiteCatalog } from "../src/i18n/en.js"
import es from "../src/i18n/es.js"
import fr from "../src/i18n/fr.js"
import ja from "../src/i18n/ja.js"
import pt from "../src/i18n/pt.js"
import laterAr from "../src/i18n/later/ar.js"
import laterDe from "../src/i18n/later/de.js"
import { later as laterEn } from "../src/i18n/later/en.js"
import laterEs from "../src/i18n/later/es.js"
import laterFr from "../src/i18n/later/fr.js"
import laterJa from "../src/i18n/later/ja.js"
import laterPt from "../src/i18n/later/pt.js"
import { siteWorld } from "./support/SiteWorld.js"

const CATALOGS: Readonly<Record<Languages.Language, SiteCatalog>> = { en, de, fr, es, pt, ja, ar }
const LATER: Readonly<Record<Languages.Language, Readonly<Record<keyof typeof laterEn, string>>>> = {
  en: laterEn,
  de: laterDe,
  fr: laterFr,
  es: laterEs,
  pt: laterPt,
  ja: laterJa,
  ar: laterAr
}
const CORE = Messages.CATALOGS

/** The words of a message before its first placeholder ("Today, " of "Today, {date}"). */
const lead = (message: string) => message.split("{")[0]!

/** Each test loads a place and runs axe, in a browser on a machine that may be busy: generous. */
const TIMEOUT = 120_000

let counter = 0
const freshPlace = () => {
  counter++
  return { lat: (-20 - counter * 1.5 - 0.1).toFixed(2), lon: (100 + counter * 2.25).toFixed(2) }
}

const waitForGrades = (page: Page) => page.locator(".grade-card").nth(2).waitFor({ timeout: 20_000 })

const text = (page: Page, selector: string) => page.locator(selector).first().evaluate((e) => (e.textContent ?? "").trim())

/** The page's errors but the account page's asking whether a visitor is signed in (a 401 is the answer). */
const errors = (log: Chromium.PageLog) => log.errors.filter((e) => !/status of 401/.test(e))

const htmlLang = (page: Page) =>
  page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir }))

layer(siteWorld({}, { backend: backends[0]! }), { timeout: 180_000 })("the pages' languages", (it) => {
  describe("each language", () => {
    for (const lang of Languages.LANGUAGES) {
      it.scoped(`${lang}: the main page and the account page in its words, lang and dir, axe clean`, () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const browser = yield* Chromium.Chromium
          const words = CATALOGS[lang]
          const { lat, lon } = freshPlace()
          const { page, log } = yield* Chromium.scopedPage(browser, { width: 375 })
          yield* Effect.promise(async () => {
            await page.goto(url(`/?lat=${lat}&lon=${lon}&lang=${lang}`))
            await waitForGrades(page)
          })
          expect(yield* Effect.promise(() => htmlLang(page))).toEqual({ lang, dir: Languages.dir(lang) })
          expect(yield* Effect.promise(() => text(page, "#today-title"))).toContain(lead(words["today.title"]))
          expect(yield* Effect.promise(() => text(page, ".finder-title"))).toBe(words["finder.another"])
          expect(yield* Effect.promise(() => text(page, ".search-label"))).toBe(words["search.label"])
          expect(yield* Effect.promise(() => text(page, ".foot a"))).toBe(words["foot.account"])
          expect(yield* Effect.promise(() => page.locator(".skip").textContent())).toBe(words.skip)
          expect(yield* Effect.promise(() => page.locator(".language select").inputValue())).toBe(lang)
          const today = yield* Effect.promise(() => text(page, "#today"))
          if (lang !== "en") expect(today).not.toMatch(/Today|percentile|Loading/)
          // Numbers as the language writes them: a decimal comma in German, French, Spanish and Portuguese.
          // (Arabic keeps the value whole in its right-to-left text with invisible isolates.)
          const value = (yield* Effect.promise(() => text(page, ".grade-card .num"))).replace(/[\u2066\u2069]/g, "")
          expect(value).toMatch(["de", "fr", "es", "pt"].includes(lang) ? /^−?\d+,\d °C$/ : /^−?\d+\.\d °C$/)
          // The sections below the grades too.
          yield* Effect.promise(async () => {
            await Chromium.drawWholePage(page)
            await page.getByRole("grid").waitFor({ timeout: 20_000 })
          })
          expect(yield* Effect.promise(() => text(page, "#calendar-title"))).toBe(words["calendar.title"])
          // "About these numbers" and the spells' title, drawn after the grades, speak the language too.
          yield* Effect.promise(() => page.locator("#about .provenance h3").waitFor({ timeout: 20_000 }))
          expect(yield* Effect.promise(() => text(page, "#about .provenance h3"))).toBe(LATER[lang]["prov.reading"])
          expect(yield* Effect.promise(() => text(page, "#about .provenance dt"))).toBe(LATER[lang]["prov.source"])
          expect(yield* Effect.promise(() => text(page, "#spells-title"))).toBe(CORE[lang]["spells.title"])
          expect(yield* Effect.promise(() => Chromium.axe(page))).toEqual([])

          yield* Effect.promise(() => page.goto(url(`/alerts?lang=${lang}`)))
          yield* Effect.promise(() => page.locator("#signin-title").waitFor({ timeout: 20_000 }))
          expect(yield* Effect.promise(() => htmlLang(page))).toEqual({ lang, dir: Languages.dir(lang) })
          expect(yield* Effect.promise(() => text(page, "h1"))).toBe(words["foot.account"])
          expect(yield* Effect.promise(() => text(page, "#signin-title"))).toBe(words["signin.title"])
          expect(yield* Effect.promise(() => page.title())).toContain(words["foot.account"])
          expect(yield* Effect.promise(() => page.locator(".language select").count())).toBe(1)
          expect(yield* Effect.promise(() => Chromium.axe(page))).toEqual([])
          expect(errors(log)).toEqual([])
        }),
        TIMEOUT
      )
    }
  })

  it.scoped("Arabic at 375 px: right to left, the charts left to right in time, no sideways scroll", () =>
    Effect.gen(function* () {
      const { url } = yield* TestServer
      const browser = yield* Chromium.Chromium
      const { lat, lon } = freshPlace()
      const { page, log } = yield* Chromium.scopedPage(browser, { width: 375, locale: "ar-EG" })
      yield* Effect.promise(async () => {
        await page.goto(url(`/?lat=${lat}&lon=${lon}`))
        await waitForGrades(page)
        await Chromium.drawWholePage(page)
        await page.getByRole("grid").waitFor({ timeout: 20_000 })
        await page.locator(".maps").scrollIntoViewIfNeeded()
        await page.locator(".map-land").first().waitFor()
        await page.locator(".stripes-svg").waitFor({ timeout: 20_000 })
        await page.locator("#spells .spell-top caption, #spells .error-text").first().waitFor({ timeout: 20_000 })
      })
      expect(yield* Effect.promise(() => htmlLang(page))).toEqual({ lang: "ar", dir: "rtl" })
      expect(yield* Effect.promise(() => page.evaluate(() => document.documentElement.scrollWidth <= innerWidth))).toBe(true)
      // The layout mirrors: the brand sits at the right, the controls at the left.
      const brand = (yield* Effect.promise(() => page.locator(".brand").boundingBox()))!
      const controls = (yield* Effect.promise(() => page.locator(".top-controls").boundingBox()))!
      expect(brand.x).toBeGreaterThan(controls.x)
      // Time runs left to right in the calendar and the stripes.
      expect(yield* Effect.promise(() => page.locator(".calendar-wrap").evaluate((e) => getComputedStyle(e).direction))).toBe("ltr")
      expect(yield* Effect.promise(() => page.locator(".stripes-area").evaluate((e) => getComputedStyle(e).direction))).toBe("ltr")
      expect(log.errors).toEqual([])
    }),
    TIMEOUT
  )

  it.scoped("Japanese headings and verdict break between phrases (Chromium's auto-phrase); English ones as usual", () =>
    Effect.gen(function* () {
      const { url } = yield* TestServer
      const browser = yield* Chromium.Chromium
      const { lat, lon } = freshPlace()
      const breaks = (lang: string) =>
        Effect.gen(function* () {
          const { page } = yield* Chromium.scopedPage(browser, { width: 375 })
          return yield* Effect.promise(async () => {
            await page.goto(url(`/?lat=${lat}&lon=${lon}&lang=${lang}`))
            await waitForGrades(page)
            return page.evaluate(() =>
              ["h1", ".verdict", "#today h2"].map((selector) => {
                const style = getComputedStyle(document.querySelector(selector)!)
                return [selector, style.wordBreak, style.textWrap]
              })
            )
          })
        })
      expect(yield* breaks("ja")).toEqual([
        ["h1", "auto-phrase", "wrap"],
        [".verdict", "auto-phrase", "wrap"],
        ["#today h2", "auto-phrase", "wrap"]
      ])
      expect(yield* breaks("en")).toEqual([
        ["h1", "normal", "balance"],
        [".verdict", "normal", "pretty"],
        ["#today h2", "normal", "balance"]
      ])
    }),
    TIMEOUT
  )

  it.scoped("the picker switches the language, keeps the place, and the choice lasts across a reload", () =>
    Effect.gen(function* () {
      const { url } = yield* TestServer
      const browser = yield* Chromium.Chromium
      const { lat, lon } = freshPlace()
      const { page, log } = yield* Chromium.scopedPage(browser)
      const address = `/?lat=${lat}&lon=${lon}&name=Somewhere`
      yield* Effect.promise(async () => {
        await page.goto(url(address))
        await waitForGrades(page)
      })
      expect(yield* Effect.promise(() => htmlLang(page))).toEqual({ lang: "en", dir: "ltr" })
      yield* Effect.promise(async () => {
        await Promise.all([page.waitForURL(/lat=/), page.waitForEvent("load"), page.locator(".language select").selectOption("de")])
        await waitForGrades(page)
      })
      expect(new URL(page.url()).searchParams.get("lat")).toBe(lat)
      expect(yield* Effect.promise(() => text(page, "h1"))).toBe("Somewhere")
      expect(yield* Effect.promise(() => htmlLang(page))).toEqual({ lang: "de", dir: "ltr" })
      expect(yield* Effect.promise(() => text(page, ".finder-title"))).toBe(de["finder.another"])
      // The plain address again, as a reload or a new visit: still German, the title too.
      yield* Effect.promise(async () => {
        await page.goto(url(address))
        await waitForGrades(page)
      })
      expect(yield* Effect.promise(() => htmlLang(page))).toEqual({ lang: "de", dir: "ltr" })
      expect(yield* Effect.promise(() => text(page, ".finder-title"))).toBe(de["finder.another"])
      expect(yield* Effect.promise(() => page.title())).toContain("heute")
      // The account page follows the kept choice.
      yield* Effect.promise(async () => {
        await page.goto(url("/alerts"))
        await page.locator("#signin-title").waitFor({ timeout: 20_000 })
      })
      expect(yield* Effect.promise(() => text(page, "h1"))).toBe(de["foot.account"])
      // And back to English from there.
      yield* Effect.promise(async () => {
        await Promise.all([page.waitForEvent("load"), page.locator(".language select").selectOption("en")])
        await page.locator("#signin-title").waitFor({ timeout: 20_000 })
      })
      expect(yield* Effect.promise(() => text(page, "h1"))).toBe(en["foot.account"])
      expect(errors(log)).toEqual([])
    }),
    TIMEOUT
  )

  it.scoped("lang= beats Accept-Language, which beats English", () =>
    Effect.gen(function* () {
      const { url } = yield* TestServer
      const browser = yield* Chromium.Chromium
      const { lat, lon } = freshPlace()
      const { page } = yield* Chromium.scopedPage(browser, { locale: "fr-FR" })
      yield* Effect.promise(async () => {
        await page.goto(url(`/?lat=${lat}&lon=${lon}`))
        await waitForGrades(page)
      })
      expect(yield* Effect.promise(() => htmlLang(page))).toEqual({ lang: "fr", dir: "ltr" })
      expect(yield* Effect.promise(() => text(page, ".finder-title"))).toBe(fr["finder.another"])
      yield* Effect.promise(async () => {
        await page.goto(url(`/?lat=${lat}&lon=${lon}&lang=ja`))
        await waitForGrades(page)
      })
      expect(yield* Effect.promise(() => htmlLang(page))).toEqual({ lang: "ja", dir: "ltr" })
      expect(yield* Effect.promise(() => text(page, ".finder-title"))).toBe(ja["finder.another"])
    }),
    TIMEOUT
  )

  it.effect("the HTML a plain fetch sees is in the asked language: lang, dir, title, the text without JavaScript, the words' preload", () =>
    Effect.gen(function* () {
      const { url } = yield* TestServer
      const { lat, lon } = freshPlace()
      const get = (path: string, acceptLanguage: string) =>
        Effect.promise(() => fetch(url(path), { headers: { "accept-language": acceptLanguage } }).then((r) => r.text()))
      const german = yield* get(`/?lat=${lat}&lon=${lon}`, "de-DE,de;q=0.9,en;q=0.5")
      expect(german).toMatch(/<html lang="de" dir="ltr"/)
      expect(german).toContain(PageWords.NOSCRIPT.de)
      expect(german).toMatch(/<link rel="modulepreload" href="assets\/[\w-]+\.js">\n<\/head>/)
      expect(german).not.toContain("<!-- languages")
      const arabic = yield* get(`/?lang=ar`, "de")
      expect(arabic).toMatch(/<html lang="ar" dir="rtl"/)
      expect(arabic).toContain(PageWords.NOSCRIPT.ar)
      const english = yield* get("/", "en")
      expect(english).toContain(PageWords.NOSCRIPT.en)
      const account = yield* get("/alerts", "ja")
      expect(account).toMatch(/<html lang="ja" dir="ltr"/)
      expect(account).toContain(PageWords.NOSCRIPT.ja)
    }),
    TIMEOUT
  )
})
