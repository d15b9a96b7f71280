// Bundles the server (bundle.mjs) into dist/.
import { spawn } from "node:child_process"
import { lstat, mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises"
import { createRequire } from "node:module"
import { join, relative } from "node:path"
import { bundle, toAscii } from "./bundle.mjs"

/**
 * The embedded database's template (packages/postgres/src/initdb.mjs), made while esbuild bundles
 * if this machine has none: PGlite's initdb, seconds of CPU once, so that a new DATA_DIR is a copy.
 * Not the build's business if it fails: a new database is then made by initdb, as before.
 */
const template = () =>
  new Promise((done) => {
    const script = createRequire(import.meta.url).resolve("@climate-grade/postgres/initdb.mjs")
    const child = spawn(process.execPath, [script, "--template"], { stdio: ["ignore", "ignore", "inherit"] })
    child.on("error", () => done())
    child.on("exit", () => done())
  })

/**
 * Built in a directory of its own beside dist/ (at the same depth, so the source maps' relative
 * paths hold), then moved in file by file (a rename replaces a file at once): test files build
 * the server in parallel, and a build writing dist/main.js in place could be read half-written by
 * a server another one starts. The entry points move last, so a process started from them finds
 * the chunks they import.
 */
await mkdir("dist", { recursive: true })
const staging = await mkdtemp(".build-")
const templated = template()
try {
  const outputs = await bundle(staging)
  await toAscii(outputs)
  const built = outputs.map((path) => relative(staging, path))
  const entry = (file) => /^(main|cli|ops)\.js$/.test(file)
  for (const file of [...built.filter((f) => !entry(f)), ...built.filter(entry)]) {
    await rename(join(staging, file), join("dist", file))
  }
  // Chunks are named by their content: those of earlier builds go.
  // A directory is none of the build's (an older server could leave a database here): said, kept.
  for (const file of await readdir("dist")) {
    if (built.includes(file)) continue
    if ((await lstat(join("dist", file))).isDirectory()) {
      process.stderr.write(`dist/${file} is a directory the build did not make; left as it is (move or delete it)\n`)
    } else {
      await rm(join("dist", file), { force: true })
    }
  }
} finally {
  await rm(staging, { recursive: true, force: true })
  await templated
}
