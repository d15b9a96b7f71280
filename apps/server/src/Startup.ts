/**
 * What stops a start: one line for the operator, never a stack trace. A start-up failure is a
 * failure or defect of the layers (listening, opening or migrating the database, the DATA_DIR
 * lock) before the service runs.
 */
import { ErrorCause } from "@climate-grade/core"
import * as Cause from "effect/Cause"
import * as Option from "effect/Option"

interface Described {
  readonly _tag?: unknown
  readonly message?: unknown
  readonly cause?: unknown
  readonly code?: unknown
  readonly address?: unknown
  readonly port?: unknown
}

const text = (u: unknown): string => {
  const e = u as Described | null
  return typeof e?.message === "string" && e.message !== "" ? e.message : String(u)
}

/** The innermost cause's message with its code, down a chain of `cause`s. */
const root = (u: unknown): string => ErrorCause.innermost(u)

export const describeError = (error: unknown): string => {
  const e = error as Described | null
  switch (e?._tag) {
    case "ServeError": {
      const cause = e.cause as Described | undefined
      const code = typeof cause?.code === "string" ? cause.code : undefined
      if (code === "EADDRINUSE") return `Cannot listen: the address is in use (${root(e)}); stop what holds it or set PORT`
      return `Cannot listen: ${root(e)}`
    }
    case "SqlError": {
      const cause = root(e.cause)
      return cause === text(e) ? `Database: ${text(e)}` : `Database: ${text(e)}: ${cause}`
    }
    case "DataDirLocked":
    case "DataDirRefused":
      return text(e)
    default:
      return `Cannot start: ${root(error)}`
  }
}

export const describeStartupFailure = (cause: Cause.Cause<unknown>): string =>
  describeError(Option.getOrElse(Cause.failureOption(cause), () => Cause.squash(cause))).replace(/\s*\n\s*/g, " ")
