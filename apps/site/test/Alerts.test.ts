/**
 * The alerts UI in Chromium (docs/api.md "Alerts"), on the real server with fake upstreams and no chat bot
 * configured: a signed-in user watches the shown place from the main page with two of the three kinds,
 * finds it on the account page with those kinds in words, stops watching it by "Stop watching {label}"
 * and it is gone; both pages say delivery is not configured. A visitor is offered a sign-in link
 * instead; past the watch limit and with no kind chosen the page says why. Axe at 375 and 1280 px.
 */
import { describe, expect, layer } from "@effect/vitest"
import { backends, Chromium } from "@climate-grade/testing"
import { TestServer } from "@climate-grade/server/test/TestServer"
import * as Effect from "effect/Effect"
import type { Page } from "playwright-core"
import { passwordUser as passwordUserOf, signIn } from "./support/Accounts.js"
import { siteWorld } from "./support/SiteWorld.js"

const NOT_CONFIGURED = "Direct-message delivery is not configured on this server"
const SHOTS = process.env.ALERTS_SCREENSHOTS

/** The `return=` of an account page link ("alerts?return=…"): the place's path to come back to. */
const returnOf = (href: string | null) => {
  expect(href).toMatch(/^alerts\?return=/)
  return new URLSearchParams(href!.slice("alerts?".length)).get("return")
}

const noOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
const waitForGrades = (page: Page) => page.locator(".grade-card").nth(2).waitFor({ timeout: 20_000 })

const passwordUser = passwordUserOf("watcher").pipe(Effect.map((user) => user.email))

for (const backend of backends) {
  layer(siteWorld({}, { backend }), { timeout: 120_000 })(`the alerts UI on ${backend.name}`, (it) => {
    for (const [width, place] of [
      [375, { lat: "47.10", lon: "8.60" }],
      [1280, { lat: "45.10", lon: "5.60" }]
    ] as const) {
      describe(`at ${width} px`, () => {
        it.scoped("a user watches the place from the main page, sees it on the account page, and stops watching it", () =>
          Effect.gen(function* () {
            const { url } = yield* TestServer
            const browser = yield* Chromium.Chromium
            const email = yield* passwordUser
            const { page, log } = yield* Chromium.scopedPage(browser, { width })
            yield* Effect.promise(async () => {
              await signIn(page, url, email)
              // Nothing watched yet; no chat linked and no bot configured: both said in words.
              await page.getByText("You watch no place yet.").waitFor()
              await page.getByText(NOT_CONFIGURED).waitFor()
              // The last alerts come with a request of their own, which may answer after the watches.
              await page.getByText("No alert yet.").waitFor()
            })
            expect(yield* Effect.promise(() => page.getByText("Alerts are delivered by direct message on Chat").count())).toBe(1)
            expect(yield* Effect.promise(() => page.getByText("No alert yet.").count())).toBe(1)

            // The main page: all three kinds on at first; "cold" off; watch.
            yield* Effect.promise(async () => {
              await page.goto(url(`/?lat=${place.lat}&lon=${place.lon}`))
              await waitForGrades(page)
              await page.getByRole("button", { name: "Watch this place" }).waitFor()
              await page.getByText(NOT_CONFIGURED).waitFor()
            })
            for (const kind of ["heat", "cold", "wet"])
              expect(yield* Effect.promise(() => page.getByRole("checkbox", { name: kind }).isChecked())).toBe(true)
            expect(yield* Effect.promise(() => page.getByText(NOT_CONFIGURED).count())).toBe(1)
            expect(yield* Effect.promise(() => Chromium.axe(page))).toEqual([])
            yield* Effect.promise(async () => {
              // No kind at all: the page says so and sends nothing.
              for (const kind of ["heat", "cold", "wet"]) await page.getByRole("checkbox", { name: kind }).uncheck()
              await page.getByRole("button", { name: "Watch this place" }).click()
              await page.getByText("Choose at least one kind").waitFor()
              await page.getByRole("checkbox", { name: "heat" }).check()
              await page.getByRole("checkbox", { name: "wet" }).check()
              await page.getByRole("button", { name: "Watch this place" }).click()
              await page.getByRole("button", { name: "Watching — change kinds" }).waitFor()
            })
            expect(yield* Effect.promise(() => page.getByText("You now watch Testville, TL for heat and wet.").count())).toBe(1)
            // The account page's address carries the way back to this place, by the name shown.
            const watched = yield* Effect.promise(() => page.getByRole("link", { name: "Your watched places" }).getAttribute("href"))
            expect(returnOf(watched)).toBe(`/?lat=${Number(place.lat)}&lon=${Number(place.lon)}&name=Testville%2C+TL`)
            expect(yield* Effect.promise(() => noOverflow(page))).toBeLessThanOrEqual(0)
            expect(yield* Effect.promise(() => Chromium.axe(page))).toEqual([])
            if (SHOTS !== undefined) yield* Effect.promise(() => page.screenshot({ path: `${SHOTS}/main-${width}.png`, fullPage: false }))

            // A reload knows the place is watched, and never offers to watch it while it asks (the
            // watches answer held back half a second to make that moment visible); changing the
            // kinds keeps one watch.
            const offered = yield* Effect.promise(async () => {
              await page.addInitScript(() => {
                const seen = { offered: false }
                ;(window as unknown as { seen: typeof seen }).seen = seen
                new MutationObserver(() => {
                  for (const b of document.querySelectorAll("button")) if (b.textContent === "Watch this place") seen.offered = true
                }).observe(document, { childList: true, subtree: true, characterData: true })
              })
              await page.route("**/api/v2/alerts/watches", async (route) => {
                await new Promise((r) => setTimeout(r, 500))
                await route.continue()
              })
              await page.reload()
              await page.getByText("Checking your watched places…").waitFor()
              await page.getByRole("button", { name: "Watching — change kinds" }).waitFor()
              await page.unroute("**/api/v2/alerts/watches")
              return page.evaluate(() => (window as unknown as { seen: { offered: boolean } }).seen.offered)
            })
            expect(offered).toBe(false)
            yield* Effect.promise(async () => {
              await page.getByRole("button", { name: "Watching — change kinds" }).click()
              await page.getByRole("checkbox", { name: "cold" }).check()
              await page.getByRole("button", { name: "Save kinds" }).click()
              await page.getByText("Testville, TL is now watched for heat, cold and wet.").waitFor()
            })

            // The account page lists it with its kinds in words; "Stop watching {label}" removes it.
            yield* Effect.promise(async () => {
              await page.getByRole("link", { name: "Your watched places" }).click()
              await page.getByRole("button", { name: "Stop watching Testville, TL" }).waitFor({ timeout: 20_000 })
            })
            const items = yield* Effect.promise(() => page.locator(".watches li").allTextContents())
            expect(items).toEqual(["Testville, TL heat, cold and wetStop watching Testville, TL"])
            expect(yield* Effect.promise(() => page.getByText(NOT_CONFIGURED).count())).toBe(1)
            expect(yield* Effect.promise(() => noOverflow(page))).toBeLessThanOrEqual(0)
            expect(yield* Effect.promise(() => Chromium.axe(page))).toEqual([])
            if (SHOTS !== undefined) yield* Effect.promise(() => page.screenshot({ path: `${SHOTS}/account-${width}.png`, fullPage: true }))
            yield* Effect.promise(async () => {
              await page.getByRole("button", { name: "Stop watching Testville, TL" }).click()
              await page.getByText("Testville, TL is no longer watched.").waitFor()
              await page.getByText("You watch no place yet.").waitFor()
            })
            expect(yield* Effect.promise(() => page.getByRole("button", { name: /^Stop watching/ }).count())).toBe(0)
            // And the server agrees.
            const left = yield* Effect.promise(() => page.evaluate(() => fetch("api/v2/alerts/watches").then((r) => r.json())))
            expect(left).toEqual({ watches: [] })
            expect(Chromium.cspViolations(log)).toEqual([])
            // The one 401 is the visitor's users/me before signing in.
            expect(log.errors.filter((e) => !e.includes("401"))).toEqual([])
          })
        )
      })
    }

    it.scoped("a visitor is offered a sign-in link, not the button", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const browser = yield* Chromium.Chromium
        const { page } = yield* Chromium.scopedPage(browser)
        yield* Effect.promise(async () => {
          await page.goto(url("/?lat=47.10&lon=8.60"))
          await waitForGrades(page)
          await page.getByRole("link", { name: "Sign in to watch this place" }).waitFor()
        })
        const signIn = yield* Effect.promise(() => page.getByRole("link", { name: "Sign in to watch this place" }).getAttribute("href"))
        expect(returnOf(signIn)).toBe("/?lat=47.1&lon=8.6&name=Testville%2C+TL")
        expect(yield* Effect.promise(() => page.getByRole("button", { name: "Watch this place" }).count())).toBe(0)
        expect(yield* Effect.promise(() => page.getByText(NOT_CONFIGURED).count())).toBe(0)
      })
    )

    it.scoped("past the watch limit the main page shows the 409 in words", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const browser = yield* Chromium.Chromium
        const email = yield* passwordUser
        const { page } = yield* Chromium.scopedPage(browser)
        yield* Effect.promise(() => signIn(page, url, email))
        // Twenty watches elsewhere, through the API with the same session.
        const statuses = yield* Effect.promise(() =>
          page.evaluate(async () => {
            const out: Array<number> = []
            for (let i = 0; i < 20; i++) {
              const r = await fetch("api/v2/alerts/watches", {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ lat: -40 + i, lon: 100, kinds: ["heat"] })
              })
              out.push(r.status)
            }
            return out
          })
        )
        expect(statuses).toEqual(Array.from({ length: 20 }, () => 201))
        yield* Effect.promise(async () => {
          await page.goto(url("/?lat=47.10&lon=8.60"))
          await waitForGrades(page)
          await page.getByRole("button", { name: "Watch this place" }).click()
          await page.getByText("You already watch the most places allowed (20)").waitFor()
        })
        expect(yield* Effect.promise(() => page.getByRole("button", { name: "Watching — change kinds" }).count())).toBe(0)
      })
    )
  })

  // A bot configured (never called here: the user has no chat linked, so nothing is queued).
  layer(siteWorld({ CHAT_BOT_TOKEN: "test-bot-token", CHAT_API_URL: "http://127.0.0.1:9/api" }, { backend }), { timeout: 120_000 })(
    `the alerts UI with delivery configured, on ${backend.name}`,
    (it) => {
      it.scoped("neither page says delivery is not configured; a signed-out browser is offered the sign-in link again", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const browser = yield* Chromium.Chromium
          const email = yield* passwordUser
          const { page } = yield* Chromium.scopedPage(browser)
          yield* Effect.promise(async () => {
            await signIn(page, url, email)
            // "(at most 20)" comes from /alerts/config: once it shows, the page knows delivery is on.
            await page.getByText("(at most 20)").waitFor()
          })
          expect(yield* Effect.promise(() => page.getByText(NOT_CONFIGURED).count())).toBe(0)
          yield* Effect.promise(async () => {
            const config = page.waitForResponse((r) => r.url().endsWith("/api/v2/alerts/config"))
            await page.goto(url("/?lat=47.10&lon=8.60"))
            await config
            await page.getByRole("button", { name: "Watch this place" }).waitFor({ timeout: 20_000 })
          })
          expect(yield* Effect.promise(() => page.getByText(NOT_CONFIGURED).count())).toBe(0)
          yield* Effect.promise(async () => {
            await page.goto(url("/alerts"))
            await page.getByRole("button", { name: "Sign out" }).click()
            await page.getByText("You are signed out.").waitFor()
            await page.goto(url("/?lat=47.10&lon=8.60"))
            await page.getByRole("link", { name: "Sign in to watch this place" }).waitFor({ timeout: 20_000 })
          })
          expect(yield* Effect.promise(() => page.getByRole("button", { name: "Watch this place" }).count())).toBe(0)
        })
      )
    }
  )
}
