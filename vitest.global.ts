/**
 * Says loudly, at the very end of a run, when the PostgreSQL half of the suite did not run: the
 * database tests then ran on PGlite only, and a green run proves nothing about the server.
 * (Set DATABASE_URL, as README and .ci/run do, or have a Docker engine for testcontainers.)
 */
import { spawnSync } from "node:child_process"
import { createRequire } from "node:module"
import { backends } from "@climate-grade/testing/TestDatabase"

export default function setup() {
  // This machine's template of a new embedded database (packages/postgres/src/initdb.mjs), made
  // once here rather than by the first test files that each need one.
  spawnSync(process.execPath, [createRequire(import.meta.url).resolve("@climate-grade/postgres/initdb.mjs"), "--template"], {
    stdio: ["ignore", "ignore", "inherit"]
  })
  return () => {
    if (backends.some((b) => b.name === "postgres")) return
    const line = "=".repeat(78)
    process.stderr.write(
      [
        "",
        line,
        "  POSTGRESQL TESTS DID NOT RUN: no DATABASE_URL and no Docker engine.",
        "  Every database test ran on PGlite only. To run both halves:",
        "    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres pnpm test",
        line,
        ""
      ].join("\n")
    )
  }
}
