/**
 * The account page in Chromium on the real server, with the fake `chat` provider and panva's
 * oidc-provider as `idp` (docs/api.md "Accounts and sign-in"): sign in with each provider, link, unlink
 * (the last way in refused and explained), the "Direct messages" switch, "Sign out"; a distinct message
 * for every `oauth` status; and both pages under BASE_PATH=/climate.
 */
import { describe, expect, layer } from "@effect/vitest"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { type Backend, backends, Chromium, FakeChatProvider, FakeEnv, FakeNominatim, FakeOpenMeteo, OidcIdp } from "@climate-grade/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Page } from "playwright-core"
import { buildSite } from "./support/SiteWorld.js"

class Providers extends Context.Tag("account-test/Providers")<
  Providers,
  { readonly chat: FakeChatProvider.FakeChatProvider; readonly idp: OidcIdp.OidcIdp; readonly basePath: string }
>() {}

const world = (basePath: string, backend: Backend) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const chat = yield* FakeChatProvider.make()
      const idp = yield* OidcIdp.make
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      const env = {
        BASE_PATH: basePath,
        ...FakeEnv.provider("CHAT", chat),
        CHAT_LABEL: "ChatApp",
        ...FakeEnv.provider("IDP", idp),
        IDP_LABEL: "Example ID",
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: "1980-01-01"
      }
      const siteDirectory = yield* buildSite()
      return Layer.mergeAll(
        testServerLayer(env, backend.layer, { siteDirectory }),
        Layer.succeed(Providers, { chat, idp, basePath }),
        Chromium.layer
      )
    })
  )

const opened = Effect.flatMap(Chromium.Chromium, (browser) => Chromium.scopedPage(browser))

const run = <A>(f: () => Promise<A>) => Effect.promise(f)

/** Signs in (or consents) at oidc-provider's development pages, which the browser has reached. */
const approveAtIdp = async (page: Page, subject: string) => {
  await page.locator('input[name="login"]').fill(subject)
  await page.locator('input[name="password"]').fill("x")
  await page.locator('button[type="submit"]').click()
  await page.locator('button[type="submit"]').click()
}

const visible = (page: Page) => page.locator(".status-message").first().isVisible()

const statusText = (page: Page) => page.locator(".status-message").first().textContent()

for (const backend of backends) {
  layer(world("", backend), { timeout: 180_000 })(`the account page on ${backend.name}`, (it) => {
    it.scoped("sign in with chat, link idp, toggle direct messages, unlink, the last way in explained, sign out, sign in with idp", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const { chat, idp } = yield* Providers
        idp.attach(url("/api/v2/oauth/idp/callback"))
        idp.accounts.set("idp-subject-1", { email: "someone@example.org", email_verified: true })
        chat.profile = { id: "chat-user-1", username: "someone", email: "someone@example.org", verified: true }
        const { log, page } = yield* opened

        // A visitor: one sign-in per enabled provider.
        yield* run(() => page.goto(url("/alerts")))
        yield* run(() => page.getByRole("link", { name: "Sign in with ChatApp" }).waitFor())
        expect(yield* run(() => page.getByRole("link", { name: "Sign in with Example ID" }).count())).toBe(1)

        // Sign in with chat: a new account, signed in, with chat's direct messages on.
        yield* run(async () => {
          await page.getByRole("link", { name: "Sign in with ChatApp" }).click()
          await page.waitForURL(/\/alerts\?oauth=created&provider=chat/)
          await page.getByRole("button", { name: "Sign out" }).waitFor()
        })
        expect(yield* run(() => statusText(page))).toMatch(/new account was created with your ChatApp identity/)
        expect(yield* run(() => page.getByText("someone@example.org").count())).toBeGreaterThan(0)
        expect(yield* run(() => page.getByRole("button", { name: "Unlink ChatApp" }).count())).toBe(1)
        const dm = page.getByRole("switch", { name: "Direct messages" })
        expect(yield* run(() => dm.isChecked())).toBe(true)

        // The switch: off, and still off after a reload (the server's setting, not the page's).
        yield* run(async () => {
          await dm.click()
          await page.waitForFunction(() => {
            const el = document.querySelector<HTMLInputElement>('input[role="switch"]')
            return el !== null && !el.checked && !el.disabled
          })
          await page.reload()
          await dm.waitFor()
        })
        expect(yield* run(() => dm.isChecked())).toBe(false)

        // Link idp through oidc-provider's login and consent pages.
        yield* run(async () => {
          await page.getByRole("link", { name: "Link Example ID" }).click()
          await approveAtIdp(page, "idp-subject-1")
          await page.waitForURL(/\/alerts\?oauth=linked&provider=idp/)
          await page.getByRole("button", { name: "Unlink Example ID" }).waitFor()
        })
        expect(yield* run(() => statusText(page))).toMatch(/Example ID account is linked/)

        // Unlink chat: its link comes back, and the switch goes (it needs chat).
        yield* run(async () => {
          await page.getByRole("button", { name: "Unlink ChatApp" }).click()
          await page.getByRole("link", { name: "Link ChatApp" }).waitFor()
        })
        expect(yield* run(() => dm.count())).toBe(0)

        // The last way into a provider-only account cannot be unlinked, and the page says why.
        yield* run(async () => {
          await page.getByRole("button", { name: "Unlink Example ID" }).click()
          await page.getByText(/cannot be unlinked: it is the only way into this account/).waitFor()
        })
        expect(yield* run(() => page.getByRole("button", { name: "Unlink Example ID" }).count())).toBe(1)

        // Sign out, then back in with idp.
        yield* run(async () => {
          await page.getByRole("button", { name: "Sign out" }).click()
          await page.getByRole("link", { name: "Sign in with Example ID" }).waitFor()
        })
        const me = yield* run(() => page.request.get(url("/api/v2/users/me")))
        expect(me.status()).toBe(401)
        yield* run(async () => {
          await page.getByRole("link", { name: "Sign in with Example ID" }).click()
          // oidc-provider remembers the login; it may ask for consent only, or nothing.
          await page.waitForURL((u) => u.pathname === "/alerts" || u.pathname.startsWith("/interaction/"))
          if (new URL(page.url()).pathname.startsWith("/interaction/")) {
            if ((await page.locator('input[name="login"]').count()) > 0) await approveAtIdp(page, "idp-subject-1")
            else await page.locator('button[type="submit"]').click()
          }
          await page.waitForURL(/\/alerts\?oauth=signedin&provider=idp/)
          await page.getByRole("button", { name: "Sign out" }).waitFor()
        })
        expect(yield* run(() => statusText(page))).toMatch(/signed in with Example ID/)
        expect(Chromium.cspViolations(log)).toEqual([])
      }))

    it.scoped("every oauth status has its own message in words, the legacy chat= one too", () =>
      Effect.gen(function* () {
        const { url } = yield* TestServer
        const { page } = yield* opened
        const statuses = [
          "unavailable",
          "cancelled",
          "error",
          "linked",
          "taken",
          "already",
          "noemail",
          "unverified",
          "inactive",
          "mismatch",
          "created",
          "signedin"
        ]
        const messages = new Map<string, string>()
        for (const status of statuses) {
          const text = yield* run(async () => {
            await page.goto(url(`/alerts?oauth=${status}&provider=idp`))
            await page.locator(".status-message").first().waitFor()
            return (await statusText(page)) ?? ""
          })
          expect(text.length, status).toBeGreaterThan(20)
          expect(yield* run(() => visible(page)), status).toBe(true)
          messages.set(status, text)
        }
        expect(new Set(messages.values()).size).toBe(statuses.length)
        expect(messages.get("taken")).toMatch(/belongs to another account/)
        // The provider's name comes with the page's own request for the providers: held back,
        // the message waits for it rather than showing a provider's name that then changes.
        const legacy = yield* run(async () => {
          await page.route("**/api/v2/oauth/config", async (route) => {
            await new Promise((done) => setTimeout(done, 500))
            await route.continue()
          })
          await page.goto(url("/alerts?chat=linked"))
          await page.locator(".status-message").first().waitFor()
          const text = await statusText(page)
          await page.unroute("**/api/v2/oauth/config")
          return text
        })
        expect(legacy).toMatch(/ChatApp account is linked/)
      }))
  })

  describe(`under BASE_PATH, on ${backend.name}`, () => {
    layer(world("/climate", backend), { timeout: 180_000 })("both pages", (it) => {
      it.scoped("load with their assets under /climate/, and sign-in starts under /climate/api/v2", () =>
        Effect.gen(function* () {
          const { url } = yield* TestServer
          const { chat } = yield* Providers
          chat.profile = { id: "chat-user-base", username: "base", email: "base@example.org", verified: true }
          const { log, page } = yield* opened
          const failed: Array<string> = []
          page.on("response", (r) => {
            // A visitor's /users/me is a 401 by design; anything else failing is a broken path.
            if (r.status() >= 400 && !r.url().endsWith("/api/v2/users/me")) failed.push(`${r.status()} ${r.url()}`)
          })
          yield* run(async () => {
            await page.goto(url("/climate/?lat=10.1&lon=20.2"))
            await page.locator(".grade-card").nth(2).waitFor({ timeout: 30_000 })
          })
          expect(yield* run(() => page.getByRole("heading", { level: 1 }).textContent())).toBe("Testville, TL")
          yield* run(async () => {
            await page.goto(url("/climate"))
            await page.waitForURL(/\/climate\/$/)
            await page.goto(url("/climate/alerts"))
            await page.getByRole("link", { name: "Sign in with ChatApp" }).click()
            await page.waitForURL(/\/climate\/alerts\?oauth=created&provider=chat/)
            await page.getByRole("button", { name: "Sign out" }).waitFor()
          })
          expect(chat.requests.find((r) => r.path === "/oauth2/authorize")?.query.redirect_uri).toMatch(
            /^http:\/\/127\.0\.0\.1:\d+\/climate\/api\/v2\/chat\/link\/callback$/
          )
          expect(failed).toEqual([])
          expect(Chromium.cspViolations(log)).toEqual([])
        }))
    })
  })
}
