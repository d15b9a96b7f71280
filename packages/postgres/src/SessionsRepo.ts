import { SqlClient, SqlSchema } from "@effect/sql"
import { Crypto, SecureRandom, SESSION_TTL_SECONDS, Sessions, User } from "@climate-grade/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { USER_COLUMNS } from "./AccountsRepo.js"

/**
 * Sessions: a random 256-bit token, kept only as its SHA-256. Expiry is
 * compared with Effect's `Clock`, not the database's `now()`, so tests can move time.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const random = yield* SecureRandom
  const prefixed = USER_COLUMNS.replace(/(^|,\s*)/g, "$1u.")
  const userOf = SqlSchema.findOne({
    Request: Schema.Struct({ hash: Schema.String, now: Schema.DateFromSelf }),
    Result: User,
    execute: ({ hash, now }) =>
      sql.unsafe(
        `select ${prefixed} from sessions s join users u on u.id = s.user_id
         where s.token_hash = $1 and s.expires_at > $2`,
        [hash, now]
      )
  })
  return Sessions.of({
    issue: (userId) =>
      Effect.gen(function* () {
        const token = Crypto.base64Url(yield* random.bytes(32))
        const now = yield* Clock.currentTimeMillis
        const expiresAt = new Date(now + SESSION_TTL_SECONDS * 1000)
        yield* sql`insert into sessions (token_hash, user_id, created_at, expires_at)
                   values (${Crypto.sha256Hex(token)}, ${userId}, ${new Date(now)}, ${expiresAt})`
        return { token, expiresAt }
      }).pipe(Effect.orDie, Effect.withSpan("Sessions.issue")),
    find: (token) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => userOf({ hash: Crypto.sha256Hex(token), now: new Date(now) })).pipe(
        Effect.orDie
      ),
    revoke: (token) => sql`delete from sessions where token_hash = ${Crypto.sha256Hex(token)}`.pipe(Effect.asVoid, Effect.orDie)
  })
})

export const layer = Layer.effect(Sessions, make)
