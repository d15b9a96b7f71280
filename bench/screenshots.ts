/**
 * `pnpm screenshots`: PNGs of both pages at 375 px and 1280 px into docs/screenshots/ — the main
 * page with a place loaded and watched, its first screen alone on a 375×812 phone, its climate
 * context section alone, the account page signed in with that watch — from the built service in
 * Chromium; then, from `pnpm demo` itself (in a scratch directory), the demo's Sydney on a phone's
 * first screen, its inbox with the alert that watching its extreme place brings, and that place's
 * card (`card.png`).
 *
 * `pnpm screenshots languages` writes only the main page in other languages: Arabic and Japanese on a
 * 375×812 phone's first screen, German at 1280×800 (`main-ar-375.png`, `main-ja-375.png`,
 * `main-de-1280.png`).
 *
 * `pnpm screenshots card-ar` writes only the share card in Arabic with a heat wave coming
 * (`card-ar.png`), drawn by the card's renderer from a fixed grade: no server, no browser.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { CardPng } from "@climate-grade/card"
import type { Payloads } from "@climate-grade/core"
import { Demo } from "@climate-grade/demo"
import { awaitAlert, signIn, watchExtremePlace } from "@climate-grade/demo/test/Walkthrough"
import { freePort } from "@climate-grade/server/test/BuiltServer"
import { Chromium } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import { root, siteServer } from "./support/SiteServer.js"

const out = join(root, "docs", "screenshots")

const program = Effect.gen(function* () {
  const { browser, chat, url } = yield* siteServer
  mkdirSync(out, { recursive: true })
  chat.profile = { id: "screenshot-user", username: "ada", email: "ada@example.org", verified: true }
  for (const width of [375, 1280]) {
    const { context, page } = yield* Effect.promise(() => Chromium.openPage(browser, { width }))
    yield* Effect.promise(async () => {
      // Signed in first, so the main page shows "Watch this place" and the account page a watched place.
      await page.goto(url("/alerts"))
      await page.getByRole("link", { name: "Sign in with Chat" }).click()
      await page.getByRole("button", { name: "Sign out" }).waitFor({ timeout: 30_000 })
      await page.goto(url("/?lat=47.61&lon=-122.33"))
      await page.locator(".grade-card").nth(2).waitFor({ timeout: 60_000 })
      // A second width finds the place already watched.
      await page.getByRole("button", { name: /^(Watch this place|Watching — change kinds)$/ }).waitFor({ timeout: 30_000 })
      const watch = page.getByRole("button", { name: "Watch this place" })
      if ((await watch.count()) > 0) await watch.click()
      await page.getByRole("button", { name: "Watching — change kinds" }).waitFor({ timeout: 30_000 })
      // Charts and the map draw after the data; give them a moment to settle.
      await page.waitForTimeout(1_500)
      // The climate context comes last, after the grades: its stripes drawn, then the whole page, then it alone.
      // Every section drawn (each is drawn when it comes near the screen).
      await Chromium.drawWholePage(page)
      await page.locator("#trend .stripes-svg").waitFor({ timeout: 30_000 })
      await page.screenshot({ path: join(out, `main-${width}.png`), fullPage: true })
      // What a phone shows before any scrolling: the place and today's grades.
      if (width === 375) {
        await page.setViewportSize({ width: 375, height: 812 })
        await page.evaluate(() => window.scrollTo(0, 0))
        await page.screenshot({ path: join(out, "main-375-first.png") })
      }
      await page.locator("#trend").screenshot({ path: join(out, `trend-${width}.png`) })
      await page.goto(url("/alerts"))
      await page.getByRole("button", { name: /^Stop watching/ }).waitFor({ timeout: 30_000 })
      await page.waitForTimeout(300)
      await page.screenshot({ path: join(out, `account-${width}.png`), fullPage: true })
      await context.close()
    })
    console.log(`wrote docs/screenshots/main-${width}.png, trend-${width}.png and account-${width}.png`)
  }

  const scratch = mkdtempSync(join(tmpdir(), "screenshots-demo-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(scratch, { recursive: true, force: true })))
  const [port, inboxPort] = yield* Effect.promise(() => Promise.all([freePort(), freePort()]))
  const demo = yield* Demo.start({ dir: scratch, port, inboxPort })
  yield* Effect.promise(async () => {
    const phone = await Chromium.openPage(browser, { width: 375 })
    await phone.page.setViewportSize({ width: 375, height: 812 })
    await phone.page.goto(`${demo.siteUrl}?lat=-33.869&lon=151.209&name=Sydney%2C%20AU`)
    await phone.page.locator(".grade-card").nth(2).waitFor({ timeout: 60_000 })
    await phone.page.waitForTimeout(1_000)
    await phone.page.screenshot({ path: join(out, "demo-sydney-375.png") })
    await phone.context.close()
  })
  console.log("wrote docs/screenshots/demo-sydney-375.png")
  const { context, page } = yield* Effect.promise(() => Chromium.openPage(browser, { width: 1000 }))
  yield* Effect.promise(async () => {
    await signIn(page, demo.siteUrl)
    await watchExtremePlace(page, demo.siteUrl)
    await awaitAlert(page, demo.inboxUrl)
    await page.setViewportSize({ width: 1000, height: 480 })
    await page.screenshot({ path: join(out, "demo-inbox.png") })
    const card = await fetch(`${demo.siteUrl}api/v2/card.png?lat=52.52&lon=13.4`)
    if (card.status !== 200) throw new Error(`card.png answered ${card.status}`)
    writeFileSync(join(out, "card.png"), new Uint8Array(await card.arrayBuffer()))
    await context.close()
  })
  console.log("wrote docs/screenshots/demo-inbox.png and card.png")
})

const languages = Effect.gen(function* () {
  const { browser, url } = yield* siteServer
  mkdirSync(out, { recursive: true })
  for (const [lang, width, height] of [
    ["ar", 375, 812],
    ["ja", 375, 812],
    ["de", 1280, 800]
  ] as const) {
    const { context, page } = yield* Effect.promise(() => Chromium.openPage(browser, { width }))
    yield* Effect.promise(async () => {
      await page.setViewportSize({ width, height })
      await page.goto(url(`/?lat=47.61&lon=-122.33&lang=${lang}`))
      await page.locator(".grade-card").nth(2).waitFor({ timeout: 60_000 })
      // Charts and the map draw after the data; give them a moment to settle.
      await page.waitForTimeout(1_500)
      await page.evaluate(() => window.scrollTo(0, 0))
      await page.screenshot({ path: join(out, `main-${lang}-${width}.png`) })
      await context.close()
    })
    console.log(`wrote docs/screenshots/main-${lang}-${width}.png`)
  }
})

/** Cairo on a hot day with a heat wave coming, and a precipitation panel with too few days to grade. */
const cardAr = Effect.sync(() => {
  const grade: Payloads.GradePayload = {
    view: "grade",
    v: 1,
    cell: { lat: 30.0, lon: 31.25, label: "القاهرة, EG", timezone: "Africa/Cairo" },
    date: "2026-07-14",
    issued: "2026-07-14T00:00:00.000Z",
    variables: {
      tmax: { value: 43.6, unit: "°C", percentile: 100, label: "record-high", n: 430 },
      tmin: { value: 28.1, unit: "°C", percentile: 96.2, label: "much-above", n: 430 },
      precip: { value: 0, unit: "mm", percentile: null, label: null, n: 12 }
    }
  }
  const spell = {
    spell: { kind: "heat", start: "2026-07-16", end: "2026-07-21", severity: "extreme", rank_peak: 3, of: 187, forecast: true },
    since: 1940
  } as const
  mkdirSync(out, { recursive: true })
  writeFileSync(join(out, "card-ar.png"), CardPng.drawSync(grade, "metric", spell, "ar").png)
  console.log("wrote docs/screenshots/card-ar.png")
})

Effect.runPromise(
  Effect.scoped(process.argv.includes("card-ar") ? cardAr : process.argv.includes("languages") ? languages : program)
).catch((e) => {
  console.error(e)
  process.exit(1)
})
