/**
 * The JavaScript each page loads, gzip-compressed as the server sends it: the entry and every chunk
 * it imports, statically or lazily. The main page's budget is 120 KB gzip (issue 11); exceeding it
 * fails this command.
 */
import { readdir, readFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist")
const BUDGET = 120 * 1024

const scriptsOf = async (page) => {
  const html = await readFile(join(dist, page), "utf8")
  const seen = new Set()
  const queue = [...html.matchAll(/(?:src|href)="(assets\/[^"]+\.js)"/g)].map((m) => m[1])
  while (queue.length > 0) {
    const file = queue.shift()
    if (seen.has(file)) continue
    seen.add(file)
    const text = await readFile(join(dist, file), "utf8")
    // esbuild writes chunk imports as relative specifiers: "./chunk-XXXX.js", static or dynamic.
    for (const m of text.matchAll(/["'`]\.\/((?:chunk|[A-Za-z]+)-[A-Z0-9]+\.js)["'`]/g)) queue.push(`assets/${m[1]}`)
  }
  return [...seen]
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`
let failed = false
for (const page of ["index.html", "alerts.html"]) {
  const files = await scriptsOf(page)
  let raw = 0
  let gz = 0
  for (const f of files) {
    const bytes = await readFile(join(dist, f))
    raw += bytes.length
    gz += gzipSync(bytes, { level: 6 }).length
  }
  const over = page === "index.html" && gz > BUDGET
  failed ||= over
  console.log(`${page}: ${files.length} JS files, ${kb(raw)} raw, ${kb(gz)} gzip${page === "index.html" ? ` (budget ${kb(BUDGET)})${over ? " OVER BUDGET" : ""}` : ""}`)
}
const all = await readdir(join(dist, "assets"))
for (const f of all.filter((f) => f.endsWith(".css") || f.endsWith(".json"))) {
  const bytes = await readFile(join(dist, "assets", f))
  console.log(`  ${f}: ${kb(bytes.length)} raw, ${kb(gzipSync(bytes).length)} gzip`)
}
if (failed) process.exit(1)
