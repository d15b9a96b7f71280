/**
 * Password sign-in (`POST /auth/login`, docs/api.md "Accounts and sign-in") and the rules of a new password
 * account (the operator command). An unknown address, a wrong password, an inactive account and
 * a provider-only account all get the same refusal; the password is verified against a decoy hash
 * when the address is unknown, so the timing does not tell which addresses have accounts.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as StorableText from "../StorableText.js"
import { type IssuedSession, MAX_EMAIL_LENGTH, type User } from "./Domain.js"
import { PasswordHasher, Sessions, Users } from "./Ports.js"

/** The one refusal of a password login, whatever the reason (no enumeration). */
export class LoginRefused extends Data.TaggedError("LoginRefused")<{}> {}

/** Whether a user may sign in with this password: exists, password matches, active, not provider-only. */
export const admits = (user: Option.Option<User>, passwordMatches: boolean): Option.Option<User> =>
  Option.filter(user, (u) => passwordMatches && u.isActive && !u.oauthOnly)

export interface PasswordLogin {
  /** The user this address and password sign in, or the one refusal. */
  readonly check: (email: string, password: string) => Effect.Effect<User, LoginRefused>
  /** As `check`, then a new session for that user. */
  readonly login: (email: string, password: string) => Effect.Effect<IssuedSession, LoginRefused>
}

/** Whether some account could have this address: short enough, and text that can be stored. */
export const couldBeAccount = (email: string): boolean =>
  email.length <= MAX_EMAIL_LENGTH && StorableText.isStorable(email)

/** Builds the login rule; the decoy hash is made once, here. */
export const make = Effect.gen(function* () {
  const users = yield* Users
  const sessions = yield* Sessions
  const hasher = yield* PasswordHasher
  const decoy = yield* hasher.hash("decoy password that matches nothing")
  const check = (email: string, password: string) =>
    Effect.gen(function* () {
      // An address no account can have is looked up nowhere (it could not be stored either).
      const user = couldBeAccount(email.trim()) ? yield* users.findByEmail(email.trim()) : Option.none<User>()
      // Always one verification, against the user's hash or the decoy.
      const matches = yield* hasher.verify(
        password,
        Option.match(user, { onNone: () => decoy, onSome: (u) => u.hashedPassword })
      )
      return yield* Option.match(admits(user, matches), {
        onNone: () => Effect.fail(new LoginRefused()),
        onSome: Effect.succeed
      })
    })
  return {
    check,
    login: (email, password) => Effect.flatMap(check(email, password), (user) => sessions.issue(user.id))
  } satisfies PasswordLogin
})

/** The shortest password a new password account may have. */
export const MIN_PASSWORD_LENGTH = 8

/**
 * A new account's address, as stored: trimmed, lower-cased, one `@` with something on each side,
 * no space or control character, at most `MAX_EMAIL_LENGTH` characters, storable text.
 */
export const newAccountEmail = (raw: string): Either.Either<string, string> => {
  const email = raw.trim().toLowerCase()
  const flaw = StorableText.flaw(email)
  if (flaw !== undefined) return Either.left(`not an e-mail address: it contains ${StorableText.describe(flaw)}`)
  if (email.length > MAX_EMAIL_LENGTH) {
    return Either.left(`not an e-mail address: ${email.length} characters, more than ${MAX_EMAIL_LENGTH}`)
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  return /^[^\s@\u0000-\u001f\u007f]+@[^\s@\u0000-\u001f\u007f]+$/.test(email)
    ? Either.right(email)
    : Either.left(`not an e-mail address: ${JSON.stringify(email)}`)
}

/** A new account's password: at least `MIN_PASSWORD_LENGTH` characters (UTF-16 code units, as before). */
export const newAccountPassword = (password: string): Either.Either<string, string> =>
  password.length >= MIN_PASSWORD_LENGTH
    ? Either.right(password)
    : Either.left(`the password on standard input must have at least ${MIN_PASSWORD_LENGTH} characters`)

/** A password account the operator asked for, its address and password already checked. */
export interface NewAccount {
  readonly email: string
  readonly password: string
  readonly superuser: boolean
  readonly verified: boolean
}

/**
 * What is wrong with an operator's account request, as one line, or the account: the address
 * first, then the password; an account is verified unless it says `verified: false`.
 */
export const newAccount = (input: {
  readonly email?: unknown
  readonly password?: unknown
  readonly superuser?: unknown
  readonly verified?: unknown
}): Either.Either<NewAccount, string> => {
  if (typeof input.email !== "string") return Either.left("an e-mail address is required")
  const email = newAccountEmail(input.email)
  if (Either.isLeft(email)) return Either.left(email.left)
  const password = newAccountPassword(typeof input.password === "string" ? input.password : "")
  if (Either.isLeft(password)) return Either.left(password.left)
  return Either.right({
    email: email.right,
    password: password.right,
    superuser: input.superuser === true,
    verified: input.verified !== false
  })
}

/**
 * Creates the account: active, signing in by password (not provider-only), its password stored
 * only as the hasher's hash. Fails as `users.create` does when the address is taken.
 */
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
