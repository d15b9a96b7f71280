import { describe, expect, it } from "@effect/vitest"
import { PasswordHasher, PasswordLogin, SessionUser, User, type UserId } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as InMemory from "../oauth/InMemory.js"

const EMAILS = ["a@x.org", "b@x.org", "c@x.org"]
const PASSWORDS = ["correct horse", "battery staple", ""]

interface Account {
  readonly email: string
  readonly password: string
  readonly isActive: boolean
  readonly oauthOnly: boolean
}

const accountsArb = FastCheck.uniqueArray(FastCheck.constantFrom(...EMAILS), { maxLength: 3 }).chain((emails) =>
  FastCheck.tuple(
    ...emails.map((email) =>
      FastCheck.record({
        email: FastCheck.constant(email),
        password: FastCheck.constantFrom("correct horse", "correct horse", ...PASSWORDS),
        // Weighted towards accounts that may sign in, so admissions are common enough to count.
        isActive: FastCheck.constantFrom(true, true, false),
        oauthOnly: FastCheck.constantFrom(false, false, true)
      })
    )
  )
)

/**
 * An attempt's address: known or not, in any case, with stray spaces; two times in three one of the
 * world's accounts (drawn from all four addresses alike, an admission was about 1 attempt in 20, so
 * 300 runs saw 10 or fewer about one time in six).
 */
const attemptArb = (accounts: ReadonlyArray<Account>) =>
  FastCheck.record({
    email: FastCheck.tuple(
      accounts.length === 0
        ? FastCheck.constantFrom(...EMAILS, "nobody@x.org")
        : FastCheck.oneof(
            { arbitrary: FastCheck.constantFrom(...accounts.map((a) => a.email)), weight: 2 },
            { arbitrary: FastCheck.constantFrom(...EMAILS, "nobody@x.org"), weight: 1 }
          ),
      FastCheck.boolean(),
      FastCheck.constantFrom("", " ", "  \t")
    ).map(([email, upper, pad]) => `${pad}${upper ? email.toUpperCase() : email}${pad}`),
    password: FastCheck.constantFrom("correct horse", "correct horse", "battery staple", "", "CORRECT HORSE")
  })

/** A world and an attempt in it: about 9 attempts in 100 are admitted, 39 name no account. */
const caseArb = accountsArb.chain((accounts) => FastCheck.tuple(FastCheck.constant(accounts), attemptArb(accounts)))

let nextId = 0
const world = (accounts: ReadonlyArray<Account>) => {
  const store = InMemory.emptyStore()
  for (const a of accounts) {
    const id = `00000000-0000-4000-9000-${(++nextId).toString(16).padStart(12, "0")}` as UserId
    store.users.set(
      id,
      new User({
        id,
        email: a.email,
        hashedPassword: `hashed:${a.password}`,
        isActive: a.isActive,
        isSuperuser: false,
        isVerified: true,
        oauthOnly: a.oauthOnly,
        chatId: null,
        chatDm: false
      })
    )
  }
  // The in-memory hasher, counting what each verification was checked against.
  const verified: Array<string> = []
  const hasher = Layer.succeed(PasswordHasher, {
    hash: (p) => Effect.succeed(`hashed:${p}`),
    verify: (p, h) =>
      Effect.sync(() => {
        verified.push(h)
        return h === `hashed:${p}`
      })
  })
  return { store, verified, layer: Layer.merge(InMemory.layer(store), hasher) }
}

describe("PasswordLogin", () => {
  it.effect("admits exactly the active, password-holding account whose password matches; one refusal for every other case", () =>
    Effect.gen(function* () {
      const seen = { admitted: 0, refused: 0, unknown: 0 }
      yield* Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(caseArb, async ([accounts, attempt]) => {
            const { store, verified, layer } = world(accounts)
            const account = accounts.find((a) => a.email === attempt.email.trim().toLowerCase())
            const expected =
              account !== undefined && account.password === attempt.password && account.isActive && !account.oauthOnly
            const result = await Effect.runPromise(
              Effect.flatMap(PasswordLogin.make, (p) => Effect.either(p.login(attempt.email, attempt.password))).pipe(
                Effect.provide(layer)
              )
            )
            // Exactly one verification per attempt (after the decoy's hash), against the decoy when the address is unknown.
            expect(verified).toHaveLength(1)
            if (account === undefined) {
              seen.unknown++
              expect(verified[0]).toBe("hashed:decoy password that matches nothing")
            }
            if (expected) {
              seen.admitted++
              expect(Either.isRight(result)).toBe(true)
              expect(store.sessions.size).toBe(1)
            } else {
              seen.refused++
              // The same refusal whatever the reason, and no session.
              expect(Either.isLeft(result) && result.left).toEqual(new PasswordLogin.LoginRefused())
              expect(store.sessions.size).toBe(0)
            }
          }),
          // ~52 admissions expected (sd ~7): 10 or fewer is beyond six standard deviations.
          { numRuns: 600 }
        )
      )
      // The generators reach every branch: a run of only refusals would prove nothing.
      expect(seen.admitted).toBeGreaterThan(10)
      expect(seen.refused).toBeGreaterThan(10)
      expect(seen.unknown).toBeGreaterThan(10)
    })
  )

  it("the operator command's address and password rules", () => {
    expect(PasswordLogin.newAccountEmail("  Ops@Example.ORG ")).toEqual(Either.right("ops@example.org"))
    for (const bad of ["", "ops", "@x.org", "ops@", "o ps@x.org", "a@b@"]) {
      expect(Either.isLeft(PasswordLogin.newAccountEmail(bad))).toBe(true)
    }
    expect(PasswordLogin.newAccountPassword("1234567")).toEqual(
      Either.left("the password on standard input must have at least 8 characters")
    )
    expect(PasswordLogin.newAccountPassword("12345678")).toEqual(Either.right("12345678"))
    FastCheck.assert(
      FastCheck.property(FastCheck.string(), (raw) =>
        Either.match(PasswordLogin.newAccountEmail(raw), {
          onLeft: () => true,
          onRight: (email) => email === raw.trim().toLowerCase() && email.split("@").length === 2 && !/\s/.test(email)
        })
      )
    )
  })
  it.effect("an operator's account signs in with its password, is active and not provider-only; a taken address writes nothing", () =>
    Effect.gen(function* () {
      const seen = { created: 0, refused: 0 }
      yield* Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(
            accountsArb,
            FastCheck.record({
              email: FastCheck.constantFrom(...EMAILS, " New@X.org ", "not an address"),
              password: FastCheck.constantFrom("correct horse", "short", ""),
              superuser: FastCheck.boolean(),
              verified: FastCheck.constantFrom(true, false, undefined)
            }),
            async (accounts, request) => {
              const { store, layer } = world(accounts)
              const account = PasswordLogin.newAccount(request)
              const email = request.email.trim().toLowerCase()
              const valid = email.includes("@") && !email.includes(" ") && request.password.length >= PasswordLogin.MIN_PASSWORD_LENGTH
              expect(Either.isRight(account)).toBe(valid)
              if (Either.isLeft(account)) return void seen.refused++
              const before = store.users.size
              const created = await Effect.runPromise(
                Effect.either(PasswordLogin.createAccount(account.right)).pipe(Effect.provide(layer))
              )
              if (accounts.some((a) => a.email === email)) {
                // The address is taken: nothing is written.
                expect(Either.isLeft(created) && created.left._tag).toBe("EmailTaken")
                expect(store.users.size).toBe(before)
                return
              }
              seen.created++
              const user = Either.getOrThrow(created)
              expect({ email: user.email, isActive: user.isActive, oauthOnly: user.oauthOnly }).toEqual({
                email,
                isActive: true,
                oauthOnly: false
              })
              expect(user.isSuperuser).toBe(request.superuser)
              expect(user.isVerified).toBe(request.verified !== false)
              // Stored as the hasher made it (the in-memory hasher's "hashed:" form), never as given.
              expect(user.hashedPassword).toBe(`hashed:${request.password}`)
              const signedIn = await Effect.runPromise(
                Effect.flatMap(PasswordLogin.make, (login) => login.check(` ${email.toUpperCase()} `, request.password)).pipe(
                  Effect.provide(layer)
                )
              )
              expect(signedIn.id).toBe(user.id)
            }
          ),
          { numRuns: 300 }
        )
      )
      expect(seen.created).toBeGreaterThan(10)
      expect(seen.refused).toBeGreaterThan(10)
    })
  )
})

describe("SessionUser", () => {
  const tokenArb = FastCheck.constantFrom("", "t1", "t2", "t3", "nope")
  it.effect("a session names its user only while the user is active; the first active user among the tokens wins", () =>
    Effect.gen(function* () {
      const seen = { some: 0, none: 0 }
      yield* Effect.promise(() =>
        FastCheck.assert(
          FastCheck.asyncProperty(
            accountsArb.filter((a) => a.length > 0),
            FastCheck.array(FastCheck.tuple(FastCheck.constantFrom("t1", "t2", "t3"), FastCheck.nat(2)), { maxLength: 3 }),
            FastCheck.array(tokenArb, { maxLength: 3 }),
            async (accounts, sessions, presented) => {
              const { store, layer } = world(accounts)
              const users = [...store.users.values()]
              for (const [token, index] of sessions) store.sessions.set(token, users[index % users.length]!.id)
              const owner = (token: string) => users.find((u) => u.id === store.sessions.get(token))
              const expected = presented.map(owner).find((u) => u?.isActive)
              const [one, first] = await Effect.runPromise(
                Effect.all([SessionUser.find(presented[0] ?? ""), SessionUser.first(presented)]).pipe(Effect.provide(layer))
              )
              const single = owner(presented[0] ?? "")
              expect(Option.getOrUndefined(one)?.id).toBe(single?.isActive ? single.id : undefined)
              expect(Option.getOrUndefined(first)?.id).toBe(expected?.id)
              if (expected === undefined) seen.none++
              else seen.some++
            }
          ),
          { numRuns: 300 }
        )
      )
      expect(seen.some).toBeGreaterThan(10)
      expect(seen.none).toBeGreaterThan(10)
    })
  )
})
