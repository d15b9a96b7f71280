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
import { userKey } from "../weather/UpstreamBudget.js"
import type { ProviderName, User, UserId } from "./Domain.js"
import { accountKey } from "./LoginThrottle.js"

/** The audit activity recorded when an account is deleted. */
export const DELETED_ACTIVITY = "account.delete"

/** Everything held about one user, as the export gives it: no password hash, no token hash, no secret. */
export interface AccountExport {
  readonly account: {
    readonly id: string
    readonly email: string
    readonly is_active: boolean
    readonly is_superuser: boolean
    readonly is_verified: boolean
    readonly oauth_only: boolean
    readonly chat_id: string | null
    readonly chat_dm: boolean
    readonly created_at: string
  }
  readonly links: ReadonlyArray<{
    readonly provider: ProviderName
    readonly subject: string
    readonly email: string | null
    readonly created_at: string
  }>
  /** Sessions by when they began and end; the token exists only in the browser that holds it. */
  readonly sessions: ReadonlyArray<{ readonly created_at: string; readonly expires_at: string }>
  readonly watches: ReadonlyArray<{
    readonly id: string
    readonly cell: string
    readonly lat: number
    readonly lon: number
    readonly kinds: ReadonlyArray<string>
    readonly created_at: string
    readonly updated_at: string
  }>
  readonly alerts: ReadonlyArray<{
    readonly id: string
    readonly watch_id: string
    readonly date: string
    readonly kind: string
    readonly variable: string
    readonly value: number | null
    readonly unit: string
    readonly percentile: number | null
    readonly label: string | null
    readonly n: number
    readonly content: string
    readonly delivery: string
    readonly created_at: string
  }>
  /** Alerts of heat waves and cold spells, one per watch and spell. */
  readonly spell_alerts: ReadonlyArray<{
    readonly id: string
    readonly watch_id: string
    readonly kind: string
    readonly start_date: string
    readonly end_date: string
    readonly severity: string
    readonly rank: number
    readonly of: number
    readonly content: string
    readonly delivery: string
    readonly created_at: string
    readonly updated_at: string
  }>
  /** The direct messages of both kinds of alert, sent or waiting. */
  readonly messages: ReadonlyArray<{
    readonly alert_id: string
    readonly content: string
    readonly status: string
    readonly attempts: number
    readonly created_at: string
    readonly sent_at: string | null
  }>
  /** Open-Meteo cost units reserved for new places under this user, per UTC day. */
  readonly weather_units: ReadonlyArray<{ readonly date: string; readonly units: number }>
  /** The audit log's records about this account. */
  readonly audit: ReadonlyArray<{ readonly activity: string; readonly created_at: string; readonly data: unknown }>
}

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
