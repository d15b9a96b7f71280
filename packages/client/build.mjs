// Bundles the client with every dependency (effect, idb, the core's payload schemas) into one ES
// module, dist/index.js, that a browser or a Node 20 script anywhere can import: no workspace
// resolution, no node_modules needed at the importer's side. `--browser-size` instead prints the
// minified, gzip-compressed size of the browser bundle (the 60 KB budget of issue 10).
import { gzipSync } from "node:zlib"
import { build } from "esbuild"

const common = {
  entryPoints: ["src/index.ts"],
  bundle: true,
  format: "esm",
  // Neutral: the same file serves browsers and Node; the client uses only fetch, AbortSignal and IndexedDB.
  platform: "neutral",
  mainFields: ["module", "main"],
  target: "es2022",
  logLevel: "warning"
}

if (process.argv.includes("--browser-size")) {
  const result = await build({ ...common, platform: "browser", minify: true, write: false, metafile: true })
  const bytes = result.outputFiles[0].contents
  const gzip = gzipSync(bytes, { level: 9 }).length
  const byPackage = new Map()
  for (const [file, info] of Object.entries(result.metafile.outputs[Object.keys(result.metafile.outputs)[0]].inputs)) {
    const m = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(file)
    const name = m ? m[1] : file.startsWith("src/") ? "@climate-grade/client" : file.replace(/^(\.\.\/)+/, "")
    byPackage.set(name, (byPackage.get(name) ?? 0) + info.bytesInOutput)
  }
  console.log(`client browser bundle: ${(bytes.length / 1024).toFixed(1)} KB minified, ${(gzip / 1024).toFixed(1)} KB gzip (budget 60 KB gzip)`)
  for (const [name, size] of [...byPackage].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${name.padEnd(40)} ${(size / 1024).toFixed(1)} KB minified`)
  }
} else {
  await build({ ...common, outfile: "dist/index.js", sourcemap: true })
}
