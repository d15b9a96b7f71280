import { describe, expect, it } from "@effect/vitest"
import {
  AccountResolution,
  ExchangeFailed,
  OAuthLink,
  OAuthAccounts,
  ProviderExchange,
  type ProviderName,
  STATUS,
  User,
  type UserId
} from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as InMemory from "./InMemory.js"

// Small pools so that generated worlds collide often: shared e-mails, subjects, providers.
const EMAILS = ["a@x.org", "b@x.org", "c@x.org"]
const SUBJECTS = ["s1", "s2", "s3"]
const PROVIDERS: ReadonlyArray<ProviderName> = ["chat", "idp"]

interface World {
  readonly users: ReadonlyArray<{ email: string; isActive: boolean; isVerified: boolean; oauthOnly: boolean }>
  /** [user index, provider, subject] */
  readonly links: ReadonlyArray<readonly [number, ProviderName, string]>
}

const worldArb: FastCheck.Arbitrary<World> = FastCheck.uniqueArray(FastCheck.constantFrom(...EMAILS), { maxLength: 3 })
  .chain((emails) =>
    FastCheck.record({
      users: FastCheck.tuple(
        ...emails.map((email) =>
          FastCheck.record({ email: FastCheck.constant(email), isActive: FastCheck.boolean(), isVerified: FastCheck.boolean(), oauthOnly: FastCheck.boolean() })
        )
      ),
      links: FastCheck.array(
        FastCheck.tuple(
          FastCheck.nat({ max: Math.max(0, emails.length - 1) }),
          FastCheck.constantFrom(...PROVIDERS),
          FastCheck.constantFrom(...SUBJECTS)
        ),
        { maxLength: 4 }
      )
    })
  )
  .map((w) => ({ users: w.users, links: w.users.length === 0 ? [] : w.links }))

const profileArb = FastCheck.record(
  {
    id: FastCheck.oneof(FastCheck.constantFrom(...SUBJECTS), FastCheck.constant(7), FastCheck.constant("")),
    sub: FastCheck.oneof(FastCheck.constantFrom(...SUBJECTS), FastCheck.constant(7)),
    email: FastCheck.constantFrom("a@x.org", "  A@X.ORG ", "b@x.org", "new@x.org", "", "   "),
    verified: FastCheck.constantFrom<unknown>(true, false, "true", 1),
    email_verified: FastCheck.constantFrom<unknown>(true, false, "true", "TRUE", "yes", 1)
  },
  { requiredKeys: [] }
)

const scenarioArb = FastCheck.record({
  world: worldArb,
  provider: FastCheck.constantFrom(...PROVIDERS),
  profile: profileArb,
  exchangeFails: FastCheck.boolean()
})

type Scenario = typeof scenarioArb extends FastCheck.Arbitrary<infer A> ? A : never

/** Builds the world in a fresh store; links that would break a unique rule are skipped, as the database would. */
const seed = (world: World) => {
  const store = InMemory.emptyStore()
  const ids: Array<UserId> = []
  world.users.forEach((u, i) => {
    const id = `00000000-0000-4000-9000-${String(i).padStart(12, "0")}` as UserId
    ids.push(id)
    store.users.set(id, new User({ id, hashedPassword: "x", isSuperuser: false, chatId: null, chatDm: false, ...u }))
  })
  for (const [i, provider, subject] of world.links) {
    const userId = ids[i]!
    if (store.links.some((l) => (l.provider === provider && l.subject === subject) || (l.userId === userId && l.provider === provider))) continue
    store.links.push(new OAuthLink({ userId, provider, subject, email: null }))
  }
  return { store, ids }
}

const exchangeLayer = (scenario: Scenario) =>
  Layer.succeed(ProviderExchange, {
    exchange: () => (scenario.exchangeFails ? Effect.fail(new ExchangeFailed({ reason: "test" })) : Effect.succeed(scenario.profile))
  })

const subjectOf = (s: Scenario) => {
  const raw = s.provider === "chat" ? s.profile.id : s.profile.sub
  return raw === undefined ? "" : String(raw)
}
const emailOf = (s: Scenario) => (s.profile.email ?? "").trim().toLowerCase()
const verifiedOf = (s: Scenario) =>
  s.provider === "chat"
    ? s.profile.verified === true
    : s.profile.email_verified === true || String(s.profile.email_verified).toLowerCase() === "true"

/** The login finish, restated plainly: a provider's e-mail address matches only a verified local account. */
const expectedLogin = (s: Scenario, store: InMemory.Store): string => {
  if (s.exchangeFails) return "error"
  const subject = subjectOf(s)
  if (subject === "") return "error"
  const link = store.links.find((l) => l.provider === s.provider && l.subject === subject)
  if (link !== undefined) {
    const owner = store.users.get(link.userId)
    if (owner === undefined) return "error"
    return owner.isActive ? "signedin" : "inactive"
  }
  const email = emailOf(s)
  if (email === "") return "noemail"
  if (!verifiedOf(s)) return "unverified"
  const user = [...store.users.values()].find((u) => u.email.toLowerCase() === email)
  if (user === undefined) return "created"
  if (!user.isActive) return "inactive"
  if (!user.isVerified) return "unverified"
  if (store.links.some((l) => l.userId === user.id && l.provider === s.provider)) return "mismatch"
  return "signedin"
}

const input = (s: Scenario) => ({ provider: s.provider, code: "c", redirectUri: "r", codeVerifier: Option.some("v") })

describe("AccountResolution, property-tested against the rules in order", () => {
  it.effect.prop("login finish", [scenarioArb], ([scenario]) =>
    Effect.gen(function* () {
      const { store } = seed(scenario.world)
      const before = { users: store.users.size, links: store.links.length }
      const hadLink = store.links.some((l) => l.provider === scenario.provider && l.subject === subjectOf(scenario))
      const expected = expectedLogin(scenario, store)
      const outcome = yield* AccountResolution.loginFinish(input(scenario)).pipe(
        Effect.provide(Layer.merge(InMemory.layer(store), exchangeLayer(scenario)))
      )
      expect(STATUS[outcome._tag]).toBe(expected)
      if (outcome._tag === "Created") {
        expect(store.users.size).toBe(before.users + 1)
        expect(outcome.user).toMatchObject({ email: emailOf(scenario), isActive: true, isVerified: true, isSuperuser: false, oauthOnly: true })
        expect(store.audit).toEqual([{ activity: "auth.register", data: { user_id: outcome.user.id, via: scenario.provider } }])
      } else {
        expect(store.users.size).toBe(before.users)
        expect(store.audit).toEqual([])
      }
      if (outcome._tag === "Created" || outcome._tag === "SignedIn") {
        const user = store.users.get(outcome.user.id)!
        expect(store.links.some((l) => l.userId === user.id && l.provider === scenario.provider && l.subject === subjectOf(scenario))).toBe(true)
        // Whenever this login creates the chat link, the subject becomes the delivery address.
        if (scenario.provider === "chat" && !hadLink) expect([user.chatId, user.chatDm]).toEqual([subjectOf(scenario), true])
        expect(store.sessions.get(outcome.session.token)).toBe(user.id)
      } else {
        // No link and no session for a refusal.
        expect(store.sessions.size).toBe(0)
        if (expected !== "inactive") expect(store.links.length).toBe(before.links)
      }
    })
  )

  it.effect.prop(
    "link finish",
    // Precondition: a link needs a user to start it (an empty world would pass without a check).
    [scenarioArb.filter((s) => s.world.users.length > 0), FastCheck.nat({ max: 2 }), FastCheck.constantFrom("same", "other", "none")],
    ([scenario, who, session]) =>
      Effect.gen(function* () {
        const { ids, store } = seed(scenario.world)
        const userId = ids[who % ids.length]!
        const user = store.users.get(userId)!
        const sessionUser =
          session === "same"
            ? Option.some(user)
            : session === "other"
              ? Option.some(new User({ ...user, id: "00000000-0000-4000-9999-000000000000" as UserId }))
              : Option.none()
        const subject = subjectOf(scenario)
        const existing = store.links.find((l) => l.provider === scenario.provider && l.subject === subject)
        const expected =
          session !== "same" || scenario.exchangeFails || subject === ""
            ? "error"
            : existing !== undefined
              ? existing.userId === userId
                ? "linked"
                : "taken"
              : store.links.some((l) => l.userId === userId && l.provider === scenario.provider)
                ? "already"
                : "linked"
        const outcome = yield* AccountResolution.linkFinish({ ...input(scenario), stateUserId: userId, sessionUser }).pipe(
          Effect.provide(Layer.merge(InMemory.layer(store), exchangeLayer(scenario)))
        )
        expect(STATUS[outcome._tag]).toBe(expected)
        if (expected === "linked" && existing === undefined && scenario.provider === "chat") {
          expect([store.users.get(userId)!.chatId, store.users.get(userId)!.chatDm]).toEqual([subject, true])
        }
      })
  )

  // Precondition: an unlink needs a user (an empty world would pass without a check).
  const peopledArb = worldArb.filter((w) => w.users.length > 0)
  it.effect.prop("unlink", [peopledArb, FastCheck.nat({ max: 2 }), FastCheck.constantFrom(...PROVIDERS)], ([world, who, provider]) =>
    Effect.gen(function* () {
      const { ids, store } = seed(world)
      const user = store.users.get(ids[who % ids.length]!)!
      const owned = store.links.filter((l) => l.userId === user.id)
      const expected = !owned.some((l) => l.provider === provider)
        ? "not-linked"
        : user.oauthOnly && owned.length <= 1
          ? "last-link"
          : "unlinked"
      const outcome = yield* AccountResolution.unlink(user, provider).pipe(Effect.provide(InMemory.layer(store)))
      expect(outcome).toBe(expected)
      const after = store.links.filter((l) => l.userId === user.id)
      expect(after.length).toBe(expected === "unlinked" ? owned.length - 1 : owned.length)
      if (expected === "unlinked" && provider === "chat") {
        expect([store.users.get(user.id)!.chatId, store.users.get(user.id)!.chatDm]).toEqual([null, false])
      }
    })
  )

  it.prop("the 409 details name the provider's label; a refused unlink says it would leave no way to sign in", [
    FastCheck.string({ minLength: 1, maxLength: 20 })
  ], ([label]) => {
    const lastLink = AccountResolution.lastLinkDetail(label)
    expect(lastLink.startsWith(`Unlinking ${label} `)).toBe(true)
    expect(lastLink).toContain("would leave no way to sign in")
    expect(AccountResolution.notLinkedDetail(label)).toBe(`${label} is not linked to this account.`)
  })

  it.effect("races: two users linking one identity at once get one linked and one taken", () =>
    Effect.gen(function* () {
      const { ids, store } = seed({
        users: [
          { email: "a@x.org", isActive: true, isVerified: true, oauthOnly: false },
          { email: "b@x.org", isActive: true, isVerified: true, oauthOnly: false }
        ],
        links: []
      })
      const scenario = { world: { users: [], links: [] }, provider: "chat" as const, profile: { id: "s9" }, exchangeFails: false }
      const run = (id: UserId) =>
        AccountResolution.linkFinish({ ...input(scenario), stateUserId: id, sessionUser: Option.some(store.users.get(id)!) })
      const outcomes = yield* Effect.all([run(ids[0]!), run(ids[1]!)], { concurrency: 2 }).pipe(
        Effect.provide(Layer.merge(InMemory.layer(store), exchangeLayer(scenario)))
      )
      expect(outcomes.map((o) => STATUS[o._tag]).sort()).toEqual(["linked", "taken"])
      expect(store.links).toHaveLength(1)
    }))

  it.effect("races: ten concurrent first logins of one identity create one account and one audit record", () =>
    Effect.gen(function* () {
      const store = InMemory.emptyStore()
      const scenario = {
        world: { users: [], links: [] },
        provider: "idp" as const,
        profile: { sub: "s1", email: "new@x.org", email_verified: true },
        exchangeFails: false
      }
      const outcomes = yield* Effect.all(
        Array.from({ length: 10 }, () => AccountResolution.loginFinish(input(scenario))),
        { concurrency: "unbounded" }
      ).pipe(Effect.provide(Layer.merge(InMemory.layer(store), exchangeLayer(scenario))))
      expect(outcomes.map((o) => STATUS[o._tag]).sort()).toEqual(["created", ...Array.from({ length: 9 }, () => "signedin")])
      expect(store.users.size).toBe(1)
      expect(store.audit).toHaveLength(1)
      expect(store.links).toHaveLength(1)
    }))
  /**
   * A parallel callback for the same identity commits right after this one read the identity's
   * link (as on PostgreSQL, where statements outside one transaction each see the latest commit).
   * A sequential run would have found that link first, so the outcome is its owner's.
   */
  const commitsAfterSubjectRead = (store: InMemory.Store, commit: () => void) =>
    Layer.effect(
      OAuthAccounts,
      Effect.map(OAuthAccounts, (links) =>
        OAuthAccounts.of({
          ...links,
          findBySubject: (provider, subject) => Effect.tap(links.findBySubject(provider, subject), () => Effect.sync(commit))
        })
      )
    ).pipe(Layer.provideMerge(InMemory.layer(store)))

  it.effect("races: a login whose identity is linked between its two reads signs in, not mismatch", () =>
    Effect.gen(function* () {
      const store = InMemory.emptyStore()
      const id = "00000000-0000-4000-9000-00000000000a" as UserId
      const scenario = { world: { users: [], links: [] }, provider: "chat" as const, profile: { id: "s1", email: "new@x.org", verified: true }, exchangeFails: false }
      const outcome = yield* AccountResolution.loginFinish(input(scenario)).pipe(
        Effect.provide(
          Layer.merge(
            commitsAfterSubjectRead(store, () => {
              if (store.users.has(id)) return
              store.users.set(id, new User({ id, email: "new@x.org", hashedPassword: "x", isActive: true, isSuperuser: false, isVerified: true, oauthOnly: true, chatId: "s1", chatDm: true }))
              store.links.push(new OAuthLink({ userId: id, provider: "chat", subject: "s1", email: "new@x.org" }))
            }),
            exchangeLayer(scenario)
          )
        )
      )
      expect(STATUS[outcome._tag]).toBe("signedin")
      expect(outcome._tag === "SignedIn" && outcome.user.id).toBe(id)
      expect(store.links).toHaveLength(1)
    }))

  it.effect("races: a link whose identity is linked to this user between its two reads is linked, not already", () =>
    Effect.gen(function* () {
      const { ids, store } = seed({ users: [{ email: "a@x.org", isActive: true, isVerified: true, oauthOnly: false }], links: [] })
      const user = store.users.get(ids[0]!)!
      const scenario = { world: { users: [], links: [] }, provider: "idp" as const, profile: { sub: "s2" }, exchangeFails: false }
      const outcome = yield* AccountResolution.linkFinish({ ...input(scenario), stateUserId: user.id, sessionUser: Option.some(user) }).pipe(
        Effect.provide(
          Layer.merge(
            commitsAfterSubjectRead(store, () => {
              if (store.links.length === 0) store.links.push(new OAuthLink({ userId: user.id, provider: "idp", subject: "s2", email: null }))
            }),
            exchangeLayer(scenario)
          )
        )
      )
      expect(STATUS[outcome._tag]).toBe("linked")
      expect(store.links).toHaveLength(1)
    }))
})
