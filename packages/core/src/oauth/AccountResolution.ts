/**
 * The link finish, login finish and unlink rules (docs/api.md "Accounts and sign-in"), step by step, as
 * programs over the account ports that return outcomes. Races end as a sequential run would: a
 * unique-constraint refusal makes the rules look again, so two links of one identity give one `linked`
 * and one `taken`, and parallel first logins of one identity create one account.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type EmailTaken, type LinkConflict, OAuthLink, type ProviderName, User, type UserId } from "../accounts/Domain.js"
import { AuditLog, OAuthAccounts, PasswordHasher, SecureRandom, Sessions, UnitOfWork, Users } from "../accounts/Ports.js"
import { base64Url } from "../Crypto.js"
import { ProviderExchange } from "./Exchange.js"
import { Outcome } from "./Outcome.js"
import * as Profile from "./Profile.js"
import { registry } from "./Providers.js"

export interface CallbackInput {
  readonly provider: ProviderName
  readonly code: string
  readonly redirectUri: string
  /** PKCE's verifier, for a flow whose start sent a challenge. */
  readonly codeVerifier: Option.Option<string>
}

/** How often a rule re-reads after losing a race before it gives up with `error`. */
const ATTEMPTS = 3

/** The provider's profile, or the `error` outcome (failed exchange, empty subject). */
const fetchProfile = (input: CallbackInput) =>
  Effect.gen(function* () {
    const exchange = yield* ProviderExchange
    const raw = yield* Effect.either(exchange.exchange(input))
    if (raw._tag === "Left") return Option.none<Profile.ParsedProfile>()
    const profile = Profile.parse(registry[input.provider], raw.right)
    return profile.subject === "" ? Option.none<Profile.ParsedProfile>() : Option.some(profile)
  })

/** Creates a link; for `chat` the subject also becomes the user's delivery address, DMs on. */
const attach = (user: User, provider: ProviderName, profile: Profile.ParsedProfile) =>
  Effect.gen(function* () {
    const links = yield* OAuthAccounts
    const users = yield* Users
    yield* links.insert(
      new OAuthLink({ userId: user.id, provider, subject: profile.subject, email: profile.email === "" ? null : profile.email })
    )
    if (provider === "chat") yield* users.setChat(user.id, { chatId: profile.subject, chatDm: true })
  })

/** The user's link for this provider, if any. */
const heldLink = (userId: UserId, provider: ProviderName) =>
  Effect.flatMap(OAuthAccounts, (links) => links.listByUser(userId)).pipe(
    Effect.map((owned) => Option.fromNullable(owned.find((l) => l.provider === provider)))
  )

/** Every failure of these rules is a lost race (a unique constraint refused a write): look again. */
const retrying = <R>(attempt: Effect.Effect<Outcome, LinkConflict | EmailTaken, R>) =>
  attempt.pipe(
    Effect.retry({ times: ATTEMPTS - 1 }),
    Effect.catchAll(() => Effect.succeed(Outcome.Error({ reason: "lost too many races" })))
  )

export const linkFinish = (input: CallbackInput & { readonly stateUserId: string; readonly sessionUser: Option.Option<User> }) =>
  Effect.gen(function* () {
    // 1. The signed-in user must be the one the state was minted for.
    if (Option.isNone(input.sessionUser) || input.sessionUser.value.id !== input.stateUserId) {
      return Outcome.Error({ reason: "no session, or another user's state" })
    }
    const user = input.sessionUser.value
    // 2. The exchange.
    const profile = yield* fetchProfile(input)
    if (Option.isNone(profile)) return Outcome.Error({ reason: "exchange failed or no subject" })
    const links = yield* OAuthAccounts
    const uow = yield* UnitOfWork
    const decide = Effect.gen(function* () {
      // 3. The identity's owner decides, when it has one.
      const existing = yield* links.findBySubject(input.provider, profile.value.subject)
      if (Option.isSome(existing)) return existing.value.userId === user.id ? Outcome.Linked() : Outcome.Taken()
      // 4. One identity per provider per user. The identity itself may have been linked to this
      // user since step 3 read (a parallel callback): that is step 3's `linked`, not `already`.
      const held = yield* heldLink(user.id, input.provider)
      if (Option.isSome(held)) return held.value.subject === profile.value.subject ? Outcome.Linked() : Outcome.Already()
      // 5. Link.
      yield* uow.transaction(attach(user, input.provider, profile.value))
      return Outcome.Linked()
    })
    return yield* retrying(decide)
  }).pipe(Effect.withSpan("AccountResolution.linkFinish"))

export const loginFinish = (input: CallbackInput) =>
  Effect.gen(function* () {
    // 1. The exchange.
    const profile = yield* fetchProfile(input)
    if (Option.isNone(profile)) return Outcome.Error({ reason: "exchange failed or no subject" })
    const { email, subject, verified } = profile.value
    const users = yield* Users
    const links = yield* OAuthAccounts
    const sessions = yield* Sessions
    const uow = yield* UnitOfWork
    const audit = yield* AuditLog
    const hasher = yield* PasswordHasher
    const random = yield* SecureRandom

    const signIn = (user: User, created: boolean) =>
      Effect.gen(function* () {
        // 4. The resolved account must be active.
        if (!user.isActive) return Outcome.Inactive()
        // 5. A session.
        const session = yield* sessions.issue(user.id)
        return created ? Outcome.Created({ user, session }) : Outcome.SignedIn({ user, session })
      })

    const resolve = Effect.gen(function* () {
      // 2. The link is the durable key.
      const existing = yield* links.findBySubject(input.provider, subject)
      if (Option.isSome(existing)) {
        const owner = yield* users.findById(existing.value.userId)
        return yield* Option.match(owner, {
          onNone: () => Effect.succeed(Outcome.Error({ reason: "the linked user no longer exists" })),
          onSome: (user) => signIn(user, false)
        })
      }
      // 3. Else a verified e-mail address.
      if (email === "") return Outcome.NoEmail()
      if (!verified) return Outcome.Unverified()
      const local = yield* users.findByEmail(email)
      if (Option.isNone(local)) {
        // A new provider-only account: a random password nobody is shown, the link and the audit record, at once.
        const password = base64Url(yield* random.bytes(32))
        const user = yield* uow.transaction(
          Effect.gen(function* () {
            const created = yield* users.create({
              email,
              hashedPassword: yield* hasher.hash(password),
              isActive: true,
              isSuperuser: false,
              isVerified: true,
              oauthOnly: true
            })
            yield* attach(created, input.provider, profile.value)
            yield* audit.record("auth.register", { user_id: created.id, via: input.provider })
            return afterLink(created, input.provider, subject)
          })
        )
        return yield* signIn(user, true)
      }
      const user = local.value
      if (!user.isActive) return Outcome.Inactive()
      // Hardening: an unverified local address is not matched either.
      if (!user.isVerified) return Outcome.Unverified()
      const held = yield* heldLink(user.id, input.provider)
      if (Option.isSome(held)) {
        // This very identity, linked by a parallel login since step 2 read: its owner, as step 2.
        return held.value.subject === subject ? yield* signIn(user, false) : Outcome.Mismatch()
      }
      yield* uow.transaction(attach(user, input.provider, profile.value))
      return yield* signIn(afterLink(user, input.provider, subject), false)
    })
    return yield* retrying(resolve)
  }).pipe(Effect.withSpan("AccountResolution.loginFinish"))

/** The user as it is after a link: for chat, the delivery address is the subject and DMs are on. */
const afterLink = (user: User, name: ProviderName, subject: string): User =>
  name === "chat" ? new User({ ...user, chatId: subject, chatDm: true }) : user

export type UnlinkOutcome = "unlinked" | "not-linked" | "last-link"

/** The 409's detail of a refused unlink (it would remove the last way in): names the provider, says why. */
export const lastLinkDetail = (label: string): string =>
  `Unlinking ${label} would leave no way to sign in: this account has no password, and ${label} is its only sign-in.`

export const unlink = (user: User, name: ProviderName) =>
  Effect.gen(function* () {
    const links = yield* OAuthAccounts
    const users = yield* Users
    const uow = yield* UnitOfWork
    return yield* uow.transaction(
      Effect.gen(function* () {
        // The user's row is held until commit: two unlinks at once must not each count the
        // other's link and leave a provider-only account with no way in.
        const current = yield* users.lock(user.id)
        if (Option.isNone(current)) return "not-linked" as const
        // 1. Count the user's links.
        const owned = yield* links.listByUser(user.id)
        // 2. Nothing to undo.
        if (!owned.some((l) => l.provider === name)) return "not-linked" as const
        // 3. A provider-only account keeps its last way in.
        if (current.value.oauthOnly && owned.length <= 1) return "last-link" as const
        // 4. Unlink; for chat the delivery address goes and DMs go off.
        yield* links.remove(user.id, name)
        if (name === "chat") yield* users.setChat(user.id, { chatId: null, chatDm: false })
        return "unlinked" as const
      })
    )
  }).pipe(Effect.withSpan("AccountResolution.unlink"))

/**
 * `POST /chat/dm`: direct messages on or off (or toggled) for a user whose chat is linked; None
 * when it is not. Under the user's row lock, as unlink, so that an unlink in between cannot leave
 * DMs on without a chat link, and two toggles at once flip twice.
 */
/** The 409's detail of `POST /chat/dm` without a chat link: names the chat provider. */
export const notLinkedDetail = (chatLabel: string): string => `${chatLabel} is not linked to this account.`

export const setChatDm = (user: User, enabled: Option.Option<boolean>) =>
  Effect.gen(function* () {
    const links = yield* OAuthAccounts
    const users = yield* Users
    const uow = yield* UnitOfWork
    return yield* uow.transaction(
      Effect.gen(function* () {
        const current = yield* users.lock(user.id)
        if (Option.isNone(current)) return Option.none<boolean>()
        const owned = yield* links.listByUser(user.id)
        if (!owned.some((l) => l.provider === "chat")) return Option.none<boolean>()
        const next = Option.getOrElse(enabled, () => !current.value.chatDm)
        yield* users.setChatDm(user.id, next)
        return Option.some(next)
      })
    )
  })
