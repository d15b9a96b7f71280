// Bundles the client with what it imports (the core's PayloadVersion) into one minified ES module,
// dist/index.js, with its source map beside it, that a browser or a Node 20 script anywhere can
// import: no workspace resolution, no node_modules needed at the importer's side.
// `--size` builds the same file and prints its size at gzip -9 against the 12 KB budget, with
// what each module adds to it (minified bytes).
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { build } from "esbuild"

const BUDGET = 12 * 1024
const outfile = "dist/index.js"

const result = await build({
  // Paths are the package's, wherever the script is run from.
  absWorkingDir: import.meta.dirname,
  entryPoints: ["src/index.ts"],
  bundle: true,
  format: "esm",
  // The core from its sources, not a built dist/.
  conditions: ["source"],
  // Neutral: the same file serves browsers and Node; the client uses only fetch, AbortSignal and IndexedDB.
  platform: "neutral",
  mainFields: ["module", "main"],
  target: "es2022",
  minify: true,
  sourcemap: true,
  metafile: true,
  outfile,
  logLevel: "warning"
})

if (process.argv.includes("--size")) {
  const bytes = readFileSync(join(import.meta.dirname, outfile))
  const gzip = gzipSync(bytes, { level: 9 }).length
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`
  console.log(`${outfile}: ${kb(bytes.length)} minified, ${kb(gzip)} at gzip -9 (budget ${kb(BUDGET)})`)
  const inputs = Object.entries(result.metafile.outputs[outfile].inputs)
  for (const [file, info] of inputs.sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)) {
    console.log(`  ${file.replace(/^(\.\.\/)+/, "").padEnd(44)} ${kb(info.bytesInOutput).padStart(8)} minified`)
  }
  if (gzip > BUDGET) {
    console.error(`over budget by ${kb(gzip - BUDGET)}`)
    process.exitCode = 1
  }
}
