/**
 * Leaving: a user takes out everything held about them (the export), and deletes the account
 * with everything of it. What is erased and what is kept is decided here; the adapter only runs
 * it, in one transaction.
 *
 * Kept: the audit log's records, which name the account by its id only (never the e-mail), and
 * the record of the deletion itself. Erased: the account, its provider links, sessions, watches,
 * alerts and their messages (sent or not), the day's weather share counted under the user, and
 * the sign-in counter kept under the address. Counters kept under a hash of the address with a
 * client network or a browser's device id cannot be found from the account; they name nobody and
 * lapse with their window. A known-device cookie lives only in its browser.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { userKey } from "../weather/UpstreamBudget.js"
import { ProviderName, type User, type UserId } from "./Domain.js"
import { accountKey } from "./LoginThrottle.js"

/** The audit activity recorded when an account is deleted. */
export const DELETED_ACTIVITY = "account.delete"

const d = (description: string) => ({ description })
const When = Schema.String.annotations(d("ISO 8601, UTC"))

/**
 * Everything held about one user, as the export gives it: no password hash, no token hash, no
 * secret. The one shape of the export: the API declares it and the adapter decodes its rows by it.
 */
export const AccountExport = Schema.Struct({
  account: Schema.Struct({
    id: Schema.String,
    email: Schema.String,
    is_active: Schema.Boolean,
    is_superuser: Schema.Boolean,
    is_verified: Schema.Boolean,
    oauth_only: Schema.Boolean,
    chat_id: Schema.NullOr(Schema.String),
    chat_dm: Schema.Boolean,
    lang: Schema.NullOr(Schema.String).annotations(d("The language of direct messages (the page's the user last signed in from)")),
    units: Schema.NullOr(Schema.String).annotations(d("The units of direct messages (the site's units switch)")),
    created_at: When
  }).annotations(d("The account, without its password hash")),
  links: Schema.Array(
    Schema.Struct({ provider: ProviderName, subject: Schema.String, email: Schema.NullOr(Schema.String), created_at: When })
  ).annotations(d("Linked provider identities: the provider's id for the user (subject) and its address at link time")),
  sessions: Schema.Array(Schema.Struct({ created_at: When, expires_at: When })).annotations(
    d("Sessions by when they began and end; a token is never stored, only its hash, which is not given")
  ),
  watches: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      cell: Schema.String,
      lat: Schema.Number,
      lon: Schema.Number,
      kinds: Schema.Array(Schema.String),
      created_at: When,
      updated_at: When
    })
  ),
  alerts: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      watch_id: Schema.String,
      date: Schema.String,
      kind: Schema.String,
      variable: Schema.String,
      value: Schema.NullOr(Schema.Number),
      unit: Schema.String,
      percentile: Schema.NullOr(Schema.Number),
      label: Schema.NullOr(Schema.String),
      n: Schema.Number,
      content: Schema.String,
      delivery: Schema.String,
      created_at: When
    })
  ),
  spell_alerts: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      watch_id: Schema.String,
      kind: Schema.String,
      start_date: Schema.String,
      end_date: Schema.String,
      severity: Schema.String,
      rank: Schema.Number,
      of: Schema.Number,
      content: Schema.String,
      delivery: Schema.String,
      created_at: When,
      updated_at: When
    })
  ).annotations(d("Alerts of heat waves and cold spells, one per watch and spell")),
  messages: Schema.Array(
    Schema.Struct({
      alert_id: Schema.String,
      content: Schema.String,
      status: Schema.String,
      attempts: Schema.Number,
      created_at: When,
      sent_at: Schema.NullOr(When)
    })
  ).annotations(d("Direct messages of both kinds of alert, sent or waiting")),
  weather_units: Schema.Array(Schema.Struct({ date: Schema.String, units: Schema.Number })).annotations(
    d("Weather cost units reserved for new places under this account, per UTC day")
  ),
  audit: Schema.Array(Schema.Struct({ activity: Schema.String, created_at: When, data: Schema.Unknown })).annotations(
    d("The audit log's records about this account")
  )
}).annotations({ identifier: "AccountExport" })
export type AccountExport = typeof AccountExport.Type

/** What deleting one account erases, beyond its row and everything that refers to it. */
export interface Erasure {
  readonly userId: UserId
  /** Keys of `login_attempts` that belong to this account alone. */
  readonly loginKeys: ReadonlyArray<string>
  /** The weather ledger's share key of this user. */
  readonly spender: string
  /** The record that stays: the account's id and when, no e-mail. */
  readonly audit: { readonly activity: string; readonly data: Readonly<Record<string, string>> }
}

export class AccountRecords extends Context.Tag("@climate-grade/core/AccountRecords")<
  AccountRecords,
  {
    /** Undefined when the account no longer exists. */
    readonly export: (userId: UserId) => Effect.Effect<AccountExport | undefined>
    /** Erases the account as `erasure` says, all at once; false when it was gone already. */
    readonly erase: (erasure: Erasure) => Effect.Effect<boolean>
  }
>() {}

/** The erasure of `user`'s account. */
export const erasureOf = (user: User): Erasure => ({
  userId: user.id,
  loginKeys: [accountKey(user.email)],
  spender: userKey(user.id),
  audit: { activity: DELETED_ACTIVITY, data: { user_id: user.id } }
})

/** Deletes `user`'s account and everything of it; false when it was gone already. */
export const leave = (user: User) => Effect.flatMap(AccountRecords, (records) => records.erase(erasureOf(user)))

/** Everything held about the user, or undefined when the account is gone. */
export const exportOf = (userId: UserId) => Effect.flatMap(AccountRecords, (records) => records.export(userId))
