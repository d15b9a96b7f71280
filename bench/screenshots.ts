/**
 * `pnpm screenshots`: PNGs of both pages at 375 px and 1280 px into docs/screenshots/ — the main
 * page with a place loaded and watched, the account page signed in with that watch — from the built
 * service in Chromium.
 */
import { mkdirSync } from "node:fs"
import { join } from "node:path"
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
      await page.screenshot({ path: join(out, `main-${width}.png`), fullPage: true })
      await page.goto(url("/alerts"))
      await page.getByRole("button", { name: /^Stop watching/ }).waitFor({ timeout: 30_000 })
      await page.waitForTimeout(300)
      await page.screenshot({ path: join(out, `account-${width}.png`), fullPage: true })
      await context.close()
    })
    console.log(`wrote docs/screenshots/main-${width}.png and account-${width}.png`)
  }
})

Effect.runPromise(Effect.scoped(program)).catch((e) => {
  console.error(e)
  process.exit(1)
})
