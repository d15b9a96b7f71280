/**
 * Heat waves and cold spells on the main page in Chromium, on the real server with fake upstreams:
 * a place whose forecast turns hot for five days says so at the top, in words with its severity and
 * standing, once the grades show (its code and `/spells` asked for after them); the "Spells" section
 * shows the timeline, each kind's top 10 (chosen with the keyboard) and the days per year; a calm
 * place says nothing at the top; axe finds nothing serious at 1280 and 375 px, and nothing overflows.
 *
 * With SPELLS_SCREENSHOTS=1 it also writes docs/screenshots/spells-375.png and spells-1280.png.
 */
import { join } from "node:path"
import { expect, layer } from "@effect/vitest"
import { Cell, CivilDate } from "@climate-grade/core"
import { Chromium } from "@climate-grade/testing"
import { TestServer } from "@climate-grade/server/test/TestServer"
import * as Effect from "effect/Effect"
import type { Page } from "playwright-core"
import { siteWorld, Upstreams } from "./support/SiteWorld.js"

const hot = new Set<string>()
let counter = 0
/** A cell no other test here touches; `heat` makes its forecast hot from tomorrow to today + 5. */
const freshPlace = (heat: boolean) => {
  counter++
  const place = { lat: (-20 + counter * 1.75 + 0.1).toFixed(2), lon: (100 + counter * 2.5).toFixed(2) }
  if (heat) hot.add(Cell.fromCoordinates(Number(place.lat), Number(place.lon)).key)
  return place
}

const recordGradesShown = (page: Page) =>
  page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.querySelectorAll(".grade-card").length >= 3) {
        ;(window as unknown as { gradesShownAt: number }).gradesShownAt = performance.now()
        observer.disconnect()
      }
    }).observe(document, { childList: true, subtree: true })
  })

const NOTICE =
  /^A(n extreme| severe) heat wave (from|since) (today|tomorrow|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|yesterday): it would be the hottest here since 1980 if the forecast holds\.$/

layer(siteWorld({}), { timeout: 180_000 })("spells on the main page", (it) => {
  it.scoped("a coming heat wave: the notice at the top after the grades, the section's timeline, top tens and chart; keyboard and axe", () =>
    Effect.gen(function* () {
      const { url } = yield* TestServer
      const { weather } = yield* Upstreams
      const today = CivilDate.todayIn(Date.now(), "Europe/Berlin")
      weather.forecastOverride = (lat, lon, day) =>
        hot.has(Cell.fromCoordinates(lat, lon).key) && day >= today + 1 && day <= today + 5 ? { tmax: 40, tmin: 28 } : undefined
      const browser = yield* Chromium.Chromium
      const { lat, lon } = freshPlace(true)
      for (const width of [1280, 375]) {
        const { page } = yield* Chromium.scopedPage(browser, { width })
        yield* Effect.promise(() => recordGradesShown(page))
        yield* Effect.promise(async () => {
          await page.goto(url(`/?lat=${lat}&lon=${lon}`))
          await page.locator(".spell-notice").waitFor({ timeout: 60_000 })
          // The section is drawn when it comes near the screen.
          await Chromium.drawWholePage(page)
          await page.locator("#spells .spell-top").waitFor({ timeout: 30_000 })
        })
        const notice = (yield* Effect.promise(() => page.locator(".spell-notice strong").textContent())) ?? ""
        expect(notice).toMatch(NOTICE)
        // At the top: before today's grades.
        const order = yield* Effect.promise(() =>
          page.evaluate(() => {
            const n = document.querySelector(".spell-notice")!
            const grades = document.querySelector("#today")!
            return n.compareDocumentPosition(grades) & Node.DOCUMENT_POSITION_FOLLOWING
          })
        )
        expect(order).toBeTruthy()
        // `/spells` and the notice's code come after the grades show.
        const timing = yield* Effect.promise(() =>
          page.evaluate(() => ({
            grades: (window as unknown as { gradesShownAt?: number }).gradesShownAt ?? null,
            spells: performance.getEntriesByType("resource").find((e) => e.name.includes("/api/v2/spells?"))?.startTime ?? null
          }))
        )
        expect(timing.grades).not.toBeNull()
        expect(timing.spells).not.toBeNull()
        expect(timing.spells!).toBeGreaterThanOrEqual(timing.grades!)

        // The section: a timeline with the coming heat wave, the heat waves' top 10 with it first, the chart.
        expect(yield* Effect.promise(() => page.locator("#spells .spell-timeline svg path[fill='#b2182b']").count())).toBe(1)
        const caption = yield* Effect.promise(() => page.locator("#spells .spell-top caption").textContent())
        expect(caption).toMatch(/^Heat waves: the \d+ most extreme here since 1980$/)
        const first = yield* Effect.promise(() => page.locator("#spells .spell-top tbody tr").first().textContent())
        expect(first).toMatch(/^1.*\(forecast\)/)
        const chart = yield* Effect.promise(() => page.getByRole("img", { name: /^Heat-wave days \(up\) and cold-spell days \(down\) per year, 1980 to \d{4}/ }).count())
        expect(chart).toBe(1)
        // The list behind the timeline names the wave in words.
        const items = yield* Effect.promise(async () => {
          await page.locator("#spells .spell-list summary").click()
          await page.locator("#spells .spell-list li").first().waitFor()
          return page.locator("#spells .spell-list li").allTextContents()
        })
        expect(items.some((t) => /^(severe|extreme) heat wave, .*: the hottest of \d+, partly forecast$/.test(t))).toBe(true)

        // The keyboard: the kinds are radios; an arrow key moves to cold spells and the table follows.
        yield* Effect.promise(async () => {
          await page.getByRole("radio", { name: "Heat waves" }).focus()
          await page.keyboard.press("ArrowRight")
        })
        expect(yield* Effect.promise(() => page.getByRole("radio", { name: "Cold spells" }).isChecked())).toBe(true)
        const coldCaption = (yield* Effect.promise(() => page.locator("#spells .spell-top caption, #spells p.muted").allTextContents())).join(" ")
        expect(coldCaption).toMatch(/Cold spells: the \d+ most extreme here since 1980|No cold spells in the record here/)

        const overflow = yield* Effect.promise(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth))
        expect(overflow).toBeLessThanOrEqual(0)
        expect(yield* Effect.promise(() => Chromium.axe(page))).toEqual([])
        if (process.env.SPELLS_SCREENSHOTS === "1") {
          yield* Effect.promise(async () => {
            await page.getByRole("radio", { name: "Heat waves" }).check()
            await page.waitForTimeout(500)
            await page.screenshot({ path: join(import.meta.dirname, "..", "..", "..", "docs", "screenshots", `spells-${width}.png`), fullPage: true })
          })
        }
      }
    }),
    // Two page loads, each scrolled through and checked by axe: past the default 30 s on a loaded machine.
    90_000)

  it.scoped(
    "in German: the notice, the spells section and the climate context say no English sentence",
    () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const { weather } = yield* Upstreams
        const today = CivilDate.todayIn(Date.now(), "Europe/Berlin")
        weather.forecastOverride = (lat, lon, day) =>
          hot.has(Cell.fromCoordinates(lat, lon).key) && day >= today + 1 && day <= today + 5 ? { tmax: 40, tmin: 28 } : undefined
        const browser = yield* Chromium.Chromium
        const { lat, lon } = freshPlace(true)
        const { page } = yield* Chromium.scopedPage(browser, { width: 1280 })
        const shown = yield* Effect.promise(async () => {
          await page.goto(url(`/?lat=${lat}&lon=${lon}&lang=de`))
          await page.locator(".spell-notice").waitFor({ timeout: 60_000 })
          // The sections are drawn when they come near the screen.
          await Chromium.drawWholePage(page)
          await page.locator("#spells .spell-top").waitFor({ timeout: 30_000 })
          await page.locator("#trend .trend-sentences li").first().waitFor({ timeout: 30_000 })
          await page.locator("#spells .spell-list summary").click()
          await page.locator("#spells .spell-list li").first().waitFor()
          return {
            notice: (await page.locator(".spell-notice strong").textContent()) ?? "",
            spells: await page.locator("#spells").innerText(),
            trend: await page.locator("#trend").innerText()
          }
        })
        expect(shown.notice).toMatch(
          /^Eine (starke|extreme) Hitzewelle (ab|seit) .+\. Sie wäre die heißeste Hitzewelle hier seit 1980, wenn die Vorhersage eintrifft\.$/
        )
        expect(shown.spells).toMatch(/Hitzewellen: die \d+ extremsten hier seit 1980/)
        expect(shown.spells).toMatch(/(starke|extreme) Hitzewelle, .*: die heißeste von \d+, teils Vorhersage/)
        expect(shown.trend).toMatch(/bisher/)
        // English the sections said before they were translated; none may be left.
        const english = [
          "heat wave",
          "cold spell",
          "most extreme",
          "so far",
          "warmest",
          "coolest",
          "coldest",
          "wettest",
          "driest",
          "the record",
          "forecast",
          "Loading",
          "per year",
          "Rank",
          "Severity",
          "peak",
          "mean high",
          "average",
          "today"
        ]
        for (const text of [shown.notice, shown.spells, shown.trend]) {
          for (const phrase of english) expect(text, phrase).not.toContain(phrase)
        }
      }),
    120_000
  )

  it.scoped("a calm place says nothing at the top, and its section still loads", () =>
    Effect.gen(function* () {
      const { url } = yield* TestServer
      const browser = yield* Chromium.Chromium
      const { lat, lon } = freshPlace(false)
      const { page } = yield* Chromium.scopedPage(browser, { width: 1280 })
      yield* Effect.promise(async () => {
        await page.goto(url(`/?lat=${lat}&lon=${lon}`))
        await page.locator(".grade-card").nth(2).waitFor({ timeout: 60_000 })
        await Chromium.drawWholePage(page)
        await page.locator("#spells .spell-top, #spells p.muted").first().waitFor({ timeout: 60_000 })
        await page.locator("#spells .spell-timeline").waitFor({ timeout: 30_000 })
      })
      expect(yield* Effect.promise(() => page.locator(".spell-notice").count())).toBe(0)
    }),
    // A page load scrolled through to its last section: more than vitest's 30 s on a loaded machine.
    90_000
  )
})
