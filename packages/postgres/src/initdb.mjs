/**
 * Creates a new embedded database, run as a process of its own (see PgliteSettings.ts: the ~400 MB
 * PGlite's initdb leaves behind are never in the server's process).
 *
 *   node initdb.mjs <dataDir> <startParams as JSON>   the database in <dataDir> (absolute)
 *   node initdb.mjs --template                        only this machine's template, if missing
 *
 * PGlite's initdb takes seconds of CPU (11–27 s measured for the first start on a 2-core machine,
 * most of it PostgreSQL's bootstrap in WASM and its writes through a proxy file system), and gives
 * the same files every time for one PGlite version. So it runs once per PGlite version, into a
 * template under node_modules/.cache (made owner-only, put in place by one rename), and every new
 * database is a copy of that: ~0.2 s. Where the cache cannot be written (a read-only install), the
 * database is made in place as before. `pnpm build` makes the template, beside its bundling.
 */
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { PGlite } from "@electric-sql/pglite"

/** Owner-only, as DataDir.ts keeps DATA_DIR: directories 0700, files 0600. */
const makePrivate = (path) => {
  const stats = lstatSync(path)
  if (stats.isSymbolicLink()) return
  chmodSync(path, stats.isDirectory() ? 0o700 : 0o600)
  if (stats.isDirectory()) for (const name of readdirSync(path)) makePrivate(join(path, name))
}

const initdb = async (dataDir, startParams) => {
  const db = new PGlite({ dataDir, ...(startParams === undefined ? {} : { startParams }) })
  await db.waitReady
  await db.close()
}

/** This PGlite version's template directory: in the node_modules PGlite is installed in. */
export const templateDir = () => {
  const entry = fileURLToPath(import.meta.resolve("@electric-sql/pglite"))
  const marker = `${join("/", "node_modules")}/`
  const root = entry.slice(0, entry.indexOf(marker) + marker.length - 1)
  const { version } = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8"))
  return join(root, ".cache", "climate-grade", `pglite-${version}`)
}

/**
 * The template, made if missing; undefined if it cannot be written. Made in a directory of this
 * process's own and renamed into place, so a parallel process never copies a half-made one (two
 * that race both run initdb, and one rename wins).
 */
export const ensureTemplate = async () => {
  let template
  let staging
  try {
    template = templateDir()
    if (existsSync(join(template, "PG_VERSION"))) return template
    mkdirSync(dirname(template), { recursive: true, mode: 0o700 })
    staging = `${template}.${process.pid}.${Date.now()}`
    await initdb(staging)
    makePrivate(staging)
    try {
      renameSync(staging, template)
    } catch (error) {
      if (!existsSync(join(template, "PG_VERSION"))) throw error
    }
    return template
  } catch {
    return undefined
  } finally {
    if (staging !== undefined) rmSync(staging, { recursive: true, force: true })
  }
}

const main = async () => {
  const [target, params] = process.argv.slice(2)
  if (target === "--template") {
    if ((await ensureTemplate()) === undefined) process.stderr.write(`could not write ${templateDir()}\n`)
    return
  }
  if (target === undefined || params === undefined) throw new Error("usage: initdb.mjs <dataDir> <startParams JSON> | --template")
  const template = await ensureTemplate()
  if (template === undefined) return initdb(target, JSON.parse(params))
  // Into the directory DataDir.prepare made (it may hold this service's lock): the files, as they are.
  cpSync(template, target, { recursive: true, force: false, errorOnExist: true })
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) await main()
