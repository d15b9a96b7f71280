/**
 * Builds the site into dist/: index.html (main page), alerts.html (account page) and assets/ with
 * content-hashed names. Pages reference assets by relative URL, so they work under any BASE_PATH.
 * No inline script or style: the server's CSP allows files only.
 */
import { createHash } from "node:crypto"
import { mkdir, readFile, rm, writeFile } from "node:fs/promises"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import * as esbuild from "esbuild"
import { worldMap } from "./worldMap.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
// `node scripts/build.mjs [outdir]`: tests build into a directory of their own, so parallel test
// files never race on one dist/.
const dist = process.argv[2] === undefined ? join(root, "dist") : resolve(process.argv[2])
const assets = join(dist, "assets")

/** Writes `bytes` to assets/ under a name carrying their hash, and returns that name. */
const hashedBytes = async (bytes, stem, ext) => {
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 10)
  const name = `${stem}-${hash}.${ext}`
  await writeFile(join(assets, name), bytes)
  return name
}

const hashed = async (source, stem, ext) => hashedBytes(await readFile(source), stem, ext)

await rm(dist, { recursive: true, force: true })
await mkdir(assets, { recursive: true })

// Static files the scripts fetch or the pages link: the map outlines (projected here, once) and the icon.
const map = worldMap()
const mapFile = await hashedBytes(JSON.stringify(map), "map", "json")
const icon = await hashed(join(root, "src", "icon.svg"), "icon", "svg")

/**
 * One build per page: each page's chunks are shared only between its own entry and the parts it
 * loads later, so neither page's first view waits on chunks cut for the other.
 */
const buildPage = (name, entry) =>
  esbuild.build({
    absWorkingDir: root,
    entryPoints: { [name]: entry },
    bundle: true,
    splitting: true,
    format: "esm",
    target: ["es2022", "chrome110", "firefox110", "safari16"],
    minify: true,
    sourcemap: false,
    legalComments: "none",
    outdir: assets,
    entryNames: "[name]-[hash]",
    chunkNames: "chunk-[hash]",
    assetNames: "[name]-[hash]",
    jsx: "automatic",
    jsxImportSource: "preact",
    define: {
      __MAP_URL__: JSON.stringify(mapFile),
      __WORLD_FRAME__: JSON.stringify({ width: map.world.width, height: map.world.height, fit: map.world.fit }),
      "process.env.NODE_ENV": '"production"'
    },
    metafile: true,
    logLevel: "warning"
  })

const builds = { "src/main.tsx": await buildPage("main", "src/main.tsx"), "src/alerts.tsx": await buildPage("alerts", "src/alerts.tsx") }

// The pages take the core's payload shapes as types only: no module of the site may import the core
// or Effect at run time (the client library, which the site uses for data, answers for itself).
for (const build of Object.values(builds)) {
  for (const [input, meta] of Object.entries(build.metafile.inputs)) {
    if (!input.startsWith("src/")) continue
    const runtime = meta.imports.filter((i) => !i.external && /(^|\/)(packages\/core\/|node_modules\/(\.pnpm\/)?effect)/.test(i.path))
    if (runtime.length > 0) throw new Error(`${input} imports ${runtime.map((i) => i.path).join(", ")} at run time`)
  }
}

/** The files an entry needs: its JS, the chunks it imports statically (preloaded), and its CSS. */
const entryFiles = (entry) => {
  const outputs = builds[entry].metafile.outputs
  const [file, meta] = Object.entries(outputs).find(([, m]) => m.entryPoint === entry) ?? []
  if (file === undefined) throw new Error(`no output for ${entry}`)
  const chunks = new Set()
  const walk = (f) => {
    for (const imp of outputs[f]?.imports ?? []) {
      if (imp.kind === "import-statement" && !chunks.has(imp.path)) {
        chunks.add(imp.path)
        walk(imp.path)
      }
    }
  }
  walk(file)
  const rel = (f) => relative(dist, join(root, f)).split("\\").join("/")
  return { js: rel(file), chunks: [...chunks].map(rel), css: meta.cssBundle === undefined ? null : rel(meta.cssBundle) }
}

const page = ({ title, description, entry }) => {
  const files = entryFiles(entry)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<meta name="description" content="${description}">
<meta name="color-scheme" content="light">
<link rel="icon" href="assets/${icon}" type="image/svg+xml">
${files.css === null ? "" : `<link rel="stylesheet" href="${files.css}">\n`}<script type="module" src="${files.js}"></script>
${files.chunks.map((c) => `<link rel="modulepreload" href="${c}">`).join("\n")}
</head>
<body>
<div id="app"><noscript><p class="noscript">This page needs JavaScript to draw its charts. The data is also available from the API under api/v2.</p></noscript></div>
</body>
</html>
`
}

await writeFile(
  join(dist, "index.html"),
  page({
    title: "Climate grade — how unusual is today's weather?",
    description: "Any place on Earth, today and the coming 16 days graded against 85 years of its own weather history.",
    entry: "src/main.tsx"
  })
)
await writeFile(
  join(dist, "alerts.html"),
  page({
    title: "Account and alerts — Climate grade",
    description: "Sign in, link your accounts and manage direct messages.",
    entry: "src/alerts.tsx"
  })
)

const outputs = Object.values(builds).flatMap((b) => Object.keys(b.metafile.outputs))
console.log(`site: built ${outputs.length + 2} assets and 2 pages into ${relative(process.cwd(), dist) || "."}`)
