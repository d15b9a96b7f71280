/**
 * Builds the site into dist/: index.html (main page), alerts.html (account page), assets/ with
 * content-hashed names, and at the root the web app manifest and the service worker (sw.js: its
 * scope is the folder it is served from). Pages, manifest and worker name everything by relative
 * URL, so one build works under any BASE_PATH. No inline script or style: the server's CSP allows
 * files only.
 *
 * `node scripts/build.mjs [outdir] [--stamp=TEXT]`: tests build into a directory of their own, so
 * parallel test files never race on one dist/. A stamp (e.g. a commit) is written at the top of every
 * script and stylesheet, so two builds of the same sources can be told apart (every asset gets a new
 * name); the tests use it to serve "a new build".
 */
import { createHash } from "node:crypto"
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { Resvg } from "@resvg/resvg-js"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import * as esbuild from "esbuild"
import { worldMap } from "./worldMap.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const args = process.argv.slice(2)
const outdir = args.find((a) => !a.startsWith("--"))
const stamp = args.find((a) => a.startsWith("--stamp="))?.slice("--stamp=".length)
const dist = outdir === undefined ? join(root, "dist") : resolve(outdir)
const banner = stamp === undefined ? undefined : `/* build ${stamp.replace(/\*\//g, "")} */`
const assets = join(dist, "assets")

/** Writes `bytes` to assets/ under a name carrying their hash, and returns that name. */
const hashedBytes = async (bytes, stem, ext) => {
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 10)
  const name = `${stem}-${hash}.${ext}`
  await writeFile(join(assets, name), bytes)
  return name
}

await rm(dist, { recursive: true, force: true })
await mkdir(assets, { recursive: true })

// Static files the scripts fetch or the pages link: the map outlines (projected here, once) and the icon.
const map = worldMap()
const mapFile = await hashedBytes(JSON.stringify(map), "map", "json")
const iconSvg = await readFile(join(root, "src", "icon.svg"), "utf8")
const icon = await hashedBytes(iconSvg, "icon", "svg")

// The app icons, drawn from icon.svg by resvg. The maskable one has the icon's background to its
// edges and the bars inside the middle 80% circle that a launcher's mask keeps (the "safe zone").
const THEME = "#1f2a44"
const BACKGROUND = "#f7f6f2"
const png = (svg, size) => new Resvg(svg, { fitTo: { mode: "width", value: size } }).render().asPng()
const maskableSvg = iconSvg
  .replace('viewBox="0 0 32 32"', 'viewBox="-6 -6 44 44"')
  .replace('<rect width="32" height="32" rx="7"', '<rect x="-6" y="-6" width="44" height="44"')
const icons = {
  192: await hashedBytes(png(iconSvg, 192), "icon-192", "png"),
  512: await hashedBytes(png(iconSvg, 512), "icon-512", "png"),
  maskable: await hashedBytes(png(maskableSvg, 512), "icon-maskable-512", "png")
}

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
    // The workspace's packages from their sources, not a built dist/.
    conditions: ["source"],
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
    logLevel: "warning",
    ...(banner === undefined ? {} : { banner: { js: banner, css: banner } })
  })

const builds = { "src/main.tsx": await buildPage("main", "src/main.tsx"), "src/alerts.tsx": await buildPage("alerts", "src/alerts.tsx") }

// The pages may import the core's browser-safe rules (`@climate-grade/core/rules`), never Effect: no
// module of the site may reach `effect` at run time, directly or through a core module (the client
// library, which the site uses for data, answers for itself).
// (esbuild lists an object-valued define as an external import of every module: not an import.)
const EFFECT = /(^|\/)node_modules\/(\.pnpm\/)?effect/
const reachesEffect = (build, path, seen = new Set()) => {
  if (EFFECT.test(path)) return true
  if (seen.has(path)) return false
  seen.add(path)
  return (build.metafile.inputs[path]?.imports ?? []).some((i) => !i.external && reachesEffect(build, i.path, seen))
}
for (const build of Object.values(builds)) {
  for (const [input, meta] of Object.entries(build.metafile.inputs)) {
    if (!input.startsWith("src/")) continue
    const runtime = meta.imports.filter((i) => !i.external && /(^|\/)(packages\/core\/|node_modules\/)/.test(i.path) && reachesEffect(build, i.path))
    if (runtime.length > 0) throw new Error(`${input} imports ${runtime.map((i) => i.path).join(", ")}, which reach effect, at run time`)
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

/**
 * Each language's words chunk (a dynamic import of src/i18n/<lang>.ts), as the page's address of it.
 * The page carries the list in a comment the server reads: for a page in that language it puts a
 * modulepreload of the chunk in the comment's place, so the words load beside the entry script.
 */
const languageChunks = (entry) => {
  const outputs = builds[entry].metafile.outputs
  const chunks = {}
  for (const [file, meta] of Object.entries(outputs)) {
    const m = /^src\/i18n\/([a-z]{2})\.ts$/.exec(meta.entryPoint ?? "")
    if (m !== null && m[1] !== "en") chunks[m[1]] = relative(dist, join(root, file)).split("\\").join("/")
  }
  return chunks
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
<meta name="theme-color" content="${THEME}">
<link rel="icon" href="assets/${icon}" type="image/svg+xml">
<link rel="apple-touch-icon" href="assets/${icons[192]}">
<link rel="manifest" href="manifest.webmanifest">
${files.css === null ? "" : `<link rel="stylesheet" href="${files.css}">\n`}<script type="module" src="${files.js}"></script>
${files.chunks.map((c) => `<link rel="modulepreload" href="${c}">`).join("\n")}
<!-- languages ${JSON.stringify(languageChunks(entry))} -->
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
    description: "Any place on Earth, today and the coming 16 days graded against its own weather history since 1940.",
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

// The web app manifest: every address relative to it, so {BASE_PATH}/ is its start and scope.
const manifest = `${JSON.stringify(
  {
    id: "./",
    name: "Climate grade — how unusual is today's weather?",
    short_name: "Climate grade",
    description: "Today, the coming 16 days and the last two years at any place, graded against its own weather since 1940.",
    start_url: "./",
    scope: "./",
    display: "standalone",
    theme_color: THEME,
    background_color: BACKGROUND,
    icons: [
      { src: `assets/${icons[192]}`, sizes: "192x192", type: "image/png", purpose: "any" },
      { src: `assets/${icons[512]}`, sizes: "512x512", type: "image/png", purpose: "any" },
      { src: `assets/${icons.maskable}`, sizes: "512x512", type: "image/png", purpose: "maskable" },
      { src: `assets/${icon}`, sizes: "any", type: "image/svg+xml", purpose: "any" }
    ]
  },
  null,
  2
)}\n`
await writeFile(join(dist, "manifest.webmanifest"), manifest)

// The service worker: every asset of this build, and a version that changes with any byte of it.
const assetNames = (await readdir(assets)).sort()
const version = createHash("sha256")
for (const name of ["index.html", "alerts.html", "manifest.webmanifest"]) version.update(await readFile(join(dist, name)))
version.update(assetNames.join("\n"))
await esbuild.build({
  absWorkingDir: root,
  entryPoints: ["src/sw.ts"],
  bundle: true,
  conditions: ["source"],
  format: "iife",
  target: ["es2022", "chrome110", "firefox110", "safari16"],
  minify: true,
  legalComments: "none",
  outfile: join(dist, "sw.js"),
  define: {
    __ASSETS__: JSON.stringify(assetNames.map((name) => `assets/${name}`)),
    __VERSION__: JSON.stringify(version.digest("hex").slice(0, 16))
  },
  logLevel: "warning"
})

console.log(`site: built ${assetNames.length} assets, 2 pages, the manifest and the service worker into ${relative(process.cwd(), dist) || "."}`)
