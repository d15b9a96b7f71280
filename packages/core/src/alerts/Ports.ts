/**
 * The ports alerts run over: where watches, alerts and the outbox live (tables in
 * PostgreSQL or PGlite) and the chat provider's bot API. Infrastructure faults are defects at
 * the adapter edge; the error channels carry only what the rules decide on.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { UserId } from "../accounts/Domain.js"
import type { Cell } from "../Cell.js"
import type * as CivilDate from "../CivilDate.js"
import type { Grade } from "../data/Payloads.js"
import type { Variable } from "../weather/DailySeries.js"
import type { SpellSeverity } from "../spells/SpellWords.js"
import type { DailyKind, Kind, SpellKind } from "./Kinds.js"

export interface Watch {
  readonly id: string
  readonly userId: UserId
  /** The point the user chose; the alert's link opens the main page there. */
  readonly lat: number
  readonly lon: number
  readonly cell: Cell
  /** The cell's place label, when one is known. */
  readonly label: string | null
  readonly kinds: ReadonlyArray<Kind>
  readonly createdAt: Date
}

/** The user has as many watches as allowed already. */
export class WatchLimitReached extends Schema.TaggedError<WatchLimitReached>()("WatchLimitReached", {
  limit: Schema.Number
}) {}

export class Watches extends Context.Tag("@climate-grade/core/Watches")<
  Watches,
  {
    readonly list: (userId: UserId) => Effect.Effect<ReadonlyArray<Watch>>
    /**
     * One watch per user and cell: a new cell adds one (`created`), a watched cell gets the
     * new kinds and keeps its id. Past `limit` watches a new cell is refused; the count and the
     * insert are one step, so parallel requests cannot pass the limit together.
     */
    readonly upsert: (
      userId: UserId,
      watch: { readonly lat: number; readonly lon: number; readonly cell: Cell; readonly kinds: ReadonlyArray<Kind> },
      limit: number
    ) => Effect.Effect<{ readonly watch: Watch; readonly created: boolean }, WatchLimitReached>
    /** `removed`; `absent` (no such watch: removing is idempotent); `foreign` (another user's). */
    readonly remove: (userId: UserId, id: string) => Effect.Effect<"removed" | "absent" | "foreign">
    readonly forCell: (cellKey: string) => Effect.Effect<ReadonlyArray<Watch>>
    /** Every cell someone watches. */
    readonly cells: Effect.Effect<ReadonlyArray<Cell>>
  }
>() {}

export interface NewAlert {
  readonly watchId: string
  readonly userId: UserId
  readonly date: CivilDate.EpochDay
  readonly kind: DailyKind
  readonly variable: Variable
  readonly grade: Grade
  readonly content: string
  /** Epoch ms of the evaluation that made it; the outbox's 24-hour window starts here. */
  readonly at: number
}

/** A heat wave's or cold spell's alert: one per watch and spell, the spell's days as last seen. */
export interface NewSpellAlert {
  readonly watchId: string
  readonly userId: UserId
  readonly kind: SpellKind
  readonly start: CivilDate.EpochDay
  readonly end: CivilDate.EpochDay
  readonly severity: SpellSeverity
  /** Its `rank_peak` and `of` when the alert was made. */
  readonly rank: number
  readonly of: number
  readonly content: string
  readonly at: number
}

/** What became of an alert: queued for sending, or recorded without a message. */
export type Delivery = "queued" | "muted" | "off"

export interface SentAlert {
  readonly id: string
  readonly watchId: string
  readonly lat: number
  readonly lon: number
  readonly label: string | null
  /** The day that qualified; a spell's first day. */
  readonly date: CivilDate.EpochDay
  readonly kind: Kind
  /** Null for a spell's alert. */
  readonly variable: Variable | null
  readonly grade: Grade | null
  /** A spell's alert: its days as last seen and its severity. */
  readonly spell?: { readonly start: CivilDate.EpochDay; readonly end: CivilDate.EpochDay; readonly severity: SpellSeverity }
  readonly content: string
  readonly createdAt: Date
  /** `muted`/`off` as recorded; else the message's state in the outbox. */
  readonly status: "muted" | "off" | "pending" | "sent" | "failed" | "dropped"
  readonly sentAt: Date | null
}

export class AlertLog extends Context.Tag("@climate-grade/core/AlertLog")<
  AlertLog,
  {
    /** The (date, kind) keys (`Qualifying.alertKey`) of the watch's alerts dated `from` or later. */
    readonly madeSince: (watchId: string, from: CivilDate.EpochDay) => Effect.Effect<ReadonlySet<string>>
    /**
     * Records the alert unless the watch has one for its (date, kind) already, and with it, when
     * `delivery` is `queued`, its message in the outbox — in one transaction. True when created.
     */
    readonly record: (alert: NewAlert, delivery: Delivery) => Effect.Effect<boolean>
    /**
     * Records a spell's alert unless the watch has one of its kind whose days overlap it: that
     * is the same spell, moved by a newer forecast, and its days become these (so a spell that
     * keeps moving stays one spell). The check and the write hold the watch's row, so instances
     * evaluating the cell at once record it once. With `queued`, its message goes to the outbox
     * in the same transaction. True when created.
     */
    readonly recordSpell: (alert: NewSpellAlert, delivery: Delivery) => Effect.Effect<boolean>
    /** The user's latest alerts, newest first. */
    readonly recent: (userId: UserId, limit: number) => Effect.Effect<ReadonlyArray<SentAlert>>
  }
>() {}

/** A message claimed for sending. */
export interface OutboxMessage {
  readonly id: string
  /** The alert it announces (one message per alert): what its provider nonce is made from. */
  readonly alertId: string
  readonly userId: UserId
  readonly content: string
  /** Sending attempts, this one included. */
  readonly attempts: number
  /** Epoch ms the message was queued; retries stop 24 hours after it. */
  readonly createdAt: number
}

export interface OutboxStats {
  readonly pending: number
  readonly failed: number
  /** Epoch ms of the oldest pending message, if any. */
  readonly oldestPending: number | null
}

export class Outbox extends Context.Tag("@climate-grade/core/Outbox")<
  Outbox,
  {
    /**
     * Claims up to `limit` due messages (pending, due by `now`, no live claim) until `leaseUntil`,
     * skipping rows another instance is claiming (`FOR UPDATE SKIP LOCKED`). A claim that outlives
     * its lease (a crash mid-send) is taken again: a message may repeat, never be lost.
     */
    readonly claim: (now: number, leaseUntil: number, limit: number) => Effect.Effect<ReadonlyArray<OutboxMessage>>
    readonly markSent: (id: string, at: number) => Effect.Effect<void>
    /** Back to pending, due at `dueAt`, with the reason of the failure. */
    readonly retry: (id: string, dueAt: number, error: string) => Effect.Effect<void>
    /** Given up: 24 hours of failures. */
    readonly markFailed: (id: string, error: string) => Effect.Effect<void>
    /** Not sent because the user muted or unlinked chat meanwhile. */
    readonly drop: (id: string, reason: string) => Effect.Effect<void>
    /** A claim ended without an outcome (shutdown): due again at once, attempt not counted. */
    readonly release: (id: string) => Effect.Effect<void>
    /** When the next pending message is due (epoch ms), if any. */
    readonly nextDue: Effect.Effect<number | null>
    readonly stats: Effect.Effect<OutboxStats>
  }
>() {}

/** The provider asked to wait (HTTP 429). */
export class ChatRateLimited extends Schema.TaggedError<ChatRateLimited>()("ChatRateLimited", {
  retryAfterMs: Schema.Number
}) {}

/** Any other failure: a status, a network fault, a timeout, a malformed answer. */
export class ChatFailure extends Schema.TaggedError<ChatFailure>()("ChatFailure", { reason: Schema.String }) {}

/**
 * The chat provider's bot API: a direct message to a user by their chat id. `nonce` (at most 25
 * characters, the same on every attempt of one message) lets the provider recognise a resend:
 * within its window it answers with the message it made, rather than making a second.
 */
export class ChatBot extends Context.Tag("@climate-grade/core/ChatBot")<
  ChatBot,
  {
    readonly send: (recipientId: string, content: string, nonce: string) => Effect.Effect<void, ChatRateLimited | ChatFailure>
  }
>() {}
