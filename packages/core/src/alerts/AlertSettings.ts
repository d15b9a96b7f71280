import * as Context from "effect/Context"

/** Deployment settings of alerts (CONTRACT.md §9), from the server's configuration. */
export interface AlertSettingsShape {
  /** The watched days run from today to today + daysAhead. */
  readonly daysAhead: number
  /** CHAT_BOT_TOKEN and CHAT_API_URL are both set: messages are sent. */
  readonly deliveryConfigured: boolean
  /** `{PUBLIC_ORIGIN}` of the links in messages. */
  readonly siteOrigin: string
  readonly basePath: string
  /** At most this long between two evaluations of every watched cell. */
  readonly evaluateEveryMs: number
  /** The first retry's wait; each further failure doubles it, up to an hour. */
  readonly retryBaseMs: number
  /** How long a message is retried before it is marked failed (24 hours). */
  readonly retryForMs: number
  /** How often the outbox is looked at when nothing wakes the sender (messages queued elsewhere). */
  readonly pollMs: number
  /** How long a claimed message is held for one sending attempt before another may take it. */
  readonly leaseMs: number
  /** Watches per user. */
  readonly watchLimit: number
}

export class AlertSettings extends Context.Tag("@climate-grade/core/AlertSettings")<AlertSettings, AlertSettingsShape>() {}

export const WATCH_LIMIT = 20
export const RETRY_FOR_MS = 24 * 60 * 60 * 1000
