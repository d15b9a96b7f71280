// The server's bundle: its own workspace packages bundled, third-party packages left in
// node_modules (PGlite loads its WASM files relative to its own module). build.mjs writes it into
// dist/; a test that needs a second version of the server bundles one beside it with a plugin.
import { readFile, writeFile } from "node:fs/promises"
import { builtinModules } from "node:module"
import { resolve } from "node:path"
import { build } from "esbuild"

/**
 * Bundled rather than loaded from node_modules: the workspace packages, and Effect's (pure ESM),
 * so that only the modules the server uses are in memory — loaded whole, `@effect/platform`'s
 * index alone brings the Swagger UI bundle (~7 MB of strings) that nothing here serves.
 */
const INLINED = /^(@climate-grade\/|effect(\/|$)|@effect\/)/

/**
 * A package dist/ can import at run time: Node's own, or one Node's ESM resolution finds from here
 * (not `require.resolve`, which also searches pnpm's NODE_PATH, absent when the server runs).
 */
const resolvableHere = (path) => {
  if (path.startsWith("node:") || builtinModules.includes(path.split("/")[0])) return true
  try {
    import.meta.resolve(path)
    return true
  } catch {
    return false
  }
}

/**
 * Bundles the server into `outdir` (relative to this directory, or absolute), with `plugins`
 * before the build's own; the absolute paths of what it wrote.
 */
export const bundle = async (outdir, plugins = []) => {
  const { metafile } = await build({
    // The card pool's worker thread is an entry of its own: CardPool looks for `card-worker.js`
    // beside its own chunk, in dist/.
    absWorkingDir: import.meta.dirname,
    entryPoints: { main: "src/main.ts", cli: "src/cli.ts", ops: "src/ops.ts", "card-worker": "../../packages/card/src/CardWorker.ts" },
    outdir,
    bundle: true,
    platform: "node",
    target: "node20",
    // The workspace's packages from their sources, not a built dist/ that may be stale.
    conditions: ["source"],
    format: "esm",
    // Modules imported dynamically go to chunks of their own, read when first imported, and code
    // main and cli share to a common one.
    splitting: true,
    sourcemap: true,
    // CommonJS dependencies bundled with Effect's still call require() for Node's modules.
    banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
    logLevel: "warning",
    metafile: true,
    plugins: [
      ...plugins,
      {
        // esbuild assigns a module to chunks by the entry points that can reach it, used or not: through
        // `@effect/platform`'s index, which the server imports, Scalar's page (~3.4 MB of script, which
        // the server does not serve: its docs page is its own) could land in the chunk read at start.
        name: "platform-index-without-scalar",
        setup(b) {
          b.onLoad({ filter: /[\\/]@effect[\\/]platform[\\/]dist[\\/]esm[\\/]index\.js$/ }, async (args) => {
            const source = await readFile(args.path, "utf8")
            const line = /^export \* as HttpApiScalar from "\.\/HttpApiScalar\.js";$/m
            if (!line.test(source)) throw new Error(`${args.path}: no HttpApiScalar line to leave out`)
            return { contents: source.replace(line, ""), loader: "js" }
          })
        }
      },
      {
        name: "external-dependencies",
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            INLINED.test(args.path) || !resolvableHere(args.path) ? undefined : { path: args.path, external: true }
          )
        }
      }
    ]
  })
  return Object.keys(metafile.outputs).map((path) => resolve(import.meta.dirname, path))
}

/**
 * One byte per character in memory: V8 keeps a script's source as a string, of two bytes per
 * character as soon as one character is not Latin-1, and a few comments bundled from dependencies
 * (a `’`, a `§`) made the server's 2.8 MB of code 5.6 MB of heap. esbuild already writes strings,
 * templates and regular expressions in ASCII (escapes), so what is left is in comments: each such
 * UTF-16 unit becomes `?`, which keeps every column the source map points at.
 */
export const toAscii = async (outputs) => {
  for (const output of outputs.filter((path) => path.endsWith(".js"))) {
    const code = await readFile(output, "utf8")
    const ascii = code.replace(/[\u0080-\uffff]/g, "?")
    if (ascii !== code) await writeFile(output, ascii)
  }
}
