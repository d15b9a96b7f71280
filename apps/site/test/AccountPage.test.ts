/**
 * The account page in Chromium: a visitor sees the outcome of a redirect in words, the provider
 * buttons and the operator form; a password user signs in there and sees the account; both states
 * are checked with axe and at 375 px and 1280 px. (The provider flows themselves, every status and
 * BASE_PATH are tested by the serving side's page tests.)
 */
import { describe, expect, layer } from "@effect/vitest"
import { Users } from "@climate-grade/core"
import { backends, Chromium } from "@climate-grade/testing"
import { TestServer } from "@climate-grade/server/test/TestServer"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Page } from "playwright-core"
import { passwordUser, submitPassword } from "./support/Accounts.js"
import { siteWorld } from "./support/SiteWorld.js"

// Providers are enabled by their settings alone; these addresses are never called here.
const providers = {
  CHAT_CLIENT_ID: "chat-client",
  CHAT_CLIENT_SECRET: "chat-secret",
  CHAT_AUTHORIZE_URL: "http://127.0.0.1:9/authorize",
  CHAT_TOKEN_URL: "http://127.0.0.1:9/token",
  CHAT_USERINFO_URL: "http://127.0.0.1:9/userinfo",
  CHAT_LABEL: "Discord",
  IDP_CLIENT_ID: "idp-client",
  IDP_CLIENT_SECRET: "idp-secret",
  IDP_AUTHORIZE_URL: "http://127.0.0.1:9/authorize",
  IDP_TOKEN_URL: "http://127.0.0.1:9/token",
  IDP_USERINFO_URL: "http://127.0.0.1:9/userinfo",
  IDP_LABEL: "Google"
}

const noOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

for (const backend of backends) {
  layer(siteWorld(providers, { backend }), { timeout: 120_000 })(`the account page on ${backend.name}`, (it) => {
    for (const width of [375, 1280]) {
      describe(`at ${width} px`, () => {
        it.scoped("a visitor back from a provider reads the outcome, and can sign in; axe finds nothing serious", () =>
          Effect.gen(function* () {
            const { url } = yield* TestServer
            const browser = yield* Chromium.Chromium
            const { page, log } = yield* Chromium.scopedPage(browser, { width })
            yield* Effect.promise(async () => {
              await page.goto(url("/alerts?oauth=taken&provider=idp"))
              await page.getByRole("link", { name: "Sign in with Google" }).waitFor({ timeout: 20_000 })
            })
            expect(yield* Effect.promise(() => page.getByRole("alert").first().textContent())).toBe(
              "That Google identity belongs to another account here, so it was not linked to this one. Sign in with it to use that account."
            )
            expect(yield* Effect.promise(() => page.getByRole("link", { name: "Sign in with Discord" }).getAttribute("href"))).toBe(
              url("/api/v2/oauth/chat/login/start")
            )
            // The password login comes second, set apart from the providers' buttons, and says whom it is for.
            const button = yield* Effect.promise(() => page.getByRole("link", { name: "Sign in with Google" }).boundingBox())
            const heading = yield* Effect.promise(() => page.getByRole("heading", { name: "Or with a password" }).boundingBox())
            expect(heading!.y - (button!.y + button!.height)).toBeGreaterThanOrEqual(16)
            expect(yield* Effect.promise(() => page.getByText("Operator account").count())).toBe(0)
            expect(yield* Effect.promise(() => page.getByText(/not set up/).count())).toBe(0)
            expect(yield* Effect.promise(() => noOverflow(page))).toBeLessThanOrEqual(0)
            expect(yield* Effect.promise(() => Chromium.axe(page))).toEqual([])
            expect(Chromium.cspViolations(log)).toEqual([])
            // A click on the link starts with the page's language and the units the site shows (the
            // account keeps both for its direct messages); the link's own address stays the plain route.
            const started = yield* Effect.promise(async () => {
              const seen: Array<string> = []
              await page.route("**/oauth/chat/login/start*", (route) => {
                seen.push(route.request().url())
                return route.fulfill({ status: 204 })
              })
              await page.evaluate(() => localStorage.setItem("climate-grade:units", "imperial"))
              await page.getByRole("link", { name: "Sign in with Discord" }).click()
              for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 50))
              return seen
            })
            expect(started).toEqual([url("/api/v2/oauth/chat/login/start?lang=en&units=imperial")])
          })
        )

        it.scoped("a password user signs in with the form, sees the account, and signs out", () =>
          Effect.gen(function* () {
            const { url } = yield* TestServer
            const browser = yield* Chromium.Chromium
            const { email } = yield* passwordUser(`operator-${width}-`, { superuser: true })
            const { page } = yield* Chromium.scopedPage(browser, { width })
            yield* Effect.promise(async () => {
              await page.goto(url("/alerts"))
              await submitPassword(page, email, "wrong")
              await page.getByText("That e-mail and password do not match").waitFor()
              await submitPassword(page, email)
              await page.getByRole("button", { name: "Sign out" }).waitFor()
            })
            expect(yield* Effect.promise(() => page.getByText(`You are signed in as ${email}.`).count())).toBe(1)
            // Neither provider is linked: each can be linked, none unlinked; no DM switch without chat.
            expect(yield* Effect.promise(() => page.getByRole("link", { name: "Link Discord" }).getAttribute("href"))).toBe(
              url("/api/v2/oauth/chat/link/start")
            )
            expect(yield* Effect.promise(() => page.getByRole("link", { name: "Link Google" }).count())).toBe(1)
            expect(yield* Effect.promise(() => page.getByRole("button", { name: /^Unlink/ }).count())).toBe(0)
            expect(yield* Effect.promise(() => page.getByRole("switch", { name: "Direct messages" }).count())).toBe(0)
            expect(yield* Effect.promise(() => noOverflow(page))).toBeLessThanOrEqual(0)
            expect(yield* Effect.promise(() => Chromium.axe(page))).toEqual([])
            // The session survives a reload; signing out ends it.
            yield* Effect.promise(async () => {
              await page.reload()
              await page.getByRole("button", { name: "Sign out" }).click()
              await page.getByText("You are signed out.").waitFor()
              await page.reload()
              await page.getByRole("button", { name: "Sign in with e-mail" }).waitFor()
            })
          })
        )

        it.scoped("a user downloads their data, and deletes the account after confirming in a dialog; axe finds nothing serious", () =>
          Effect.gen(function* () {
            const { url } = yield* TestServer
            const browser = yield* Chromium.Chromium
            const created = yield* passwordUser(`leaving-${width}-`)
            const { email } = created
            const { page } = yield* Chromium.scopedPage(browser, { width })
            const file = yield* Effect.promise(async () => {
              await page.goto(url("/alerts"))
              await submitPassword(page, email)
              const download = page.waitForEvent("download")
              await page.getByRole("link", { name: "Download your data" }).click()
              const done = await download
              const { readFile } = await import("node:fs/promises")
              return { name: done.suggestedFilename(), text: await readFile((await done.path())!, "utf8") }
            })
            expect(file.name).toBe("climate-grade-account.json")
            expect(JSON.parse(file.text).account).toMatchObject({ id: created.id, email })
            expect(file.text).not.toContain(created.hashedPassword)

            // The dialog opens on Cancel, and Escape or Cancel leaves everything as it was.
            const dialog = page.getByRole("dialog", { name: "Delete this account?" })
            yield* Effect.promise(async () => {
              await page.getByRole("button", { name: "Delete account…" }).click()
              await dialog.waitFor()
            })
            expect(yield* Effect.promise(() => page.evaluate(() => document.activeElement?.textContent))).toBe("Cancel")
            expect(yield* Effect.promise(() => dialog.getByText(email).count())).toBe(1)
            expect(yield* Effect.promise(() => noOverflow(page))).toBeLessThanOrEqual(0)
            expect(yield* Effect.promise(() => Chromium.axe(page))).toEqual([])
            yield* Effect.promise(async () => {
              await page.keyboard.press("Escape")
              await dialog.waitFor({ state: "hidden" })
            })
            expect(Option.isSome(yield* (yield* Users).findById(created.id))).toBe(true)

            yield* Effect.promise(async () => {
              await page.getByRole("button", { name: "Delete account…" }).click()
              await dialog.getByRole("button", { name: "Delete my account" }).click()
              await page.getByText("Your account is deleted, with everything of it. You are signed out.").waitFor()
              await page.getByRole("button", { name: "Sign in with e-mail" }).waitFor()
            })
            expect(Option.isNone(yield* (yield* Users).findById(created.id))).toBe(true)
            yield* Effect.promise(async () => {
              await page.reload()
              await page.getByRole("button", { name: "Sign in with e-mail" }).waitFor()
            })
          })
        )
      })
    }
  })
}
