/**
 * What each sign-in outcome (docs/api.md, "Accounts and sign-in") means for the person who just came back from the
 * provider, in words. One table, so a status without a message is a type error.
 */
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

export const OUTCOMES: Record<OutcomeStatus, { readonly tone: Tone; readonly text: (label: string) => string }> = {
  unavailable: { tone: "bad", text: (l) => `Signing in with ${l} is not set up on this service, so nothing happened.` },
  cancelled: { tone: "info", text: (l) => `You cancelled at ${l}. Nothing was changed.` },
  error: {
    tone: "bad",
    text: (l) =>
      `Something went wrong with ${l}: the sign-in took too long, was started in another browser, or ${l} did not answer. Nothing was changed; please try again.`
  },
  linked: { tone: "good", text: (l) => `Your ${l} account is linked: you can now sign in with it.` },
  taken: {
    tone: "bad",
    text: (l) =>
      `That ${l} identity belongs to another account here, so it was not linked to this one. Sign in with it to use that account.`
  },
  already: {
    tone: "bad",
    text: (l) => `This account is already linked to a different ${l} identity. Unlink that one first to link another.`
  },
  noemail: {
    tone: "bad",
    text: (l) => `${l} did not share an e-mail address, so no account could be found or created. Allow access to your e-mail at ${l} and try again.`
  },
  unverified: {
    tone: "bad",
    text: (l) => `${l} has not verified your e-mail address, so it cannot be used to sign in. Verify it at ${l}, then try again.`
  },
  inactive: { tone: "bad", text: () => "This account has been deactivated, so it cannot sign in. Contact the operator of this service." },
  mismatch: {
    tone: "bad",
    text: (l) =>
      `Your e-mail address belongs to an account that is linked to a different ${l} identity. Sign in with that ${l} identity instead.`
  },
  created: { tone: "good", text: (l) => `Welcome! A new account was created with your ${l} identity, and you are signed in.` },
  signedin: { tone: "good", text: (l) => `You are signed in with ${l}.` }
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
    : { tone: "bad", text: `Signing in ended in a way this page does not know (“${status}”). Please try again.` }
