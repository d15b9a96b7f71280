import { SqlClient } from "@effect/sql"
import { Crypto, SecureRandom, SESSION_TTL_SECONDS, Sessions } from "@climate-grade/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { decodeUser, USER_COLUMNS } from "./AccountsRepo.js"

/**
 * Sessions per CONTRACT.md §2: a random 256-bit token, kept only as its SHA-256. Expiry is
 * compared with Effect's `Clock`, not the database's `now()`, so tests can move time.
 */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const random = yield* SecureRandom
  const prefixed = USER_COLUMNS.replace(/(^|,\s*)/g, "$1u.")
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
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const rows = yield* sql.unsafe(
          `select ${prefixed} from sessions s join users u on u.id = s.user_id
           where s.token_hash = $1 and s.expires_at > $2`,
          [Crypto.sha256Hex(token), new Date(now)]
        )
        return rows.length === 0 ? yield* Effect.succeedNone : yield* Effect.asSome(decodeUser(rows[0]))
      }).pipe(Effect.orDie),
    revoke: (token) => sql`delete from sessions where token_hash = ${Crypto.sha256Hex(token)}`.pipe(Effect.asVoid, Effect.orDie)
  })
})

export const layer = Layer.effect(Sessions, make)
