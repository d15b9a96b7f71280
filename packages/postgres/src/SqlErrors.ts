import type { SqlError } from "@effect/sql/SqlError"

interface PgErrorFields {
  readonly code?: unknown
  readonly constraint?: unknown
}

/**
 * The name of the unique constraint a statement violated (SQLSTATE 23505), if that is
 * why it failed. node-postgres and PGlite both surface `code` and `constraint` on the cause.
 */
export const uniqueViolation = (error: SqlError): string | undefined => {
  const cause = error.cause as PgErrorFields | null | undefined
  if (cause === null || typeof cause !== "object" || cause.code !== "23505") return undefined
  return typeof cause.constraint === "string" ? cause.constraint : ""
}

/**
 * The SQLSTATE the server reported with a failure, if it reported one: node-postgres's and
 * PGlite's errors both carry `code` and `severity`; a failure with neither (no connection, no
 * answer in time, the embedded engine gone) was never answered by the server.
 */
export const sqlState = (error: SqlError): string | undefined => {
  const cause = error.cause as { readonly code?: unknown; readonly severity?: unknown } | null | undefined
  if (cause === null || typeof cause !== "object") return undefined
  return typeof cause.code === "string" && /^[0-9A-Z]{5}$/.test(cause.code) && typeof cause.severity === "string"
    ? cause.code
    : undefined
}

/** The name of the foreign key a statement violated (SQLSTATE 23503), if that is why it failed. */
export const foreignKeyViolation = (error: SqlError): string | undefined => {
  const cause = error.cause as PgErrorFields | null | undefined
  if (cause === null || typeof cause !== "object" || cause.code !== "23503") return undefined
  return typeof cause.constraint === "string" ? cause.constraint : ""
}
