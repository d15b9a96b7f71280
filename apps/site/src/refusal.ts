/**
 * What a failed request means, for a person: the server's own `detail` when it refused (a 4xx, a
 * 503), how long to wait (`Retry-After`), and for the day's weather budget, which opens again at
 * 00:00 UTC, that moment in the person's own time. Plain words everywhere else; never an internal
 * code. Pure: the clock and the time zone are arguments.
 */

/** What the site knows of a failure: the client library's errors, or a plain fetch's answer. */
export interface Failure {
  /** The HTTP status; null when no answer came (no network, a refused connection, a timeout). */
  readonly status: number | null
  readonly detail: string | null
  /** Seconds, from `Retry-After`. */
  readonly retryAfter: number | null
}

/** The client library's errors (`RequestRejected`, `ServerError`, `NetworkError`, `BadPayload`) as a Failure. */
export const failureOf = (error: unknown): Failure | "bad-payload" => {
  if (typeof error === "object" && error !== null) {
    const e = error as { _tag?: unknown; status?: unknown; detail?: unknown; retryAfter?: unknown }
    if (e._tag === "BadPayload") return "bad-payload"
    if ((e._tag === "RequestRejected" || e._tag === "ServerError") && typeof e.status === "number") {
      return {
        status: e.status,
        detail: typeof e.detail === "string" ? e.detail : null,
        retryAfter: typeof e.retryAfter === "number" && Number.isFinite(e.retryAfter) ? e.retryAfter : null
      }
    }
  }
  return { status: null, detail: null, retryAfter: null }
}

/** A detail a person can read; null for an internal code ("LOGIN_BAD_CREDENTIALS") or nothing. */
export const plainDetail = (detail: string | null | undefined): string | null => {
  const text = detail?.trim() ?? ""
  if (text === "" || /^[A-Z][A-Z0-9_.:-]*$/.test(text)) return null
  return /[.!?]$/.test(text) ? text : `${text}.`
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** "45 seconds", "3 minutes", "5 hours and 20 minutes". */
export const waitWords = (seconds: number): string => {
  const s = Math.max(1, Math.ceil(seconds))
  if (s < 60) return plural(s, "second")
  if (s < 3600) return plural(Math.ceil(s / 60), "minute")
  const minutes = Math.round(s / 60)
  const hours = Math.floor(minutes / 60)
  const rest = minutes % 60
  return rest === 0 ? plural(hours, "hour") : `${plural(hours, "hour")} and ${plural(rest, "minute")}`
}

const DAY_MS = 86_400_000

/**
 * When a wait ends at a UTC midnight, the moment it opens (epoch ms); else null. The day's budget
 * (and a share of it) is the only wait that runs to 00:00 UTC; a rate limit's is seconds or minutes.
 */
export const dayBoundary = (now: number, retryAfter: number | null): number | null => {
  if (retryAfter === null || retryAfter < 120) return null
  const at = now + retryAfter * 1000
  const midnight = Math.round(at / DAY_MS) * DAY_MS
  return Math.abs(at - midnight) <= 90_000 ? midnight : null
}

/** "09:00" (or "9:00 AM": the person's locale), and "tomorrow" when that is another day where they are. */
export const localMoment = (at: number, now: number, options: { readonly timeZone?: string; readonly locale?: string } = {}): string => {
  const zone = options.timeZone === undefined ? {} : { timeZone: options.timeZone }
  const time = new Intl.DateTimeFormat(options.locale, { hour: "2-digit", minute: "2-digit", ...zone }).format(new Date(at))
  const day = new Intl.DateTimeFormat("en-CA", { year: "numeric", month: "2-digit", day: "2-digit", ...zone })
  return day.format(new Date(at)) === day.format(new Date(now)) ? `${time} today` : `${time} tomorrow`
}

export interface Context {
  readonly now: number
  readonly timeZone?: string
  readonly locale?: string
}

/** The sentence about waiting: the budget's local time, else "Try again in …". */
const waitSentence = (failure: Failure, context: Context, what: string): string | null => {
  const opens = dayBoundary(context.now, failure.retryAfter)
  if (opens !== null) {
    return `${what} can be loaded again from ${localMoment(opens, context.now, context)} your time (in ${waitWords((opens - context.now) / 1000)}).`
  }
  return failure.retryAfter === null ? null : `Try again in ${waitWords(failure.retryAfter)}.`
}

const join = (...parts: ReadonlyArray<string | null>) => parts.filter((p) => p !== null).join(" ")

/** Why a place's weather could not be loaded. */
export const loadFailureWords = (error: unknown, context: Context): string => {
  const failure = failureOf(error)
  if (failure === "bad-payload") return "The weather service sent an answer this page does not understand. Reload the page."
  const { status, detail } = failure
  if (status === null) return "The weather service could not be reached. Check the connection and try again."
  if (status === 503 || status === 429 || (status >= 400 && status < 500)) {
    const fallback =
      status === 503
        ? "The weather source is busy right now."
        : status === 429
          ? "Too many new places are loading from your network at once."
          : "The weather service refused this place."
    return join(plainDetail(detail) ?? fallback, waitSentence(failure, context, "New places") ?? (status === 503 ? "Try again in a minute." : null))
  }
  if (status === 504) return "The weather source took too long to answer. Try again in a minute."
  if (status === 502) return "The weather source failed to answer properly. Try again in a few minutes."
  return "Something went wrong on the weather service's side. Try again later."
}

const ELSEWHERE = "or pick the place on the map or by its coordinates."

/** Why the place search failed (no transport codes: the server's 5xx details name its upstream). */
export const searchFailureWords = (failure: Failure): string => {
  const { status, detail } = failure
  if (status === null) return `The place search could not be reached. Check the connection, ${ELSEWHERE}`
  if (status >= 400 && status < 500 && status !== 429) return plainDetail(detail) ?? "The place search did not accept that name."
  const wait = failure.retryAfter === null ? null : waitWords(failure.retryAfter)
  if (status === 429) return `You have searched a lot at once. Try again in ${wait ?? "a minute"}, ${ELSEWHERE}`
  if (status === 503) return `The place search is busy right now. Try again in ${wait ?? "a minute"}, ${ELSEWHERE}`
  if (status === 504) return `The place search took too long to answer. Try again in a minute, ${ELSEWHERE}`
  return `The place search is not working right now. Try again later, ${ELSEWHERE}`
}
