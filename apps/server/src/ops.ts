/**
 * Backups of the embedded database (docs/deploy.md "Backups"), with the server's configuration
 * (`DATA_DIR`, `DATABASE_URL`):
 *
 *   pnpm backup FILE    a consistent copy of DATA_DIR's database, written to FILE (mode 0600)
 *   pnpm restore FILE   that copy into DATA_DIR, which must be missing or empty
 *
 * While a server owns DATA_DIR the copy is taken by that server, through its control socket,
 * between two transactions (Control, PgliteClient.backup); otherwise this process takes the
 * DATA_DIR lock, so no server starts meanwhile, and copies the files. A restore never touches a
 * DATA_DIR that holds anything, nor one a server owns. With `DATABASE_URL` naming a PostgreSQL
 * server both commands only say how to use PostgreSQL's own tools.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs"
import { resolve } from "node:path"
import { Backup, DataDir, DataDirLock } from "@climate-grade/postgres"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import { appConfig, describeConfigError } from "./AppConfig.js"
import * as Control from "./Control.js"

const usage = "usage: pnpm backup FILE | pnpm restore FILE"

/** Exit 2 for a wrong invocation or nothing done, 1 when the command failed. */
const fail = (message: string, code: 1 | 2 = 1): never => {
  process.stderr.write(`${message}\n`)
  process.exit(code)
}

const POSTGRES_BACKUP = `DATABASE_URL names a PostgreSQL server: back it up with PostgreSQL's own tools, connected to PostgreSQL itself (not PgBouncer), into a file only you read (it holds password and session hashes), e.g.
  umask 077 && pg_dump --format=custom --file=climate_grade.dump "$DATABASE_URL"
and for point-in-time recovery, continuous WAL archiving (docs/deploy.md "Backups"). Nothing was written.`

const POSTGRES_RESTORE = `DATABASE_URL names a PostgreSQL server: restore with PostgreSQL's own tools, connected to PostgreSQL itself (not PgBouncer), into an empty database owned by the service's role, e.g.
  pg_restore --no-owner --dbname="$DATABASE_URL" climate_grade.dump
(docs/deploy.md "Backups"). Nothing was changed.`

/** Writes `bytes` to `file` whole or not at all (a temporary name beside it, renamed), owner-only. */
const writeWhole = (file: string, bytes: Uint8Array) => {
  const temporary = `${file}.${process.pid}.partial`
  const fd = openSync(temporary, "w", 0o600)
  try {
    writeSync(fd, bytes)
    fsyncSync(fd)
  } catch (e) {
    closeSync(fd)
    rmSync(temporary, { force: true })
    throw e
  }
  closeSync(fd)
  renameSync(temporary, file)
}

const megabytes = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`

const [command, file, ...extra] = process.argv.slice(2)
if ((command !== "backup" && command !== "restore") || file === undefined || file === "" || extra.length > 0) fail(usage, 2)
const target = resolve(file!)

const config = Effect.runSync(Effect.either(appConfig))
if (Either.isLeft(config)) fail(describeConfigError(config.left), 2)
const database = Either.getOrThrow(config).database

if (database._tag === "Server") fail(command === "backup" ? POSTGRES_BACKUP : POSTGRES_RESTORE, 2)
if (database._tag === "Memory") fail("DATABASE_URL=memory:// keeps the database in memory: there is nothing to back up or restore", 2)
const dataDir = database._tag === "Embedded" ? database.dataDir : ""

/** Runs `f` holding DATA_DIR's lock, so no server opens the directory meanwhile. */
const underLock = <A>(f: () => A): A => {
  const exit = Effect.runSyncExit(Effect.scoped(Effect.zipRight(DataDirLock.acquire(dataDir), Effect.sync(f))))
  if (Exit.isSuccess(exit)) return exit.value
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (failure !== undefined) return fail(failure.message)
  throw exit.cause._tag === "Die" ? exit.cause.defect : new Error(String(exit.cause))
}

if (command === "backup") {
  const owner = DataDirLock.owner(dataDir)
  if (owner._tag === "Some") {
    const reply = await Control.backupThroughServer(dataDir)
    if (reply._tag === "Unreachable") {
      fail(`DATA_DIR ${dataDir} is in use by process ${owner.value}, which does not answer on ${Control.socketPath(dataDir)} (${reply.reason})`)
    }
    if (reply._tag === "Refused") fail(`The running server (pid ${owner.value}) did not take the backup: ${reply.detail}`)
    if (reply._tag === "Taken") {
      writeWhole(target, reply.bytes)
      process.stdout.write(`backed up DATA_DIR ${dataDir} through the running server (pid ${owner.value}) to ${file} (${megabytes(reply.bytes.length)})\n`)
    }
  } else {
    if (!existsSync(dataDir)) fail(`DATA_DIR ${dataDir} does not exist: there is no database to back up`)
    const bytes = underLock(() => {
      const found = DataDir.inspect(dataDir)
      if (found === "empty") return fail(`DATA_DIR ${dataDir} is empty: there is no database to back up`)
      if (found !== "database") return fail(`DATA_DIR ${dataDir} does not hold a database: ${found.reason}`)
      return Backup.gzip(Backup.read(dataDir))
    })
    writeWhole(target, bytes)
    process.stdout.write(`backed up DATA_DIR ${dataDir} (no server running) to ${file} (${megabytes(bytes.length)})\n`)
  }
} else {
  let entries: ReturnType<typeof Backup.parse>
  try {
    entries = Backup.parse(readFileSync(target))
  } catch (e) {
    fail(`${file} cannot be restored: ${(e as Error).message}`)
  }
  const owner = DataDirLock.owner(dataDir)
  if (owner._tag === "Some") fail(`DATA_DIR ${dataDir} is in use by process ${owner.value}: stop it, and restore into a missing or empty DATA_DIR`)
  if (existsSync(dataDir) && DataDir.inspect(dataDir) !== "empty") {
    fail(`DATA_DIR ${dataDir} is not empty: a restore goes only into a missing or empty directory, and nothing in it was touched`)
  }
  const files = underLock(() => {
    // Checked again under the lock: a server may have started since.
    if (DataDir.inspect(dataDir) !== "empty") return fail(`DATA_DIR ${dataDir} is not empty: nothing in it was touched`)
    const written = Backup.extract(entries!, dataDir)
    DataDir.makePrivate(dataDir)
    return written
  })
  process.stdout.write(`restored ${file} into DATA_DIR ${dataDir} (${files} files); start the server on it\n`)
}
