/**
 * Backups of the embedded database: DATA_DIR's files as a gzipped tar (plain ustar, so
 * `tar tzf` lists one), and their restore into a missing or empty directory.
 *
 * Why the files and not PGlite's `dumpDataDir`: that one walks DATA_DIR through PGlite's file
 * system and fails on the control socket a running server keeps there, and it would also copy
 * the lock. A copy of the files is consistent when nothing writes them meanwhile: a stopped
 * server (its lock held by the copier), or a running one that holds its only connection for the
 * copy after a CHECKPOINT (PgliteClient.backup) — PGlite is PostgreSQL in single-user mode, with
 * no background writer, so between two statements its files do not change. A restore then opens
 * as a cleanly checkpointed database (a stopped one that crashed replays its WAL, as it would
 * have in place).
 */
import { lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync, closeSync, chmodSync } from "node:fs"
import { join, posix, resolve } from "node:path"
import { gunzipSync, gzipSync } from "node:zlib"
import { LOCK_FILE } from "./DataDirLock.js"

/** Left out of a backup: this service's lock and socket, and PostgreSQL's pid file of the running process. */
const SKIPPED = (name: string) =>
  name === LOCK_FILE || name.startsWith(`${LOCK_FILE}.`) || name === "control.sock" || name === "postmaster.pid"

const BLOCK = 512

const octal = (value: number, width: number) => `${value.toString(8).padStart(width - 1, "0")}\0`

/** One ustar header; a path too long for `name` is split at a slash into `prefix`. */
const header = (path: string, size: number, type: "0" | "5", mode: number, mtime: number): Buffer => {
  let name = path
  let prefix = ""
  if (Buffer.byteLength(name) > 100) {
    const cut = path.lastIndexOf("/", 155)
    if (cut <= 0 || Buffer.byteLength(path.slice(cut + 1)) > 100) throw new Error(`path too long for a tar header: ${path}`)
    prefix = path.slice(0, cut)
    name = path.slice(cut + 1)
  }
  const block = Buffer.alloc(BLOCK)
  block.write(name, 0, 100, "utf8")
  block.write(octal(mode, 8), 100, 8, "ascii")
  block.write(octal(0, 8), 108, 8, "ascii")
  block.write(octal(0, 8), 116, 8, "ascii")
  block.write(octal(size, 12), 124, 12, "ascii")
  block.write(octal(Math.floor(mtime / 1000), 12), 136, 12, "ascii")
  block.write("        ", 148, 8, "ascii")
  block.write(type, 156, 1, "ascii")
  block.write("ustar\0", 257, 6, "ascii")
  block.write("00", 263, 2, "ascii")
  block.write(prefix, 345, 155, "utf8")
  let sum = 0
  for (const byte of block) sum += byte
  block.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8, "ascii")
  return block
}

export interface Archive {
  /** The tar's blocks, uncompressed. */
  readonly chunks: ReadonlyArray<Buffer>
  readonly files: number
}

/**
 * Reads every directory and regular file under `dataDir` into tar blocks (sorted, paths relative,
 * without the lock, socket and pid file). Synchronous: the caller holds whatever keeps the files
 * still, and nothing else runs meanwhile.
 */
export const read = (dataDir: string): Archive => {
  const root = resolve(dataDir)
  const chunks: Array<Buffer> = []
  let files = 0
  const visit = (relative: string) => {
    for (const name of readdirSync(join(root, relative)).sort()) {
      if (relative === "" && SKIPPED(name)) continue
      const path = relative === "" ? name : `${relative}/${name}`
      const stats = lstatSync(join(root, path))
      if (stats.isDirectory()) {
        chunks.push(header(`${path}/`, 0, "5", 0o700, stats.mtimeMs))
        visit(path)
      } else if (stats.isFile()) {
        const data = readFileSync(join(root, path))
        chunks.push(header(path, data.length, "0", 0o600, stats.mtimeMs), data)
        if (data.length % BLOCK !== 0) chunks.push(Buffer.alloc(BLOCK - (data.length % BLOCK)))
        files++
      }
      // Anything else (a socket, a symbolic link) is not part of a PGlite database.
    }
  }
  visit("")
  chunks.push(Buffer.alloc(2 * BLOCK))
  return { chunks, files }
}

/** The gzipped tar of `archive`. */
export const gzip = (archive: Archive): Buffer => gzipSync(Buffer.concat(archive.chunks as Array<Buffer>), { level: 6 })

export class BadArchive extends Error {}

interface Entry {
  readonly path: string
  readonly type: "file" | "directory"
  readonly data: Buffer
}

const text = (block: Buffer, start: number, length: number) => {
  const raw = block.subarray(start, start + length)
  const end = raw.indexOf(0)
  return raw.subarray(0, end === -1 ? length : end).toString("utf8")
}

/** The entries of a gzipped tar, checked: relative paths only, no `..`, files and directories only. */
export const parse = (gzipped: Uint8Array): ReadonlyArray<Entry> => {
  let tar: Buffer
  try {
    tar = gunzipSync(gzipped)
  } catch (e) {
    throw new BadArchive(`not a gzipped archive (${(e as Error).message})`)
  }
  const entries: Array<Entry> = []
  for (let offset = 0; offset + BLOCK <= tar.length; ) {
    const block = tar.subarray(offset, offset + BLOCK)
    if (block.every((b) => b === 0)) break
    let sum = 0
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!
    if (Number.parseInt(text(block, 148, 8).trim(), 8) !== sum) throw new BadArchive(`damaged tar header at byte ${offset}`)
    const prefix = text(block, 345, 155)
    const path = (prefix === "" ? "" : `${prefix}/`) + text(block, 0, 100)
    const size = Number.parseInt(text(block, 124, 12).trim() || "0", 8)
    const type = text(block, 156, 1)
    const normal = posix.normalize(path).replace(/\/$/, "")
    if (path.startsWith("/") || normal === ".." || normal.startsWith("../") || normal === "." || normal === "") {
      throw new BadArchive(`an entry outside the directory: ${path}`)
    }
    const dataStart = offset + BLOCK
    if (dataStart + size > tar.length) throw new BadArchive(`${path} is cut short`)
    if (type === "5") entries.push({ path: normal, type: "directory", data: Buffer.alloc(0) })
    else if (type === "0" || type === "") entries.push({ path: normal, type: "file", data: tar.subarray(dataStart, dataStart + size) })
    else throw new BadArchive(`${path} is neither a file nor a directory`)
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK
  }
  const names = new Set(entries.map((e) => e.path))
  for (const needed of ["PG_VERSION", "global/pg_control"]) {
    if (!names.has(needed)) throw new BadArchive(`no ${needed}: not a backup of an embedded database`)
  }
  return entries
}

/**
 * Writes `entries` into `dataDir` (which exists and is empty but for this service's lock),
 * directories 0700 and files 0600. On a failure, what was written is removed again.
 */
export const extract = (entries: ReadonlyArray<Entry>, dataDir: string): number => {
  const root = resolve(dataDir)
  const made: Array<string> = []
  let files = 0
  try {
    for (const entry of entries) {
      const target = join(root, entry.path)
      if (entry.type === "directory") {
        mkdirSync(target, { recursive: true, mode: 0o700 })
      } else {
        mkdirSync(join(target, ".."), { recursive: true, mode: 0o700 })
        const fd = openSync(target, "wx", 0o600)
        try {
          writeSync(fd, entry.data)
        } finally {
          closeSync(fd)
        }
        files++
      }
      made.push(entry.path.split("/")[0]!)
    }
    chmodSync(root, 0o700)
    return files
  } catch (e) {
    for (const top of new Set(made)) rmSync(join(root, top), { recursive: true, force: true })
    throw e
  }
}
