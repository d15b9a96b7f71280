import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * What a failed database statement means for the service. `unavailable`: the database cannot be
 * reached or asked to wait (a lost connection, a timeout, a shutdown, a retryable conflict), so
 * the request may well succeed soon (503 with Retry-After). `fault`: the database answered and
 * refused (a damaged page, a broken constraint, text it cannot hold): retrying will not help,
 * and calling it an outage would hide it (500, logged).
 */
export type DatabaseFailure = "unavailable" | "fault"

/**
 * SQLSTATE classes that mean "not now" rather than "no": 08 connection exception, 40 transaction
 * rollback (serialization failure, deadlock), 53 insufficient resources (too many connections,
 * out of memory), 57 operator intervention (statement timeout, shutdown, crash recovery); and
 * 55P03 lock not available.
 */
const TRANSIENT_CLASSES: ReadonlySet<string> = new Set(["08", "40", "53", "57"])

/**
 * The kind of a failure, from the SQLSTATE the server reported with it; a failure without one
 * (no connection, no answer in time, a crashed embedded engine) is `unavailable`.
 */
export const failureKind = (sqlState: string | undefined): DatabaseFailure =>
  sqlState === undefined || sqlState === "55P03" || TRANSIENT_CLASSES.has(sqlState.slice(0, 2)) ? "unavailable" : "fault"

export type HealthStatus =
  | { readonly _tag: "Ok" }
  | { readonly _tag: "Unavailable" }
  /** The database answers, but a core table cannot be read: what the server said. */
  | { readonly _tag: "Fault"; readonly reason: string }

/** Whether the database answers and its core tables can be read, for `/health`. */
export class DatabaseHealth extends Context.Tag("@climate-grade/core/DatabaseHealth")<
  DatabaseHealth,
  { readonly check: Effect.Effect<HealthStatus> }
>() {}
