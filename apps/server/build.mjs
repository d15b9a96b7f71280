// Bundles the server's own workspace packages into dist/; third-party packages stay in
// node_modules (PGlite loads its WASM files relative to its own module).
import { build } from "esbuild"

await build({
  entryPoints: { main: "src/main.ts", cli: "src/cli.ts" },
  outdir: "dist",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: true,
  logLevel: "warning",
  plugins: [
    {
      name: "external-dependencies",
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) =>
          args.path.startsWith("@climate-grade/") ? undefined : { path: args.path, external: true }
        )
      }
    }
  ]
})
