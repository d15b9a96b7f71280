/**
 * One owner per embedded database. PGlite is PostgreSQL in one process, with no postmaster to
 * refuse a second one: two processes opening one DATA_DIR each work on their own copy in memory
 * and the last to write wins, so an account created by one is gone after the other restarts.
 *
 * The first process to open a DATA_DIR takes `DATA_DIR/climate-grade.lock`, created exclusively
 * (a hard link, which fails if the name exists) and holding its pid. A lock whose pid no longer runs (the owner was killed with -9, the host
 * crashed) is stale and taken over. Why this and not `proper-lockfile`: that one judges
 * staleness by the lock's age, so after a kill -9 the next start must wait out the stale period
 * (10 s by default), and a paused but living owner can lose its lock; a pid checked with
 * `kill(pid, 0)` answers at once and exactly on one host, which is the only case an embedded
 * database has (a DATA_DIR on a network share used by two hosts is not supported).
 */
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

export const LOCK_FILE = "climate-grade.lock"

export class DataDirLocked extends Schema.TaggedError<DataDirLocked>()("DataDirLocked", {
  dataDir: Schema.String,
  pid: Schema.Number
}) {
  override get message() {
    return `DATA_DIR ${this.dataDir} is in use by process ${this.pid}: stop that process first, or give this one another DATA_DIR (or DATABASE_URL)`
  }
}

/** Lock files this process holds: its own pid in a lock is stale only if it is not one of these. */
const held = new Set<string>()

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: the process exists but belongs to another user.
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

const readPid = (path: string): number | undefined => {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** The pid of the live process that owns `dataDir`, if any. */
export const owner = (dataDir: string): Option.Option<number> => {
  const path = join(resolve(dataDir), LOCK_FILE)
  const pid = readPid(path)
  if (pid === undefined) return Option.none()
  if (pid === process.pid) return held.has(path) ? Option.some(pid) : Option.none()
  return isAlive(pid) ? Option.some(pid) : Option.none()
}

/**
 * Creates the lock with its content in one step: the pid is written to a file of this process's
 * own, then hard-linked to the lock's name, which fails if the name exists (as O_EXCL would). So
 * no process ever sees a lock without its pid.
 */
const tryCreate = (path: string): boolean => {
  const mine = `${path}.${process.pid}`
  writeFileSync(mine, `${process.pid}\n`, { mode: 0o600 })
  try {
    linkSync(mine, path)
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false
    throw e
  } finally {
    unlinkSync(mine)
  }
}

const take = (dataDir: string): Effect.Effect<string, DataDirLocked> =>
  Effect.suspend(() => {
    const dir = resolve(dataDir)
    // Owner-only from the start: it will hold the database (DataDir).
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const path = join(dir, LOCK_FILE)
    // Twice at most: a stale lock is removed, then created anew; losing that race to another
    // starting process means it owns the directory now.
    for (let attempt = 0; attempt < 2; attempt++) {
      if (tryCreate(path)) {
        held.add(path)
        return Effect.succeed(path)
      }
      const pid = readPid(path)
      if (pid !== undefined && (pid === process.pid ? held.has(path) : isAlive(pid))) {
        return Effect.fail(new DataDirLocked({ dataDir, pid }))
      }
      // Stale: its process is gone. Removed only if it still names that process, so a lock
      // another starting process has just taken over is left alone.
      if (readPid(path) === pid) {
        try {
          unlinkSync(path)
        } catch {
          // Gone already: another process recovered it first.
        }
      }
    }
    return Effect.fail(new DataDirLocked({ dataDir, pid: readPid(path) ?? 0 }))
  })

const release = (path: string) =>
  Effect.sync(() => {
    held.delete(path)
    if (readPid(path) === process.pid) {
      try {
        unlinkSync(path)
      } catch {
        // Removed by hand; nothing to release.
      }
    }
  })

/** Holds the lock on `dataDir` for the scope. */
export const acquire = (dataDir: string) => Effect.acquireRelease(take(dataDir), release)

export const layer = (dataDir: string): Layer.Layer<never, DataDirLocked> => Layer.scopedDiscard(acquire(dataDir))
