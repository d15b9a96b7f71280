/**
 * The ports the account rules run over. Implementations live in adapter packages
 * (PostgreSQL/PGlite in `@climate-grade/postgres`); tests provide in-memory ones.
 * Infrastructure faults are defects at the adapter edge, so the error channels
 * here carry only outcomes the rules decide on.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type {
  EmailTaken,
  IssuedSession,
  LinkConflict,
  NewUser,
  OAuthLink,
  ProviderName,
  User,
  UserId,
  Voice
} from "./Domain.js"

export class Users extends Context.Tag("@climate-grade/core/Users")<
  Users,
  {
    readonly findById: (id: UserId) => Effect.Effect<Option.Option<User>>
    /**
     * Reads the user and holds its row until the surrounding transaction ends, so that rules
     * which count and then change a user's links (unlink, the DM switch) run one at a time.
     */
    readonly lock: (id: UserId) => Effect.Effect<Option.Option<User>>
    /** Case-insensitive match on the stored address. */
    readonly findByEmail: (email: string) => Effect.Effect<Option.Option<User>>
    readonly create: (user: NewUser) => Effect.Effect<User, EmailTaken>
    readonly setChat: (id: UserId, chat: { readonly chatId: string | null; readonly chatDm: boolean }) => Effect.Effect<void>
    readonly setChatDm: (id: UserId, chatDm: boolean) => Effect.Effect<void>
    /** Sets the language and units given (a member left out, or null, keeps what is stored). */
    readonly setVoice: (id: UserId, voice: Partial<Voice>) => Effect.Effect<void>
  }
>() {}

export class OAuthAccounts extends Context.Tag("@climate-grade/core/OAuthAccounts")<
  OAuthAccounts,
  {
    readonly findBySubject: (provider: ProviderName, subject: string) => Effect.Effect<Option.Option<OAuthLink>>
    readonly listByUser: (userId: UserId) => Effect.Effect<ReadonlyArray<OAuthLink>>
    /** Fails with `LinkConflict` when the database's unique constraints refuse it (also under a race). */
    readonly insert: (link: OAuthLink) => Effect.Effect<void, LinkConflict>
    /** True when a link was removed. */
    readonly remove: (userId: UserId, provider: ProviderName) => Effect.Effect<boolean>
  }
>() {}

export class Sessions extends Context.Tag("@climate-grade/core/Sessions")<
  Sessions,
  {
    readonly issue: (userId: UserId) => Effect.Effect<IssuedSession>
    /** The session's user, if the token names a live session. Activity is the caller's rule. */
    readonly find: (token: string) => Effect.Effect<Option.Option<User>>
    readonly revoke: (token: string) => Effect.Effect<void>
  }
>() {}

export class AuditLog extends Context.Tag("@climate-grade/core/AuditLog")<
  AuditLog,
  { readonly record: (activity: string, data: Readonly<Record<string, string>>) => Effect.Effect<void> }
>() {}

/** Runs an effect atomically: all of its repository writes commit together or not at all. */
export class UnitOfWork extends Context.Tag("@climate-grade/core/UnitOfWork")<
  UnitOfWork,
  { readonly transaction: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> }
>() {}

export class PasswordHasher extends Context.Tag("@climate-grade/core/PasswordHasher")<
  PasswordHasher,
  {
    readonly hash: (password: string) => Effect.Effect<string>
    readonly verify: (password: string, hash: string) => Effect.Effect<boolean>
  }
>() {}

/** Cryptographically secure random bytes. */
export class SecureRandom extends Context.Tag("@climate-grade/core/SecureRandom")<
  SecureRandom,
  { readonly bytes: (n: number) => Effect.Effect<Uint8Array> }
>() {}
