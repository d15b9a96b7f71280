/** The outcomes of the sign-in rules and the one table that names them for the account redirect. */
import * as Data from "effect/Data"
import type { IssuedSession, ProviderName, User } from "../accounts/Domain.js"

export type Outcome = Data.TaggedEnum<{
  Unavailable: {}
  Cancelled: {}
  Error: { readonly reason: string }
  Linked: {}
  Taken: {}
  Already: {}
  NoEmail: {}
  Unverified: {}
  Inactive: {}
  Mismatch: {}
  Created: { readonly user: User; readonly session: IssuedSession }
  SignedIn: { readonly user: User; readonly session: IssuedSession }
}>

export const Outcome = Data.taggedEnum<Outcome>()

/** The `oauth=` status words of the account page, one per outcome (docs/api.md "Accounts and sign-in"). */
export const STATUS: { readonly [K in Outcome["_tag"]]: string } = {
  Unavailable: "unavailable",
  Cancelled: "cancelled",
  Error: "error",
  Linked: "linked",
  Taken: "taken",
  Already: "already",
  NoEmail: "noemail",
  Unverified: "unverified",
  Inactive: "inactive",
  Mismatch: "mismatch",
  Created: "created",
  SignedIn: "signedin"
}

/**
 * `{BASE_PATH}/alerts?oauth=<status>&provider=<provider>`, a path; for `chat` also the legacy
 * frontend's `chat=<status>`.
 */
export const accountRedirect = (basePath: string, provider: ProviderName, outcome: Outcome): string => {
  const status = STATUS[outcome._tag]
  const query = new URLSearchParams({ oauth: status, provider })
  if (provider === "chat") query.set("chat", status)
  return `${basePath}/alerts?${query.toString()}`
}
