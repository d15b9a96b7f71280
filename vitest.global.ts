/**
 * Before the run: this machine's template of a new embedded database (packages/postgres/src/
 * initdb.mjs), made once here rather than by the first test files that each need one.
 *
 * At the very end of a run: what was skipped on this machine and why (each test that cannot run
 * here notes it: see packages/testing/src/Skips.ts), and loudly when the PostgreSQL half did not
 * run: the database tests then ran on PGlite only, and a green run proves nothing about the server.
 * (Set DATABASE_URL, as README and .ci/run do, or have a Docker engine for testcontainers.)
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Skips from "@climate-grade/testing/Skips"
import { backends } from "@climate-grade/testing/TestDatabase"

export default function setup() {
  spawnSync(process.execPath, [createRequire(import.meta.url).resolve("@climate-grade/postgres/initdb.mjs"), "--template"], {
    stdio: ["ignore", "ignore", "inherit"]
  })
  const dir = mkdtempSync(join(tmpdir(), "climate-grade-skips-"))
  // The test processes are started after this, with this environment.
  process.env[Skips.ENV] = join(dir, "skips.jsonl")
  return () => {
    const skipped = Skips.read(process.env[Skips.ENV]!)
    rmSync(dir, { recursive: true, force: true })
    process.stderr.write(Skips.summary(skipped, backends.some((b) => b.name === "postgres")))
  }
}
