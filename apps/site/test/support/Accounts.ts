/**
 * Password accounts for the page tests: made straight in the database (no sign-up page exists), and
 * signed in through the account page's form, as a person would.
 */
import { PasswordHasher, Users } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import type { Page } from "playwright-core"

export const PASSWORD = "correct horse battery"

let made = 0

/** An active, verified password account with an address of its own: `${prefix}${n}@example.org`. */
export const passwordUser = (prefix: string, options: { readonly superuser?: boolean } = {}) =>
  Effect.gen(function* () {
    const hasher = yield* PasswordHasher
    return yield* (yield* Users).create({
      email: `${prefix}${++made}@example.org`,
      hashedPassword: yield* hasher.hash(PASSWORD),
      isActive: true,
      isSuperuser: options.superuser ?? false,
      isVerified: true,
      oauthOnly: false
    })
  }).pipe(Effect.orDie)

/** Fills the account page's e-mail form (the page is open at it) and sends it. */
export const submitPassword = async (page: Page, email: string, password = PASSWORD) => {
  await page.getByLabel("E-mail").fill(email)
  await page.getByLabel("Password").fill(password)
  await page.getByRole("button", { name: "Sign in with e-mail" }).click()
}

/** Signs in from the account page (`path`, `/alerts` unless another language's is wanted) and waits for the account. */
export const signIn = async (page: Page, url: (path: string) => string, email: string, path = "/alerts") => {
  await page.goto(url(path))
  await submitPassword(page, email)
  await page.getByRole("button", { name: "Sign out" }).waitFor({ timeout: 20_000 })
}
