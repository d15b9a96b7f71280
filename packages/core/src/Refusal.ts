/**
 * What a refusal says to a program. Every 4xx and 5xx body of the service is
 * `{"detail": "…", "code": "…"}`, plus `"retry_at"` (RFC 3339, UTC) wherever the answer sends
 * `Retry-After`: people read `detail`, programs decide by `code`, which never changes meaning.
 * The table below is the whole set, with the status each code comes with; the server sends no
 * other, its OpenAPI document lists them per error response, and the client library and the site
 * read them from here. Browser-safe: no IO, no `effect`.
 */

export const CODES = {
  "bad-request": { status: 400, meaning: "The request is not valid HTTP, or cannot be read (an unreadable body)." },
  "invalid-query": {
    status: 400,
    meaning: "A query parameter is missing, repeated, malformed or out of range (the detail names it)."
  },
  "invalid-body": {
    status: 400,
    meaning: "The request body is not the route's shape: not JSON, a field missing or of the wrong type (the detail names it)."
  },
  "invalid-text": {
    status: 400,
    meaning: "A path segment, query parameter or body string holds a NUL character or an unpaired surrogate."
  },
  "bad-credentials": {
    status: 400,
    meaning: "Sign-in refused: unknown e-mail, wrong password, inactive account, or an account without a password."
  },
  unauthorized: { status: 401, meaning: "No valid session (or metrics token), or the user is inactive." },
  forbidden: { status: 403, meaning: "A browser request from another site, or a metrics request without permission." },
  "not-found": { status: 404, meaning: "No such route or resource (a provider, a watch)." },
  "no-history": { status: 404, meaning: "The weather source holds no history for this cell." },
  "not-held": { status: 404, meaning: "Nothing is held for this place yet (its card): open it on the site first." },
  "method-not-allowed": { status: 405, meaning: "The method is not answered on this path." },
  "request-timeout": { status: 408, meaning: "The request's headers or body did not arrive in time." },
  "watch-limit-reached": { status: 409, meaning: "The user watches as many places as allowed." },
  "last-sign-in": { status: 409, meaning: "Unlinking this provider would leave the account no way to sign in." },
  "chat-not-linked": { status: 409, meaning: "Direct messages need the chat provider linked first." },
  "payload-too-large": { status: 413, meaning: "The request body is larger than 64 KB." },
  "unsupported-media-type": { status: 415, meaning: "A request body that is not Content-Type: application/json." },
  "client-share-spent": {
    status: 429,
    meaning: "This client's (or user's) share of the day's weather budget is spent; others may go on. Wait until retry_at."
  },
  "cold-cells-busy": {
    status: 429,
    meaning: "This client is already loading as many new places as allowed at once. Wait until retry_at."
  },
  "too-many-requests": {
    status: 429,
    meaning: "This client is past a limit of its own (sign-in attempts, cards drawn at once, place searches waiting, prefetches of places not held). Wait until retry_at."
  },
  "headers-too-large": { status: 431, meaning: "The request's headers are too large." },
  "internal-error": { status: 500, meaning: "An unexpected fault, logged." },
  "database-fault": {
    status: 500,
    meaning: "The database refused the request's statements for a reason other than being unreachable (logged); retrying will not help."
  },
  "upstream-failed": { status: 502, meaning: "The weather source or geocoder failed, or answered something unreadable." },
  "budget-spent": {
    status: 503,
    meaning: "The day's budget of weather-source calls is spent; new places load again at retry_at (00:00 UTC)."
  },
  "rate-limited": { status: 503, meaning: "The weather source is rate-limiting this service. Wait until retry_at." },
  "database-unavailable": { status: 503, meaning: "The database does not answer (or a core table cannot be read)." },
  busy: {
    status: 503,
    meaning: "This instance has too much waiting (cards to draw, place searches for the geocoder). Wait until retry_at."
  },
  "too-many-connections": { status: 503, meaning: "This client has too many connections open at once." },
  "shutting-down": { status: 503, meaning: "This instance is shutting down; another one will answer." },
  "upstream-timeout": { status: 504, meaning: "The weather source or geocoder did not answer in time." }
} as const satisfies Record<string, { readonly status: number; readonly meaning: string }>

export type Code = keyof typeof CODES

export const ALL: ReadonlyArray<Code> = Object.keys(CODES) as Array<Code>

/** The codes that come with `status`. */
export type CodeOf<S extends number> = { [C in Code]: (typeof CODES)[C]["status"] extends S ? C : never }[Code]

export const codesOf = <S extends number>(status: S): ReadonlyArray<CodeOf<S>> =>
  ALL.filter((code) => CODES[code].status === status) as Array<CodeOf<S>>

export const isCode = (u: unknown): u is Code => typeof u === "string" && Object.hasOwn(CODES, u)

/**
 * The refusals that say "not now" rather than "not this": the same request will be answered once
 * the wait (`retry_at`) is over. A client keeps what it holds for them.
 */
export const WAITS: ReadonlySet<Code> = new Set<Code>([
  "client-share-spent",
  "cold-cells-busy",
  "too-many-requests",
  "budget-spent",
  "rate-limited",
  "busy",
  "too-many-connections",
  "database-unavailable",
  "shutting-down"
])

export const isWait = (code: Code | null | undefined): boolean => code != null && WAITS.has(code)

/** A refusal's `code`, `detail` and `retry_at` (epoch ms) read from its body's text; null for what it lacks. */
export const read = (
  text: string | null | undefined
): { readonly code: Code | null; readonly detail: string | null; readonly retryAt: number | null } => {
  let body: unknown = null
  try {
    body = text == null || text === "" ? null : JSON.parse(text)
  } catch {
    body = null // not JSON
  }
  const { code, detail, retry_at } = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>
  const at = typeof retry_at === "string" ? Date.parse(retry_at) : Number.NaN
  return {
    code: isCode(code) ? code : null,
    detail: typeof detail === "string" ? detail : null,
    retryAt: Number.isNaN(at) ? null : at
  }
}

/** The moment a wait of `seconds` from `now` (epoch ms) ends, as RFC 3339 in UTC, to the second (rounded up). */
export const retryAt = (now: number, seconds: number): string =>
  new Date(Math.ceil((now + seconds * 1000) / 1000) * 1000).toISOString().replace(".000Z", "Z")

/** A refusal's body. */
export interface Body {
  readonly detail: string
  readonly code: Code
  readonly retry_at?: string
}

export const body = (code: Code, detail: string, retry_at?: string): Body =>
  retry_at === undefined ? { detail, code } : { detail, code, retry_at }

/** A refusal's body as JSON text, for the answers written below the API (the edge). */
export const json = (code: Code, detail: string, retry_at?: string): string => JSON.stringify(body(code, detail, retry_at))
