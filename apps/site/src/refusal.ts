/**
 * What a failed request means, for a person: the server's own `detail` when it refused (a 4xx, a
 * 503), how long to wait (`retry_at`, else `Retry-After`), and for the day's weather budget (its
 * `code` says so: `budget-spent`, `client-share-spent`) the moment it opens again in the person's
 * own time. Decided by the refusal's `code` (core `Refusal`), by the status only for an answer
 * that carries none (a proxy's). Plain words everywhere else; never an internal code. The words are
 * the page's language's (i18n/); the server's `detail` is English, so only the English page shows it.
 * Pure but for the page's language: the clock and the time zone are arguments.
 */
import { Refusal } from "@climate-grade/core/rules"
import { lang } from "./i18n/index.js"
import { w } from "./i18n/later.js"

/** What the site knows of a failure: the client library's errors, or a plain fetch's answer. */
export interface Failure {
  /** The HTTP status; null when no answer came (no network, a refused connection, a timeout). */
  readonly status: number | null
  readonly detail: string | null
  /** The refusal's code; null when the answer had none (or no answer came). */
  readonly code?: Refusal.Code | null
  /** When the wait ends (epoch ms), from `retry_at`; null when not sent. */
  readonly retryAt?: number | null
  /** Seconds, from `Retry-After`. */
  readonly retryAfter: number | null
}

/** The client library's errors (`RequestRejected`, `ServerError`, `NetworkError`, `BadPayload`) as a Failure. */
export const failureOf = (error: unknown): Failure | "bad-payload" => {
  if (typeof error === "object" && error !== null) {
    const e = error as { _tag?: unknown; status?: unknown; detail?: unknown; code?: unknown; retryAt?: unknown; retryAfter?: unknown }
    if (e._tag === "BadPayload") return "bad-payload"
    if ((e._tag === "RequestRejected" || e._tag === "ServerError") && typeof e.status === "number") {
      return {
        status: e.status,
        detail: typeof e.detail === "string" ? e.detail : null,
        code: Refusal.isCode(e.code) ? e.code : null,
        retryAt: typeof e.retryAt === "number" && Number.isFinite(e.retryAt) ? e.retryAt : null,
        retryAfter: typeof e.retryAfter === "number" && Number.isFinite(e.retryAfter) ? e.retryAfter : null
      }
    }
  }
  return { status: null, detail: null, code: null, retryAt: null, retryAfter: null }
}

/**
 * A detail a person can read; null for an internal code ("LOGIN_BAD_CREDENTIALS") or nothing, and
 * null on a page in another language than English: the API's details are English (programs read
 * `code`), so such a page says its own words instead.
 */
export const plainDetail = (detail: string | null | undefined): string | null => {
  const text = detail?.trim() ?? ""
  if (text === "" || /^[A-Z][A-Z0-9_.:-]*$/.test(text) || lang() !== "en") return null
  return /[.!?]$/.test(text) ? text : `${text}.`
}

/** "3 minutes", "3 Minuten", "دقيقتان": Intl's long unit names carry each language's plural forms. */
const plural = (n: number, unit: "second" | "minute" | "hour") =>
  new Intl.NumberFormat(lang(), { style: "unit", unit, unitDisplay: "long" }).format(n)

/** "45 seconds", "3 minutes", "5 hours and 20 minutes" (in the page's language). */
export const waitWords = (seconds: number): string => {
  const s = Math.max(1, Math.ceil(seconds))
  if (s < 60) return plural(s, "second")
  if (s < 3600) return plural(Math.ceil(s / 60), "minute")
  const minutes = Math.round(s / 60)
  const hours = Math.floor(minutes / 60)
  const rest = minutes % 60
  return rest === 0 ? plural(hours, "hour") : w("wait.and", { first: plural(hours, "hour"), second: plural(rest, "minute") })
}

/** The refusals that last until the day's weather budget opens again (00:00 UTC). */
const DAY_BUDGET: ReadonlySet<Refusal.Code> = new Set<Refusal.Code>(["budget-spent", "client-share-spent"])

/**
 * Seconds until the wait ends: `Retry-After` when sent (relative, so this machine's clock does not
 * matter, and not cut to the whole second as `retry_at` is), else `retry_at`; null without either.
 */
const secondsLeft = (failure: Failure, now: number): number | null =>
  failure.retryAfter != null ? failure.retryAfter : failure.retryAt != null ? Math.max(0, (failure.retryAt - now) / 1000) : null

/**
 * "09:00" (or "9:00 AM": the person's locale on an English page, else the page's language), and
 * "tomorrow" when that is another day where they are.
 */
export const localMoment = (at: number, now: number, options: { readonly timeZone?: string; readonly locale?: string } = {}): string => {
  const zone = options.timeZone === undefined ? {} : { timeZone: options.timeZone }
  const locale = options.locale ?? (lang() === "en" ? undefined : lang())
  // A 24-hour clock in every language, as the page's other times (`formatStamp`); the sentence says "your time".
  const time = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", hourCycle: "h23", ...zone }).format(new Date(at))
  const day = new Intl.DateTimeFormat("en-CA", { year: "numeric", month: "2-digit", day: "2-digit", ...zone })
  return w(day.format(new Date(at)) === day.format(new Date(now)) ? "moment.today" : "moment.tomorrow", { time })
}

export interface Context {
  readonly now: number
  readonly timeZone?: string
  readonly locale?: string
}

/** The sentence about waiting: for the day's budget the moment it opens in local time, else "Try again in …". */
const waitSentence = (failure: Failure, context: Context): string | null => {
  const left = secondsLeft(failure, context.now)
  if (left === null) return null
  if (failure.code != null && DAY_BUDGET.has(failure.code)) {
    const opens = failure.retryAt ?? context.now + left * 1000
    return w("refusal.opens", { moment: localMoment(opens, context.now, context), wait: waitWords((opens - context.now) / 1000) })
  }
  return w("refusal.try-in", { wait: waitWords(left) })
}

const join = (...parts: ReadonlyArray<string | null>) => parts.filter((p) => p !== null).join(" ")

/** Why a place's weather could not be loaded. */
export const loadFailureWords = (error: unknown, context: Context): string => {
  const failure = failureOf(error)
  if (failure === "bad-payload") return w("refusal.bad-payload")
  const { status, detail, code } = failure
  if (status === null) return w("refusal.unreachable")
  if (code === "upstream-timeout") return w("refusal.timeout")
  if (code === "upstream-failed") return w("refusal.upstream-failed")
  if (status === 503 || status === 429 || (status >= 400 && status < 500)) {
    const fallback =
      code != null && DAY_BUDGET.has(code)
        ? w("refusal.budget")
        : status === 503
          ? w("refusal.busy")
          : status === 429
            ? w("refusal.too-many")
            : w("refusal.refused")
    return join(plainDetail(detail) ?? fallback, waitSentence(failure, context) ?? (status === 503 ? w("refusal.try-minute") : null))
  }
  if (status === 504) return w("refusal.timeout")
  if (status === 502) return w("refusal.upstream-failed")
  return w("refusal.server")
}

/** Why the place search failed (no transport codes: the server's 5xx details name its upstream). */
export const searchFailureWords = (failure: Failure, now: number = Date.now()): string => {
  const { status, detail, code } = failure
  if (status === null) return w("search.failed.unreachable")
  const left = secondsLeft(failure, now)
  const wait = left === null ? w("wait.a-minute") : waitWords(left)
  // A refusal to wait for, by its code (a 429 of this client's, a 503 of everyone's); by the status without one.
  const waiting = code != null ? Refusal.isWait(code) : status === 429 || status === 503
  if (!waiting && status >= 400 && status < 500) return plainDetail(detail) ?? w("search.failed.refused")
  if (waiting && (code === "too-many-requests" || (code == null && status === 429))) return w("search.failed.many", { wait })
  if (waiting) return w("search.failed.busy", { wait })
  if (code === "upstream-timeout" || (code == null && status === 504)) return w("search.failed.timeout")
  return w("search.failed.broken")
}
