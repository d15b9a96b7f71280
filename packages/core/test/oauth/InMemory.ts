/**
 * In-memory account ports for the pure rule tests: both unique constraints and case-insensitive
 * e-mail uniqueness are enforced, writes yield between their check and their write so concurrent
 * fibres really interleave, and a transaction restores a snapshot on failure.
 */
import {
  AuditLog,
  EmailTaken,
  LinkConflict,
  OAuthAccounts,
  OAuthLink,
  PasswordHasher,
  SecureRandom,
  Sessions,
  UnitOfWork,
  User,
  type UserId,
  Users
} from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

export interface Store {
  users: Map<string, User>
  links: Array<OAuthLink>
  audit: Array<{ activity: string; data: Readonly<Record<string, string>> }>
  sessions: Map<string, string>
}

export const emptyStore = (): Store => ({ users: new Map(), links: [], audit: [], sessions: new Map() })

let ids = 0
const nextId = () => {
  const n = (++ids).toString(16).padStart(12, "0")
  return `00000000-0000-4000-8000-${n}` as UserId
}

export const layer = (store: Store) => {
  const users = Users.of({
    findById: (id) => Effect.sync(() => Option.fromNullable(store.users.get(id))),
    // Transactions here already run one at a time.
    lock: (id) => Effect.sync(() => Option.fromNullable(store.users.get(id))),
    findByEmail: (email) =>
      Effect.sync(() => Option.fromNullable([...store.users.values()].find((u) => u.email.toLowerCase() === email.toLowerCase()))),
    create: (input) =>
      Effect.gen(function* () {
        const taken = [...store.users.values()].some((u) => u.email.toLowerCase() === input.email.toLowerCase())
        yield* Effect.yieldNow()
        if (taken || [...store.users.values()].some((u) => u.email.toLowerCase() === input.email.toLowerCase())) {
          return yield* new EmailTaken({ email: input.email })
        }
        const user = new User({ id: nextId(), ...input, chatId: null, chatDm: false })
        store.users.set(user.id, user)
        return user
      }),
    setChat: (id, chat) =>
      Effect.sync(() => {
        const user = store.users.get(id)
        if (user !== undefined) store.users.set(id, new User({ ...user, ...chat }))
      }),
    setChatDm: (id, chatDm) =>
      Effect.sync(() => {
        const user = store.users.get(id)
        if (user !== undefined) store.users.set(id, new User({ ...user, chatDm }))
      }),
    setVoice: (id, voice) =>
      Effect.sync(() => {
        const user = store.users.get(id)
        if (user !== undefined) {
          store.users.set(id, new User({ ...user, language: voice.language ?? user.language, units: voice.units ?? user.units }))
        }
      })
  })
  const links = OAuthAccounts.of({
    findBySubject: (provider, subject) =>
      Effect.sync(() => Option.fromNullable(store.links.find((l) => l.provider === provider && l.subject === subject))),
    listByUser: (userId) => Effect.sync(() => store.links.filter((l) => l.userId === userId)),
    insert: (link) =>
      Effect.gen(function* () {
        yield* Effect.yieldNow()
        if (store.links.some((l) => l.provider === link.provider && l.subject === link.subject)) {
          return yield* new LinkConflict({ constraint: "subject" })
        }
        if (store.links.some((l) => l.userId === link.userId && l.provider === link.provider)) {
          return yield* new LinkConflict({ constraint: "user-provider" })
        }
        store.links.push(new OAuthLink(link))
      }),
    remove: (userId, provider) =>
      Effect.sync(() => {
        const before = store.links.length
        store.links = store.links.filter((l) => !(l.userId === userId && l.provider === provider))
        return store.links.length < before
      })
  })
  const sessions = Sessions.of({
    issue: (userId) =>
      Effect.sync(() => {
        const token = `token-${store.sessions.size + 1}-${userId}`
        store.sessions.set(token, userId)
        return { token, expiresAt: new Date(0) }
      }),
    find: (token) => Effect.sync(() => Option.fromNullable(store.users.get(store.sessions.get(token) ?? ""))),
    revoke: (token) => Effect.sync(() => void store.sessions.delete(token))
  })
  const audit = AuditLog.of({ record: (activity, data) => Effect.sync(() => void store.audit.push({ activity, data })) })
  // Transactions run one at a time (as on PGlite), and a failure restores the snapshot taken at
  // the start: the all-or-nothing a database transaction gives.
  const serial = Effect.unsafeMakeSemaphore(1)
  const uow = UnitOfWork.of({
    transaction: (self) =>
      serial.withPermits(1)(Effect.suspend(() => {
        const snapshot = { users: new Map(store.users), links: [...store.links], audit: [...store.audit] }
        return Effect.tapErrorCause(self, () =>
          Effect.sync(() => {
            store.users = snapshot.users
            store.links = snapshot.links
            store.audit = snapshot.audit
          })
        )
      }))
  })
  return Layer.mergeAll(
    Layer.succeed(Users, users),
    Layer.succeed(OAuthAccounts, links),
    Layer.succeed(Sessions, sessions),
    Layer.succeed(AuditLog, audit),
    Layer.succeed(UnitOfWork, uow),
    Layer.succeed(PasswordHasher, { hash: (p) => Effect.succeed(`hashed:${p}`), verify: (p, h) => Effect.succeed(h === `hashed:${p}`) }),
    Layer.succeed(SecureRandom, { bytes: (n) => Effect.succeed(new Uint8Array(n).fill(7)) })
  )
}
