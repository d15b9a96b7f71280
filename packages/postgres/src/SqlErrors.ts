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
