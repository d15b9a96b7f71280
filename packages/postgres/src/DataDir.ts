/**
 * The embedded database's directory, as PostgreSQL's postmaster would treat it (issue of a
 * world-writable or silently replaced DATA_DIR):
 *
 * - **Private.** DATA_DIR and everything in it are owner-only (directories 0700, files 0600)
 *   whatever the umask: it holds password and session hashes. PostgreSQL refuses to start on a
 *   group- or world-accessible data directory; PGlite does not look, and unpacks its initial
 *   files 0666. So the directory is created 0700, anything wider is narrowed before the database
 *   opens (with a warning: someone else may have read it) and again, silently, once PGlite has
 *   unpacked a new database into it.
 * - **Never replaced.** PGlite initialises any directory without `PG_VERSION`, over whatever is
 *   there: a damaged DATA_DIR came back empty, with a new AUTH_SECRET, and nothing said. Here only
 *   a missing or empty directory (this service's own lock and socket aside) is initialised; one
 *   that holds anything else must look like a database — `PG_VERSION`, `global/pg_control` of its
 *   fixed size, `base/`, WAL segments of one whole size — or the start is refused with one line
 *   naming what is wrong.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, type Stats } from "node:fs"
import { join, resolve } from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { LOCK_FILE } from "./DataDirLock.js"

/** What this service itself puts in DATA_DIR before or beside the database. */
const OURS = (name: string) => name === LOCK_FILE || name.startsWith(`${LOCK_FILE}.`) || name === "control.sock"

/** PostgreSQL's control file is always this size on disk (PG_CONTROL_FILE_SIZE). */
const PG_CONTROL_SIZE = 8192

export class DataDirRefused extends Schema.TaggedError<DataDirRefused>()("DataDirRefused", {
  dataDir: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `DATA_DIR ${this.dataDir} is not a database this server can open: ${this.reason}. Only an empty or missing DATA_DIR is initialised; restore it from a backup, or point DATA_DIR elsewhere`
  }
}

const statOf = (path: string): Stats | undefined => {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

/**
 * Why `dataDir` (which exists) cannot be opened as a database, if it cannot; `empty` when there is
 * nothing to open and a new database may be made.
 */
export const inspect = (dataDir: string): "empty" | "database" | { readonly reason: string } => {
  const entries = readdirSync(dataDir).filter((name) => !OURS(name))
  if (entries.length === 0) return "empty"
  const version = statOf(join(dataDir, "PG_VERSION"))
  if (version === undefined || !version.isFile()) {
    return { reason: `it holds ${entries.length} entries (${entries.slice(0, 3).join(", ")}${entries.length > 3 ? ", …" : ""}) but no PG_VERSION` }
  }
  if (!/^\d+\s*$/.test(readFileSync(join(dataDir, "PG_VERSION"), "utf8"))) return { reason: "PG_VERSION is damaged (not a version number)" }
  const control = statOf(join(dataDir, "global", "pg_control"))
  if (control === undefined || !control.isFile()) return { reason: "global/pg_control is missing" }
  if (control.size !== PG_CONTROL_SIZE) {
    return { reason: `global/pg_control is damaged (${control.size} bytes, not ${PG_CONTROL_SIZE})` }
  }
  const base = statOf(join(dataDir, "base"))
  if (base === undefined || !base.isDirectory()) return { reason: "base/ is missing" }
  const wal = statOf(join(dataDir, "pg_wal"))
  if (wal === undefined || !wal.isDirectory()) return { reason: "pg_wal/ is missing" }
  // Segments are preallocated to the cluster's segment size, a power of two from 1 MB to 1 GB.
  for (const name of readdirSync(join(dataDir, "pg_wal"))) {
    if (!/^[0-9A-F]{24}$/.test(name)) continue
    const size = statOf(join(dataDir, "pg_wal", name))?.size ?? 0
    if (size < 1024 * 1024 || size > 1024 ** 3 || (size & (size - 1)) !== 0) {
      return { reason: `pg_wal/${name} is damaged (${size} bytes, not a whole WAL segment)` }
    }
  }
  return "database"
}

/**
 * Makes everything under `dataDir` (itself included, symbolic links not followed) its owner's
 * only: directories 0700, files 0600, as PostgreSQL keeps them. The entries that were group- or
 * world-accessible, counted.
 */
export const makePrivate = (dataDir: string): number => {
  let widened = 0
  const visit = (path: string) => {
    const stats = statOf(path)
    if (stats === undefined || stats.isSymbolicLink()) return
    const mode = stats.mode & 0o777
    const wanted = stats.isDirectory() ? 0o700 : 0o600
    if ((mode & 0o077) !== 0) widened++
    if (mode !== wanted) chmodSync(path, wanted)
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name))
  }
  visit(resolve(dataDir))
  return widened
}

/**
 * Creates `dataDir` owner-only if it is missing, refuses it unless it is empty or looks like a
 * database, and narrows it if it is wider (with a warning). Runs under the DATA_DIR lock, before
 * PGlite opens.
 */
export const prepare = (dataDir: string): Effect.Effect<void, DataDirRefused> =>
  Effect.gen(function* () {
    const dir = resolve(dataDir)
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    // A directory that is refused is left exactly as it was found.
    const found = inspect(dir)
    if (typeof found === "object") return yield* new DataDirRefused({ dataDir, reason: found.reason })
    const widened = makePrivate(dir)
    if (widened > 0) {
      yield* Effect.logWarning(
        `DATA_DIR ${dataDir} was readable by others: ${widened} entries were group- or world-accessible; made private (0700 directories, 0600 files)`
      )
    }
    if (found === "empty") yield* Effect.logInfo(`DATA_DIR ${dataDir} is empty: a new database is made there`)
  })

/** `prepare` before the database opens (provide it to the client's layer). */
export const layer = (dataDir: string): Layer.Layer<never, DataDirRefused> => Layer.effectDiscard(prepare(dataDir))

/** After PGlite opened the directory (it unpacks a new database 0666): everything narrowed again, silently. */
export const afterOpen = (dataDir: string): Effect.Effect<void> => Effect.sync(() => void makePrivate(dataDir))
