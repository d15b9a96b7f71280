/**
 * `pnpm bench:new-database`: what a new embedded database costs, the way the server makes one (a
 * child process, `packages/postgres/src/initdb.mjs`), against running PGlite's initdb for it:
 *   - initdb: PGlite opened on an empty directory, which runs initdb there (what every new
 *     `DATA_DIR` cost before the template);
 *   - copy: `initdb.mjs` on an empty directory, a copy of this machine's template (made first if
 *     missing, outside the timing).
 * Wall time and the child's CPU time (user + system), `BENCH_RUNS` runs each (default 3), with the
 * load average: on a shared machine the wall time follows the load, the CPU time much less.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"

const require = createRequire(import.meta.url)
const script = require.resolve("@climate-grade/postgres/initdb.mjs")
const runs = Number(process.env.BENCH_RUNS ?? 3)
// Printed by the child as it exits: its own CPU time.
const cpu = `data:text/javascript,process.on("exit",()=>{const u=process.cpuUsage();process.stderr.write("\\ncpu "+(u.user+u.system)/1e3+"\\n")})`

/** One child run: wall and CPU milliseconds. */
const measure = (args: ReadonlyArray<string>, cwd: string) => {
  const start = performance.now()
  const result = spawnSync(process.execPath, ["--import", cpu, ...args], { cwd, encoding: "utf8" })
  const wall = performance.now() - start
  if (result.status !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr}`)
  const used = Number(/\ncpu ([\d.]+)\n/.exec(result.stderr)?.[1] ?? Number.NaN)
  return { wall, cpu: used }
}

const work = mkdtempSync(join(tmpdir(), "bench-new-database-"))
try {
  spawnSync(process.execPath, [script, "--template"], { stdio: "inherit" })
  // PGlite as the postgres package resolves it.
  const pglite = pathToFileURL(createRequire(script).resolve("@electric-sql/pglite")).href
  const plain = `const { PGlite } = await import(${JSON.stringify(pglite)})\nconst db = new PGlite({ dataDir: process.argv[1] })\nawait db.waitReady\nawait db.close()`
  {
    const rows: Array<string> = []
    for (const [name, args] of [
      ["initdb", (dir: string) => ["--input-type=module", "-e", plain, dir]],
      ["copy", (dir: string) => [script, dir, "[]"]]
    ] as const) {
      for (let i = 0; i < runs; i++) {
        const dir = join(work, `${name}-${i}`)
        const load = loadavg()[0]!.toFixed(1)
        const { wall, cpu: used } = measure(args(dir), work)
        rows.push(`${name.padEnd(7)} run ${i + 1}: ${(wall / 1000).toFixed(2)} s wall, ${(used / 1000).toFixed(2)} s CPU (load ${load})`)
        rmSync(dir, { recursive: true, force: true })
      }
    }
    console.log(rows.join("\n"))
  }
} finally {
  rmSync(work, { recursive: true, force: true })
}
