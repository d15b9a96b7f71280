/**
 * How the embedded database is started: PostgreSQL's settings for one connection in one process,
 * and a new `DATA_DIR` created by a short-lived child process.
 *
 * Measured (RSS of the built server, idle): PGlite's defaults give `shared_buffers` 128 MB, all of
 * it touched at start-up, for a database whose working set is a few MB of rows and whose files
 * the kernel caches anyway; and creating a database (initdb, its own WASM module and 128 MB
 * memory) leaves ~400 MB in the process that are never given back, even after the instance that
 * ran it is closed. So a new `DATA_DIR` is made by a child process (`initdb.mjs`: a copy of this
 * machine's template, about a second; initdb itself only for the template), and every start opens
 * existing files with the settings below.
 */
import { spawn } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { createRequire } from "node:module"
import { join, resolve } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import * as Effect from "effect/Effect"

/**
 * For one connection: no parallel workers (PGlite's own defaults), small shared and temporary
 * buffers, and sorts that spill to (cached) files past 4 MB rather than hold more.
 */
export const SETTINGS: ReadonlyArray<string> = [
  "shared_buffers=16MB",
  "temp_buffers=2MB",
  "wal_buffers=1MB",
  "work_mem=4MB",
  "maintenance_work_mem=16MB",
  "max_connections=10"
]

/** PGlite's start parameters with `SETTINGS` added (PGlite's own defaults kept: they select single-user mode). */
export const startParams = (): Array<string> => [...PGlite.defaultStartParams, ...SETTINGS.flatMap((s) => ["-c", s])]

/** Whether `dataDir` already holds a database. */
export const exists = (dataDir: string): boolean => existsSync(join(dataDir, "PG_VERSION"))

/**
 * Whether `dataDir` is new: missing, or holding only this service's own lock and socket. A
 * directory with other files and no database is not created over: PGlite opens it in this
 * process as before, and says what it finds.
 */
export const isNew = (dataDir: string): boolean =>
  !existsSync(dataDir) || readdirSync(dataDir).every((name) => name.startsWith("climate-grade.") || name === "control.sock")

/**
 * The child's script, found through this package's name: from here, or from the built server's
 * directory (where this module is bundled), it is the workspace package's own file.
 */
const initdbScript = (): string => createRequire(import.meta.url).resolve("@climate-grade/postgres/initdb.mjs")

/**
 * Creates the database files in `dataDir` in a child process (a copy of the template, or PGlite's
 * own initdb), so this process never loads initdb. Nothing unless the directory is new. The child
 * is given the absolute path: a relative one names the same directory as for this process.
 */
export const create = (dataDir: string): Effect.Effect<void, Error> =>
  exists(dataDir) || !isNew(dataDir)
    ? Effect.void
    : Effect.async<void, Error>((resume) => {
        const child = spawn(process.execPath, [initdbScript(), resolve(dataDir), JSON.stringify(startParams())], {
          stdio: ["ignore", "ignore", "pipe"]
        })
        let stderr = ""
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString()
        })
        child.on("error", (error) => resume(Effect.fail(error)))
        child.on("exit", (code, signal) =>
          resume(
            code === 0
              ? Effect.void
              : Effect.fail(new Error(`creating the database in ${dataDir} failed (${signal ?? `exit ${code}`}): ${stderr.trim().slice(-500)}`))
          )
        )
        return Effect.sync(() => child.kill("SIGKILL"))
      })
