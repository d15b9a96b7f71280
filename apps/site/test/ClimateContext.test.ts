/**
 * The main page's "This month, season and year" section in Chromium, on the real server with fake
 * upstreams, on PGlite and PostgreSQL: asked for only after the grades show, in its own chunk; each
 * period in words, as the rules rank it; the warming stripes drawn as one SVG with a slider whose
 * value is the year (keyboard and pointer), read back in words; units; axe finds nothing serious.
 */
import { expect, layer } from "@effect/vitest"
import { backends, Chromium } from "@climate-grade/testing"
import { TestServer } from "@climate-grade/server/test/TestServer"
import * as Effect from "effect/Effect"
import type { Page } from "playwright-core"
import type { TrendPayload } from "../src/payloads.js"
import { periodTexts, stripesOf, stripeWords } from "../src/trend.js"
import { siteWorld } from "./support/SiteWorld.js"

let counter = 0
/** A cell no other test here touches. */
const freshPlace = () => {
  counter++
  return { lat: (20 + counter * 1.75 + 0.1).toFixed(2), lon: (60 + counter * 2.5).toFixed(2) }
}

/** When the three grade cards first stood in the page (performance.now()), recorded by the page itself. */
const recordGradesShown = (page: Page) =>
  page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.querySelectorAll(".grade-card").length >= 3) {
        ;(window as unknown as { gradesShownAt: number }).gradesShownAt = performance.now()
        observer.disconnect()
      }
    }).observe(document, { childList: true, subtree: true })
  })

const plain = (text: string) => text.replaceAll("\u00a0", " ")

for (const backend of backends) {
  layer(siteWorld({}, { backend }), { timeout: 120_000 })(`the climate context on ${backend.name}`, (it) => {
    it.scoped("comes after the grades, states each period in words, and draws the stripes with a slider over the years", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const browser = yield* Chromium.Chromium
        const { lat, lon } = freshPlace()
        const { page, log } = yield* Chromium.scopedPage(browser, { width: 1280 })
        yield* Effect.promise(() => recordGradesShown(page))
        yield* Effect.promise(async () => {
          await page.goto(url(`/?lat=${lat}&lon=${lon}`))
          await page.locator(".grade-card").nth(2).waitFor({ timeout: 30_000 })
          // Drawn, and its data asked for, when it comes near the screen.
          await Chromium.drawWholePage(page)
          await page.locator(".stripes-svg").waitFor({ timeout: 30_000 })
        })
        // The section's request and its code start only once the grades are on screen.
        const timing = yield* Effect.promise(() =>
          page.evaluate(() => {
            const entries = performance.getEntriesByType("resource")
            const trend = entries.find((e) => e.name.includes("/api/v2/trend?"))
            return {
              grades: (window as unknown as { gradesShownAt?: number }).gradesShownAt ?? null,
              trend: trend?.startTime ?? null,
              trendUrl: trend?.name ?? null,
              scripts: entries.filter((e) => e.name.endsWith(".js")).map((e) => ({ name: e.name, start: e.startTime }))
            }
          })
        )
        expect(timing.grades).not.toBeNull()
        expect(timing.trend).not.toBeNull()
        expect(timing.trend!).toBeGreaterThanOrEqual(timing.grades!)
        // Its code is a chunk of its own, fetched after the grades too (the page's first scripts lack it).
        const scripts = yield* Effect.promise(() =>
          Promise.all(timing.scripts.map(async (s) => ({ ...s, text: await fetch(s.name).then((r) => r.text()) })))
        )
        // Told by a class name of its drawing: its words are in the language catalogs.
        const holding = scripts.filter((s) => s.text.includes("stripe-chosen-outer"))
        expect(holding).toHaveLength(1)
        expect(holding[0]!.start).toBeGreaterThanOrEqual(timing.grades!)
        // …and not the chunk of the other sections below the grades.
        expect(holding[0]!.text).not.toContain("Show another day")
        const trendUrl = new URL(timing.trendUrl!)
        expect(trendUrl.pathname).toBe("/api/v2/trend")
        const payload = (yield* Effect.promise(() => fetch(url(`/api/v2/trend${trendUrl.search}`)).then((r) => r.json()))) as TrendPayload

        // Each period in words: a heading with its days, then a sentence per variable, as the rules rank it.
        const expected = periodTexts(payload, "metric")
        const headings = yield* Effect.promise(() => page.locator(".trend-period h3").allTextContents())
        expect(headings).toEqual(expected.map((p) => p.title))
        expect(headings[0]).toMatch(/^\w+ (so far|\d{4}) \(\d+(–\d+)? \w{3}\)$/)
        const sentences = (yield* Effect.promise(() => page.locator(".trend-sentences li").allTextContents())).map(plain)
        expect(sentences).toEqual(expected.flatMap((p) => p.sentences.map((s) => plain(s.text))))
        // The fake's record is whole from 1980: every year up to this one is compared.
        const years = Number(payload.last.slice(0, 4)) - 1980 + 1
        expect(sentences[0]).toMatch(new RegExp(`^\\w+ (so far|\\d{4}) is .* of ${years} for daytime highs \\(mean high −?\\d+\\.\\d °C\\)`))
        expect(sentences[2]).toMatch(new RegExp(` of ${years} \\(total \\d+\\.\\d mm\\)`))

        // The stripes: one SVG, a path per colour (not an element per stripe), one stripe per complete year.
        const { reference, stripes } = stripesOf(payload)
        expect(stripes[0]!.year).toBe(1980)
        expect(yield* Effect.promise(() => page.locator(".stripes-svg").count())).toBe(1)
        const paths = yield* Effect.promise(() => page.locator(".stripes-svg path[fill^='#']").count())
        expect(paths).toBeGreaterThan(1)
        expect(paths).toBeLessThanOrEqual(12)
        expect(yield* Effect.promise(() => page.locator(".stripes-svg rect").count())).toBeLessThanOrEqual(3)

        // The keyboard: one slider over the years, on the last complete year to begin with.
        const slider = page.getByRole("slider", { name: "Year of the warming stripes" })
        const attribute = (name: string) => Effect.promise(() => slider.getAttribute(name))
        expect([yield* attribute("aria-valuemin"), yield* attribute("aria-valuemax"), yield* attribute("aria-valuenow")]).toEqual(
          ["1980", String(stripes.at(-1)!.year), String(stripes.at(-1)!.year)]
        )
        const readout = page.locator(".stripes-readout")
        /** Presses a key on the slider and waits until it names `year`, focus still on it; its value read back in words. */
        const press = (key: string, year: number) =>
          Effect.promise(async () => {
            await page.keyboard.press(key)
            await page.waitForFunction(
              (y) => document.activeElement?.getAttribute("role") === "slider" && document.activeElement.getAttribute("aria-valuenow") === String(y),
              year,
              { timeout: 10_000 }
            )
            const text = plain((await slider.getAttribute("aria-valuetext")) ?? "")
            expect(text).toBe(plain(stripeWords(stripes[year - 1980]!, reference, "metric")))
            expect(plain((await readout.textContent()) ?? "")).toBe(text)
            return text
          })
        yield* Effect.promise(() => slider.focus())
        const first = yield* press("Home", 1980)
        expect(first).toMatch(/^1980: mean −?\d+\.\d °C, (\d+\.\d °C (above|below)|the same as) the 1980–2009 average\.$/)
        yield* press("ArrowRight", 1981)
        yield* press("PageUp", 1991)
        yield* press("ArrowLeft", 1990)
        yield* press("End", stripes.at(-1)!.year)
        // Keys pressed faster than the page paints (a held arrow key) each move a year, focus kept.
        const burst = Effect.promise(async () => {
          for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowLeft")
          return page.evaluate(() => document.activeElement?.getAttribute("aria-valuenow") ?? document.activeElement?.tagName)
        })
        expect(yield* burst).toBe(String(stripes.at(-1)!.year - 3))

        // The pointer: over a stripe its year is read out; a click chooses it.
        const box = (yield* Effect.promise(() => page.locator(".stripes-area").boundingBox()))!
        const stripe = box.width / stripes.length
        yield* Effect.promise(() => page.mouse.move(box.x + stripe * 2.5, box.y + 20))
        yield* Effect.promise(() => page.locator(".stripes-readout", { hasText: /^1982: / }).waitFor({ timeout: 10_000 }))
        yield* Effect.promise(() => page.mouse.click(box.x + stripe * 5.5, box.y + 20))
        yield* Effect.promise(() =>
          page.waitForFunction(() => document.querySelector('[role="slider"]')?.getAttribute("aria-valuenow") === "1985", null, { timeout: 10_000 })
        )
        yield* Effect.promise(() => page.mouse.move(box.x + box.width / 2, box.y + box.height + 200))
        yield* Effect.promise(() => page.locator(".stripes-readout", { hasText: /^1985: / }).waitFor({ timeout: 10_000 }))

        expect(yield* Effect.promise(() => Chromium.axe(page))).toEqual([])
        expect(Chromium.cspViolations(log)).toEqual([])
        expect(log.errors).toEqual([])
      })
    )

    it.scoped("at 375 px nothing overflows, the words and stripes follow the units, and axe finds nothing serious", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const browser = yield* Chromium.Chromium
        const { lat, lon } = freshPlace()
        const { page, log } = yield* Chromium.scopedPage(browser, { width: 375 })
        yield* Effect.promise(async () => {
          await page.goto(url(`/?lat=${lat}&lon=${lon}&units=imperial`))
          await page.locator(".grade-card").nth(2).waitFor({ timeout: 30_000 })
          await Chromium.drawWholePage(page)
          await page.locator(".stripes-svg").waitFor({ timeout: 30_000 })
        })
        const sentences = (yield* Effect.promise(() => page.locator(".trend-sentences li").allTextContents())).map(plain)
        expect(sentences).toHaveLength(9)
        expect(sentences[0]).toMatch(/\(mean high −?\d+\.\d °F\)/)
        expect(sentences[2]).toMatch(/\(total \d+\.\d\d in\)/)
        expect(plain((yield* Effect.promise(() => page.locator(".stripes-readout").textContent())) ?? "")).toMatch(/mean −?\d+\.\d °F/)
        expect(yield* Effect.promise(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth))).toBeLessThanOrEqual(0)
        expect(yield* Effect.promise(() => Chromium.axe(page))).toEqual([])
        expect(log.errors).toEqual([])
      })
    )
  })
}
