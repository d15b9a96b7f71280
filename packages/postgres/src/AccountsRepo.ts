/**
 * The account ports of `@climate-grade/core` over the CONTRACT.md tables. `SqlError`s become
 * defects here (the rules never decide on them); unique violations the rules do decide on
 * become the core's typed errors.
 */
import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import {
  AuditLog,
  EmailTaken,
  LinkConflict,
  type NewUser,
  OAuthAccounts,
  OAuthLink,
  type ProviderName,
  UnitOfWork,
  User,
  type UserId,
  Users
} from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { uniqueViolation } from "./SqlErrors.js"

export const USER_COLUMNS = `id, email, hashed_password as "hashedPassword", is_active as "isActive",
  is_superuser as "isSuperuser", is_verified as "isVerified", oauth_only as "oauthOnly",
  chat_id as "chatId", chat_dm as "chatDm"`

const LINK_COLUMNS = `user_id as "userId", provider, subject, email`

export const decodeUser = Schema.decodeUnknown(User)
const decodeLink = Schema.decodeUnknown(OAuthLink)

const firstAs = <A>(decode: (u: unknown) => Effect.Effect<A, unknown>) => (rows: ReadonlyArray<unknown>) =>
  rows.length === 0 ? Effect.succeedNone : Effect.asSome(decode(rows[0]))

export const makeUsers = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return Users.of({
    findById: (id) =>
      sql.unsafe(`select ${USER_COLUMNS} from users where id = $1`, [id]).pipe(Effect.flatMap(firstAs(decodeUser)), Effect.orDie),
    lock: (id) =>
      sql
        .unsafe(`select ${USER_COLUMNS} from users where id = $1 for update`, [id])
        .pipe(Effect.flatMap(firstAs(decodeUser)), Effect.orDie),
    // PostgreSQL text cannot hold NUL, so no account has such an address (and the query would fail).
    findByEmail: (email) =>
      email.includes("\0")
        ? Effect.succeedNone
        : sql
            .unsafe(`select ${USER_COLUMNS} from users where lower(email) = lower($1)`, [email])
            .pipe(Effect.flatMap(firstAs(decodeUser)), Effect.orDie),
    create: (user: NewUser) =>
      sql
        .unsafe(
          `insert into users (email, hashed_password, is_active, is_superuser, is_verified, oauth_only)
           values ($1, $2, $3, $4, $5, $6) returning ${USER_COLUMNS}`,
          [user.email, user.hashedPassword, user.isActive, user.isSuperuser, user.isVerified, user.oauthOnly]
        )
        .pipe(
          Effect.catchTag("SqlError", (e) =>
            uniqueViolation(e) === undefined ? Effect.die(e) : Effect.fail(new EmailTaken({ email: user.email }))
          ),
          Effect.flatMap((rows) => Effect.orDie(decodeUser(rows[0]))),
          Effect.withSpan("Users.create")
        ),
    setChat: (id, { chatDm, chatId }) =>
      sql`update users set chat_id = ${chatId}, chat_dm = ${chatDm} where id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
    setChatDm: (id, chatDm) => sql`update users set chat_dm = ${chatDm} where id = ${id}`.pipe(Effect.asVoid, Effect.orDie)
  })
})

export const makeOAuthAccounts = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const conflict = (e: SqlError) => {
    const constraint = uniqueViolation(e)
    if (constraint === undefined) return Effect.die(e)
    return Effect.fail(
      new LinkConflict({ constraint: constraint === "oauth_accounts_user_provider_key" ? "user-provider" : "subject" })
    )
  }
  return OAuthAccounts.of({
    findBySubject: (provider: ProviderName, subject: string) =>
      sql
        .unsafe(`select ${LINK_COLUMNS} from oauth_accounts where provider = $1 and subject = $2`, [provider, subject])
        .pipe(Effect.flatMap(firstAs(decodeLink)), Effect.orDie),
    listByUser: (userId: UserId) =>
      sql
        .unsafe(`select ${LINK_COLUMNS} from oauth_accounts where user_id = $1 order by provider`, [userId])
        .pipe(Effect.flatMap(Effect.forEach((row) => decodeLink(row))), Effect.orDie),
    insert: (link) =>
      sql`insert into oauth_accounts (user_id, provider, subject, email)
          values (${link.userId}, ${link.provider}, ${link.subject}, ${link.email})`.pipe(
        Effect.asVoid,
        Effect.catchTag("SqlError", conflict)
      ),
    remove: (userId, provider) =>
      sql`delete from oauth_accounts where user_id = ${userId} and provider = ${provider} returning subject`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )
  })
})

export const makeAuditLog = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return AuditLog.of({
    record: (activity, data) =>
      sql`insert into audit_log (activity, data) values (${activity}, ${JSON.stringify(data)}::jsonb)`.pipe(
        Effect.asVoid,
        Effect.orDie
      )
  })
})

export const makeUnitOfWork = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return UnitOfWork.of({
    // A transaction that fails to begin or commit is an infrastructure fault: a defect.
    transaction: <A, E, R>(self: Effect.Effect<A, E, R>) =>
      sql
        .withTransaction(self)
        .pipe(Effect.catchAll((e) => (e instanceof SqlError ? Effect.die(e) : Effect.fail(e as E))))
  })
})

export const layer = Layer.mergeAll(
  Layer.effect(Users, makeUsers),
  Layer.effect(OAuthAccounts, makeOAuthAccounts),
  Layer.effect(AuditLog, makeAuditLog),
  Layer.effect(UnitOfWork, makeUnitOfWork)
)
