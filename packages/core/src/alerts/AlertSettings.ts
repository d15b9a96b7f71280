import * as Context from "effect/Context"

/** Deployment settings of alerts (docs/configuration.md), from the server's configuration. */
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

/** Watches per user (at most 20; `POST /alerts/watches` answers 409 past that). */
export const WATCH_LIMIT = 20

/** Sent alerts `GET /alerts/sent` lists (the account page's "last alerts"), newest first. */
export const RECENT_ALERTS = 20

/**
 * How long a claimed message is held for one sending attempt before another instance may take it:
 * the attempt's two calls (open the DM channel, post the message), each with its timeout, and room
 * to record the outcome. Shorter, and a slow attempt's message could be taken and sent twice.
 */
export const alertLeaseMs = (sendTimeoutMs: number): number => 2 * sendTimeoutMs + 20_000

/** How long a message is retried before it is marked failed (24 hours). */
export const RETRY_FOR_MS = 24 * 60 * 60 * 1000
