/**
 * The operator's "create a password account" (there is no public registration; the rules on the
 * address and password are the core's, PasswordLogin), shared by the
 * command line, which runs it on the database itself when no server owns it, and the running
 * server's control channel (Control.ts), which runs it when one does.
 */
import { PasswordHasher, PasswordLogin, Users } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"

export interface NewAccount {
  readonly email: string
  readonly password: string
  readonly superuser: boolean
  readonly verified: boolean
}

/** What is wrong with an account request, as one line for the operator, or the account. */
export const validate = (input: {
  readonly email?: unknown
  readonly password?: unknown
  readonly superuser?: unknown
  readonly verified?: unknown
}): Either.Either<NewAccount, string> => {
  if (typeof input.email !== "string") return Either.left("an e-mail address is required")
  const email = PasswordLogin.newAccountEmail(input.email)
  if (Either.isLeft(email)) return Either.left(email.left)
  const password = PasswordLogin.newAccountPassword(typeof input.password === "string" ? input.password : "")
  if (Either.isLeft(password)) return Either.left(password.left)
  return Either.right({
    email: email.right,
    password: password.right,
    superuser: input.superuser === true,
    verified: input.verified !== false
  })
}

export const createAccount = (account: NewAccount) =>
  Effect.gen(function* () {
    const users = yield* Users
    const hasher = yield* PasswordHasher
    return yield* users.create({
      email: account.email,
      hashedPassword: yield* hasher.hash(account.password),
      isActive: true,
      isSuperuser: account.superuser,
      isVerified: account.verified,
      oauthOnly: false
    })
  })

/** The line the command prints on success. */
export const createdLine = (user: { readonly email: string; readonly id: string; readonly isSuperuser: boolean }) =>
  `created ${user.email} (${user.id})${user.isSuperuser ? " as superuser" : ""}`
