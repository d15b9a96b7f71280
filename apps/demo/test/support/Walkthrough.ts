/**
 * What a newcomer does in the demo, in a browser: sign in with the fake chat provider, open the
 * extreme place, watch it, and find its alert on the inbox page. For the demo's test and for
 * `pnpm screenshots`.
 */
import type { Page } from "playwright-core"
import * as Gazetteer from "../../src/Gazetteer.js"

export const signIn = async (page: Page, siteUrl: string): Promise<void> => {
  await page.goto(`${siteUrl}alerts`)
  await page.getByRole("link", { name: "Sign in with Chat" }).click()
  await page.getByRole("button", { name: "Sign out" }).waitFor({ timeout: 60_000 })
}

/** Opens the extreme place and watches it (or finds it watched already, from an earlier run). */
export const watchExtremePlace = async (page: Page, siteUrl: string): Promise<void> => {
  await page.goto(`${siteUrl}?lat=${Gazetteer.EXTREME.lat}&lon=${Gazetteer.EXTREME.lon}`)
  await page.locator(".grade-card").nth(2).waitFor({ timeout: 120_000 })
  const button = page.getByRole("button", { name: /^(Watch this place|Watching — change kinds)$/ })
  await button.waitFor({ timeout: 60_000 })
  const watch = page.getByRole("button", { name: "Watch this place" })
  if ((await watch.count()) > 0) await watch.click()
  await page.getByRole("button", { name: "Watching — change kinds" }).waitFor({ timeout: 60_000 })
}

/**
 * Waits on the inbox page (which reloads itself) until the heat alert for the extreme place's record
 * days is listed. Its other coming days follow the demo's made-up climate, so on some dates one of
 * them is much above normal too and brings an alert of its own, listed beside (seen: "… on Wed 2
 * December 2026: … (92nd percentile)", ahead of the record's).
 */
export const awaitAlert = async (page: Page, inboxUrl: string): Promise<string> => {
  await page.goto(inboxUrl)
  const alert = page.locator("li .content", { hasText: `Heat alert for ${Gazetteer.EXTREME.name}` }).filter({ hasText: "record high" }).first()
  await alert.waitFor({ timeout: 90_000 })
  return (await alert.textContent()) ?? ""
}
