/**
 * Signing out leaves nothing personal in the browser (docs/api.md "Accounts and sign-in"), in
 * Chromium on the real server: a user signs in, visits a place by a name of their own, watches it,
 * and signs out; then no localStorage entry, no page kept by the service worker and (with the
 * logout answer's Clear-Site-Data) no IndexedDB database holds the place, and the next load of the
 * site installs the worker again. With Clear-Site-Data taken off the answer (a browser without it),
 * the site's own forgetting still leaves localStorage and the worker's pages without the place.
 */
import { describe, expect, layer } from "@effect/vitest"
import { backends, Chromium } from "@climate-grade/testing"
import { TestServer } from "@climate-grade/server/test/TestServer"
import * as Effect from "effect/Effect"
import type { Page } from "playwright-core"
import { passwordUser as passwordUserOf, signIn } from "./support/Accounts.js"
import { siteWorld } from "./support/SiteWorld.js"

/** The name the user picked the place by: theirs, not the cell's. */
const NAME = "Quillhaven Cottage"
const place = { lat: "46.20", lon: "7.30" }

const passwordUser = passwordUserOf("leaver").pipe(Effect.map((user) => user.email))

const waitForGrades = (page: Page) => page.locator(".grade-card").nth(2).waitFor({ timeout: 30_000 })

const controlled = (page: Page) =>
  page.waitForFunction(() => navigator.serviceWorker.controller?.state === "activated", null, { timeout: 30_000 })

/** What the origin holds in the browser: localStorage, every Cache Storage entry with its text, the IndexedDB databases. */
const held = (page: Page) =>
  page.evaluate(async () => {
    const local = Object.entries(localStorage)
    const cached: Array<{ url: string; text: string }> = []
    for (const name of await caches.keys()) {
      const cache = await caches.open(name)
      for (const request of await cache.keys()) {
        const response = await cache.match(request)
        // Pages are text; the assets' text is never personal but is read all the same.
        cached.push({ url: request.url, text: response === undefined ? "" : await response.text() })
      }
    }
    const databases = (await indexedDB.databases()).map((d) => d.name ?? "")
    return { local, cached, databases }
  })

const mentions = (text: string) => text.includes(NAME) || text.includes(encodeURIComponent(NAME)) || text.includes("Quillhaven")

for (const backend of backends) {
  layer(siteWorld({}, { backend }), { timeout: 180_000 })(`signing out on ${backend.name}`, (it) => {
    for (const header of [true, false]) {
      describe(header ? "with Clear-Site-Data" : "without Clear-Site-Data (taken off the answer)", () => {
        it.scoped("the place's name, the recent places and the kept pages are gone; the worker installs again", () =>
          Effect.gen(function* () {
            const { url } = yield* TestServer
            const browser = yield* Chromium.Chromium
            const email = yield* passwordUser
            const { page } = yield* Chromium.scopedPage(browser)
            if (!header) {
              yield* Effect.promise(() =>
                page.route("**/api/v2/auth/logout", async (route) => {
                  const response = await route.fetch()
                  const headers = { ...response.headers() }
                  delete headers["clear-site-data"]
                  await route.fulfill({ response, headers })
                })
              )
            }
            const address = url(`/?lat=${place.lat}&lon=${place.lon}&name=${encodeURIComponent(NAME)}`)
            yield* Effect.promise(async () => {
              await signIn(page, url, email)
              await page.goto(address)
              await waitForGrades(page)
              await controlled(page)
              // Loaded again under the worker: it keeps this page, the place's own.
              await page.reload()
              await waitForGrades(page)
              await page.getByRole("button", { name: "Watch this place" }).click()
              await page.getByRole("button", { name: "Watching — change kinds" }).waitFor({ timeout: 20_000 })
            })
            const before = yield* Effect.promise(() => held(page))
            // Held before: the recent places and the watched place's name, and the worker's copy of the page.
            expect(before.local.filter(([, value]) => mentions(value)).map(([key]) => key).sort()).toEqual([
              "climate-grade:names",
              "climate-grade:recent"
            ])
            expect(before.cached.some((c) => mentions(c.text))).toBe(true)

            yield* Effect.promise(async () => {
              await page.goto(url("/alerts"))
              await page.getByRole("button", { name: "Sign out" }).click()
              await page.getByText("You are signed out.").waitFor()
            })
            const after = yield* Effect.promise(() => held(page))
            expect(after.local.filter(([, value]) => mentions(value))).toEqual([])
            expect(after.local.map(([key]) => key)).not.toContain("climate-grade:recent")
            expect(after.local.map(([key]) => key)).not.toContain("climate-grade:names")
            expect(after.cached.filter((c) => mentions(c.text)).map((c) => c.url)).toEqual([])
            // The header also drops the worker's caches and the client library's data altogether.
            if (header) {
              expect(after.cached).toEqual([])
              expect(after.databases).toEqual([])
            }

            // The next load installs the worker again and keeps the build's files.
            yield* Effect.promise(async () => {
              await page.goto(url(`/?lat=${place.lat}&lon=${place.lon}`))
              await waitForGrades(page)
              await controlled(page)
            })
            const again = yield* Effect.promise(() => held(page))
            expect(again.cached.some((c) => /\/assets\/[^/]+\.js$/.test(c.url))).toBe(true)
            expect(again.local.filter(([, value]) => mentions(value))).toEqual([])
          }),
          120_000
        )
      })
    }
  })
}
