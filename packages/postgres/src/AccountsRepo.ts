/**
 * The account ports of `@climate-grade/core` over the tables of migration 0001. `SqlError`s become
 * defects here (the rules never decide on them); unique violations the rules do decide on
 * become the core's typed errors.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
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
  chat_id as "chatId", chat_dm as "chatDm", lang as "language", units`

const LINK_COLUMNS = `user_id as "userId", provider, subject, email`


export const makeUsers = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  /** One user by a query of its own, decoded by the core's `User` schema. */
  const oneUser = (query: (value: string) => Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
    SqlSchema.findOne({ Request: Schema.String, Result: User, execute: query })
  const byId = oneUser((id) => sql.unsafe(`select ${USER_COLUMNS} from users where id = $1`, [id]))
  const lockById = oneUser((id) => sql.unsafe(`select ${USER_COLUMNS} from users where id = $1 for update`, [id]))
  const byEmail = oneUser((email) => sql.unsafe(`select ${USER_COLUMNS} from users where lower(email) = lower($1)`, [email]))
  const insert = SqlSchema.single({
    Request: Schema.Struct({
      email: Schema.String,
      hashedPassword: Schema.String,
      isActive: Schema.Boolean,
      isSuperuser: Schema.Boolean,
      isVerified: Schema.Boolean,
      oauthOnly: Schema.Boolean
    }),
    Result: User,
    execute: (user) =>
      sql.unsafe(
        `insert into users (email, hashed_password, is_active, is_superuser, is_verified, oauth_only)
         values ($1, $2, $3, $4, $5, $6) returning ${USER_COLUMNS}`,
        [user.email, user.hashedPassword, user.isActive, user.isSuperuser, user.isVerified, user.oauthOnly]
      )
  })
  return Users.of({
    findById: (id) => byId(id).pipe(Effect.orDie),
    lock: (id) => lockById(id).pipe(Effect.orDie),
    // PostgreSQL text cannot hold NUL, so no account has such an address (and the query would fail).
    findByEmail: (email) => (email.includes("\0") ? Effect.succeedNone : byEmail(email).pipe(Effect.orDie)),
    create: (user: NewUser) =>
      insert(user).pipe(
        Effect.catchTag("SqlError", (e) =>
          uniqueViolation(e) === undefined ? Effect.die(e) : Effect.fail(new EmailTaken({ email: user.email }))
        ),
        // Not one row of `User` back from an insert … returning is a bug, not a refusal.
        Effect.catchTags({ ParseError: Effect.die, NoSuchElementException: Effect.die }),
        Effect.withSpan("Users.create")
      ),
    setChat: (id, { chatDm, chatId }) =>
      sql`update users set chat_id = ${chatId}, chat_dm = ${chatDm} where id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
    setChatDm: (id, chatDm) => sql`update users set chat_dm = ${chatDm} where id = ${id}`.pipe(Effect.asVoid, Effect.orDie),
    setVoice: (id, voice) =>
      sql`update users set lang = coalesce(${voice.language ?? null}, lang), units = coalesce(${voice.units ?? null}, units)
          where id = ${id}`.pipe(Effect.asVoid, Effect.orDie)
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
  const bySubject = SqlSchema.findOne({
    Request: Schema.Struct({ provider: Schema.String, subject: Schema.String }),
    Result: OAuthLink,
    execute: ({ provider, subject }) =>
      sql.unsafe(`select ${LINK_COLUMNS} from oauth_accounts where provider = $1 and subject = $2`, [provider, subject])
  })
  const byUser = SqlSchema.findAll({
    Request: Schema.String,
    Result: OAuthLink,
    execute: (userId) => sql.unsafe(`select ${LINK_COLUMNS} from oauth_accounts where user_id = $1 order by provider`, [userId])
  })
  return OAuthAccounts.of({
    findBySubject: (provider: ProviderName, subject: string) => bySubject({ provider, subject }).pipe(Effect.orDie),
    listByUser: (userId: UserId) => byUser(userId).pipe(Effect.orDie),
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
