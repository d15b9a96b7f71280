/**
 * The account page and the refusals in the visitor's language, in Chromium on the real server: a
 * signed-in user with a watched place sees the account page in German and in Arabic without any of
 * the English sentences it shows in English (the watches list, the spell switches, the kinds'
 * meanings, the last alerts, the delivery notes, names read by screen readers included), axe clean;
 * and a new place refused because the day's budget is spent is told in French (the server's English
 * detail is not shown on a French page). The language changes nothing the database does, so this
 * file runs on PGlite only.
 */
import { describe, expect, layer } from "@effect/vitest"
import { backends, Chromium, DayEdges } from "@climate-grade/testing"
import { TestServer } from "@climate-grade/server/test/TestServer"
import * as Effect from "effect/Effect"
import type { Page } from "playwright-core"
import ar from "../src/i18n/ar.js"
import de from "../src/i18n/de.js"
import type { SiteCatalog } from "../src/i18n/en.js"
import fr from "../src/i18n/fr.js"
import laterAr from "../src/i18n/later/ar.js"
import laterDe from "../src/i18n/later/de.js"
import type { LaterCatalog } from "../src/i18n/later/en.js"
import laterFr from "../src/i18n/later/fr.js"
import { passwordUser as passwordUserOf, signIn } from "./support/Accounts.js"
import { siteWorld } from "./support/SiteWorld.js"

const TIMEOUT = 150_000
const run = <A>(f: () => Promise<A>) => Effect.promise(f)

/** What the English account page says that no other language's page may. */
const ENGLISH = [
  "Watched places",
  "Stop watching",
  "Watch this place",
  "main page",
  "at most",
  "Heat waves",
  "Cold spells",
  "heat wave",
  "cold spell",
  "One message per",
  "What each kind means",
  "A coming day",
  "Last alerts",
  "No alert yet",
  "Direct-message delivery",
  "Alerts are delivered",
  "Linked accounts",
  "You are signed in",
  "Sign out",
  "Your data",
  "Delete account",
  "Loading",
  "could not be",
  "Try again"
]

/** Every word of the page a person sees or hears: the text (closed details too) and the names given by attributes. */
const pageWords = (page: Page) =>
  page.evaluate(() => {
    const attributes = [...document.querySelectorAll("[aria-label], [title], [alt], [placeholder]")].flatMap((e) =>
      ["aria-label", "title", "alt", "placeholder"].map((a) => e.getAttribute(a) ?? "")
    )
    return [document.title, document.querySelector("header")?.textContent ?? "", document.querySelector("main")?.textContent ?? "", ...attributes].join("\n")
  })

const passwordUser = passwordUserOf("linguist").pipe(Effect.map((user) => user.email))

layer(siteWorld({}, { backend: backends[0]! }), { timeout: 180_000 })("the account page in other languages", (it) => {
  for (const [lang, words] of [
    ["de", { ...de, ...laterDe }],
    ["ar", { ...ar, ...laterAr }]
  ] as ReadonlyArray<readonly ["de" | "ar", SiteCatalog & LaterCatalog]>) {
    it.scoped(`${lang}: signed in with a watched place, no English sentence, axe clean`, () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const browser = yield* Chromium.Chromium
        const email = yield* passwordUser
        const { page, log } = yield* Chromium.scopedPage(browser, { width: 375 })
        yield* run(async () => {
          // Signed in and watching a place (heat, wet and heat waves), by the English pages.
          await signIn(page, url, email, "/alerts?lang=en")
          const answer = await page.evaluate(() =>
            fetch("api/v2/alerts/watches", {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ lat: 47.6, lon: 8.1, kinds: ["heat", "wet", "heatwave"] })
            }).then((r) => r.status)
          )
          expect(answer).toBe(201)
          await page.goto(url(`/alerts?lang=${lang}`))
          await page.locator(".watches li").first().waitFor({ timeout: 20_000 })
          await page.getByText(words["sent.none"]).waitFor({ timeout: 20_000 })
        })
        const label = (yield* run(() => page.locator(".watches li .muted").first().textContent()))!
        expect(label).toBe(new Intl.ListFormat(lang, { type: "conjunction" }).format([words["kind.heat"], words["kind.wet"], words["kind.heatwave"]]))
        const text = yield* run(() => pageWords(page))
        expect(text).toContain(words["watches.title"])
        expect(text).toContain(words["alerts.not-configured"])
        expect(text).toContain(words["kind.heatwave.meaning"])
        expect(ENGLISH.filter((phrase) => text.includes(phrase))).toEqual([])
        // The watched place's own switches and its way out, named in the language.
        const place = (yield* run(() => page.locator(".watch-kinds legend").first().textContent()))!
        expect(yield* run(() => page.getByRole("checkbox", { name: words["watches.heatwave-at"].replace("{place}", place) }).isChecked())).toBe(true)
        expect(yield* run(() => page.getByRole("button", { name: words["watches.stop"].replace("{place}", place) }).count())).toBe(1)
        expect(yield* run(() => page.evaluate(() => document.documentElement.scrollWidth <= innerWidth))).toBe(true)
        expect(yield* run(() => Chromium.axe(page))).toEqual([])
        // Changing a kind says so in the language.
        yield* run(async () => {
          // A click, not check(): the box shows the kinds held until the server's answer is read back.
          await page.getByRole("checkbox", { name: words["watches.coldspell-at"].replace("{place}", place) }).click()
          await page.locator(".watches ~ p[role=status]").filter({ hasText: place }).waitFor({ timeout: 20_000 })
        })
        const status = (yield* run(() => page.locator(".watches ~ p[role=status]").textContent()))!
        expect(status.startsWith(words["watch.now-for"].split("{")[0]!)).toBe(true)
        expect(ENGLISH.filter((phrase) => status.includes(phrase))).toEqual([])
        // The page asks whether a visitor is signed in before the sign-in: a 401 is the answer.
        expect(log.errors.filter((e) => !/status of 401/.test(e))).toEqual([])
      }),
      TIMEOUT
    )
  }
})

describe("a refusal in the page's language", () => {
  // The day's budget below one place's cost: the first new place is refused until 00:00 UTC.
  const budget = { WEATHER_DAILY_UNITS: "1", WEATHER_CLIENT_SHARE: "100", WEATHER_SIGNED_IN_SHARE: "0" }
  layer(siteWorld(budget, { backend: backends[0]! }), { timeout: 180_000 })("the day's budget spent", (it) => {
    it.scoped("fr: a new place refused for the day's budget is told in French, with when it opens in French", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const browser = yield* Chromium.Chromium
        const { page, log } = yield* Chromium.scopedPage(browser, { width: 375, timezoneId: "Europe/Paris" })
        const lead = fr.failed.split("{")[0]!
        // Not in the budget day's last two minutes: the wait would be told in seconds, or the day
        // would open (and the place load) while the page asks.
        yield* DayEdges.clearOfDateChange(DayEdges.BUDGET_ZONE, 150_000)
        yield* run(async () => {
          await page.goto(url("/?lat=48.85&lon=2.35&name=Paris&lang=fr"))
          await page.getByText(lead).waitFor({ timeout: 30_000 })
        })
        const text = (yield* run(() => page.locator(".error-text").filter({ hasText: lead }).textContent()))!
        expect(text.startsWith(`${lead}${laterFr["refusal.budget"]} `)).toBe(true)
        expect(text).toMatch(/De nouveaux lieux pourront être chargés à partir de (aujourd'hui|demain) à \d\d:\d\d, heure locale \(dans \d+\s(heures?|minutes?)( et \d+\sminutes?)?\)\.$/)
        expect(["budget (", "Today", "weather", "loaded", "your time", "hour", "tomorrow"].filter((phrase) => text.includes(phrase))).toEqual([])
        expect(log.errors.filter((e) => !e.includes("503"))).toEqual([])
      }),
      // Up to two and a half minutes waiting out the budget's day, then the page.
      TIMEOUT + 150_000
    )
  })
})
