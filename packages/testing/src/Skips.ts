/**
 * What a run skipped, and why, said at its end (vitest.global.ts prints it): a test that cannot
 * run on this machine (no browser, no nginx, no scipy, no PostgreSQL) skips, and a green run must
 * not read as if it had run. The global setup names a file in the environment the test processes
 * inherit; each skip appends its reason there.
 */
import { appendFileSync, readFileSync } from "node:fs"

export const ENV = "CLIMATE_GRADE_SKIPS"

/** Records that `what` is skipped on this machine because of `why`. */
export const note = (what: string, why: string): void => {
  const file = process.env[ENV]
  if (file === undefined) return
  try {
    appendFileSync(file, `${JSON.stringify({ what, why })}\n`)
  } catch {
    // A summary line is not worth failing a test for.
  }
}

/** `condition`, noting `what` and `why` when it is false: `describe.runIf(Skips.unless(…))`. */
export const unless = (condition: boolean, what: string, why: string): boolean => {
  if (!condition) note(what, why)
  return condition
}

/** The skips recorded in `file`, each once. */
export const read = (file: string): Array<{ readonly what: string; readonly why: string }> => {
  let text = ""
  try {
    text = readFileSync(file, "utf8")
  } catch {
    return []
  }
  const seen = new Map<string, { what: string; why: string }>()
  for (const line of text.split("\n")) {
    if (line === "") continue
    const { what, why } = JSON.parse(line) as { what: string; why: string }
    seen.set(`${what}\0${why}`, { what, why })
  }
  return [...seen.values()]
}

/**
 * What the end of a run says: loudly when the PostgreSQL half did not run (the database tests then
 * ran on PGlite only, and a green run proves nothing about the server), then every skip and its
 * reason, that half among them, so the list never reads "nothing" beside the banner.
 */
export const summary = (skipped: ReadonlyArray<{ readonly what: string; readonly why: string }>, onPostgres: boolean): string => {
  const lines: Array<string> = []
  const all = onPostgres ? skipped : [{ what: "every database test on PostgreSQL (they ran on PGlite only)", why: "no DATABASE_URL and no Docker engine" }, ...skipped]
  if (!onPostgres) {
    const line = "=".repeat(78)
    lines.push(
      "",
      line,
      "  POSTGRESQL TESTS DID NOT RUN: no DATABASE_URL and no Docker engine.",
      "  Every database test ran on PGlite only. To run both halves:",
      "    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres pnpm test",
      line
    )
  }
  lines.push("")
  if (all.length === 0) {
    lines.push("Skipped in this run for want of something on this machine: nothing.")
  } else {
    lines.push("Skipped in this run, and why:")
    for (const { what, why } of all) lines.push(`  - ${what}: ${why}`)
  }
  lines.push("")
  return lines.join("\n")
}
