// Bundles the server's own workspace packages into dist/; third-party packages stay in
// node_modules (PGlite loads its WASM files relative to its own module).
import { builtinModules } from "node:module"
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

await build({
  entryPoints: { main: "src/main.ts", cli: "src/cli.ts" },
  outdir: "dist",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: true,
  // CommonJS dependencies bundled with Effect's still call require() for Node's modules.
  banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
  logLevel: "warning",
  plugins: [
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
