/**
 * What each sign-in outcome (docs/api.md, "Accounts and sign-in") means for the person who just came back from the
 * provider, in words. One table, so a status without a message is a type error.
 */
import { w } from "../i18n/later.js"

export type OutcomeStatus =
  | "unavailable"
  | "cancelled"
  | "error"
  | "linked"
  | "taken"
  | "already"
  | "noemail"
  | "unverified"
  | "inactive"
  | "mismatch"
  | "created"
  | "signedin"

export type Tone = "good" | "bad" | "info"

/** Each outcome's tone; its words are the page's `outcome.{status}` (i18n/en.ts), naming the provider. */
export const OUTCOMES: Record<OutcomeStatus, { readonly tone: Tone; readonly text: (label: string) => string }> = {
  unavailable: { tone: "bad", text: (provider) => w("outcome.unavailable", { provider }) },
  cancelled: { tone: "info", text: (provider) => w("outcome.cancelled", { provider }) },
  error: { tone: "bad", text: (provider) => w("outcome.error", { provider }) },
  linked: { tone: "good", text: (provider) => w("outcome.linked", { provider }) },
  taken: { tone: "bad", text: (provider) => w("outcome.taken", { provider }) },
  already: { tone: "bad", text: (provider) => w("outcome.already", { provider }) },
  noemail: { tone: "bad", text: (provider) => w("outcome.noemail", { provider }) },
  unverified: { tone: "bad", text: (provider) => w("outcome.unverified", { provider }) },
  inactive: { tone: "bad", text: (provider) => w("outcome.inactive", { provider }) },
  mismatch: { tone: "bad", text: (provider) => w("outcome.mismatch", { provider }) },
  created: { tone: "good", text: (provider) => w("outcome.created", { provider }) },
  signedin: { tone: "good", text: (provider) => w("outcome.signedin", { provider }) }
}

export const isOutcome = (s: string): s is OutcomeStatus => Object.hasOwn(OUTCOMES, s)

/** The outcome in the address: `oauth` and `provider`, or the legacy `chat=` parameter. */
export const outcomeOf = (search: string): { readonly status: string; readonly provider: string } | null => {
  const q = new URLSearchParams(search)
  const status = q.get("oauth") ?? q.get("chat")
  if (status === null || status === "") return null
  return { status, provider: q.get("provider") ?? (q.get("oauth") === null ? "chat" : "") }
}

export const outcomeMessage = (status: string, label: string): { readonly tone: Tone; readonly text: string } =>
  isOutcome(status)
    ? { tone: OUTCOMES[status].tone, text: OUTCOMES[status].text(label) }
    : { tone: "bad", text: w("outcome.unknown", { status }) }
