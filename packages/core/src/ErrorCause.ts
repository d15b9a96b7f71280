/** Reading what a thrown error says, down its `cause` chain (drivers and fetch wrap the real failure). */

/** The errors of `error`'s cause chain, outermost first, at most `depth` of them (a chain may loop). */
export const chain = (error: unknown, depth = 8): ReadonlyArray<Record<string, unknown>> => {
  const out: Array<Record<string, unknown>> = []
  let current: unknown = error
  while (out.length < depth && typeof current === "object" && current !== null && !out.includes(current as Record<string, unknown>)) {
    out.push(current as Record<string, unknown>)
    current = (current as { cause?: unknown }).cause
  }
  return out
}

/** The first string value of `field` down the chain (a `code`, a SQLSTATE), or undefined. */
export const find = (error: unknown, field: string, depth?: number): string | undefined => {
  for (const e of chain(error, depth)) {
    const value = e[field]
    if (typeof value === "string") return value
  }
  return undefined
}

/** An error's message with its code when the message does not already say it: "… does not exist (3D000)". */
export const withCode = (error: unknown): string => {
  const e = error as { code?: unknown; message?: unknown } | null
  const code = typeof e?.code === "string" ? e.code : undefined
  const message = typeof e?.message === "string" && e.message !== "" ? e.message : String(error)
  return code === undefined || message.includes(code) ? message : `${message} (${code})`
}

/** The innermost error of the chain (what actually failed), with its code. */
export const innermost = (error: unknown, depth = 6): string => {
  const all = chain(error, depth)
  return withCode(all.length === 0 ? error : all[all.length - 1])
}
