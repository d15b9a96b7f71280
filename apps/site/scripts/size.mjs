/**
 * The JavaScript each page loads, gzip-compressed as the server sends it (level 9). For the main page,
 * what it loads before the grades show — its entry and the chunks the entry imports statically (the
 * page's modulepreload links) — against a budget of 50 KB gzip, and apart from it the chunks loaded
 * later (after the grades show, or on interaction). In every other language than English the page also
 * waits for that language's words (a chunk of their own), so each language is measured with its chunk.
 * Exceeding the budget in any language fails this command. `SITE_DIST` measures another build's directory.
 */
import { readdir, readFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

const dist = process.env.SITE_DIST ?? join(dirname(fileURLToPath(import.meta.url)), "..", "dist")
const BUDGET = 50 * 1024

/** The files a page names (entry script and preloads), then, apart, every chunk they import lazily. */
const scriptsOf = async (page) => {
  const html = await readFile(join(dist, page), "utf8")
  const first = [...html.matchAll(/(?:src|href)="(assets\/[^"]+\.js)"/g)].map((m) => m[1])
  const seen = new Set(first)
  const later = []
  const queue = [...first]
  while (queue.length > 0) {
    const file = queue.shift()
    const text = await readFile(join(dist, file), "utf8")
    // esbuild writes chunk imports as relative specifiers: "./chunk-XXXX.js", static or dynamic.
    for (const m of text.matchAll(/["'`]\.\/((?:chunk|[A-Za-z]+)-[A-Z0-9]+\.js)["'`]/g)) {
      const next = `assets/${m[1]}`
      if (seen.has(next)) continue
      seen.add(next)
      later.push(next)
      queue.push(next)
    }
  }
  return { first, later }
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`
const measure = async (files) => {
  let raw = 0
  let gz = 0
  for (const f of files) {
    const bytes = await readFile(join(dist, f))
    raw += bytes.length
    gz += gzipSync(bytes, { level: 9 }).length
  }
  return { raw, gz }
}

/** Each language's words chunk, as the page lists it for the server (scripts/build.mjs). */
const languageChunks = async (page) => {
  const html = await readFile(join(dist, page), "utf8")
  const m = /<!-- languages (\{[^<>]*\}) -->/.exec(html)
  return m === null ? {} : JSON.parse(m[1])
}

let failed = false
for (const page of ["index.html", "alerts.html"]) {
  const { first, later } = await scriptsOf(page)
  const before = await measure(first)
  const after = await measure(later)
  if (page === "index.html") {
    const over = before.gz > BUDGET
    failed ||= over
    console.log(
      `${page}: before the grades show ${first.length} JS files, ${kb(before.raw)} raw, ${kb(before.gz)} gzip (budget ${kb(BUDGET)})${over ? " OVER BUDGET" : ""}`
    )
    // In another language than English, the page waits for that language's words too.
    for (const [lang, chunk] of Object.entries(await languageChunks(page))) {
      const words = await measure([chunk])
      const total = before.gz + words.gz
      const over = total > BUDGET
      failed ||= over
      console.log(`${page} in ${lang}: before the grades show ${kb(total)} gzip (its words ${kb(words.gz)})${over ? " OVER BUDGET" : ""}`)
    }
    console.log(`${page}: loaded later ${later.length} JS files, ${kb(after.raw)} raw, ${kb(after.gz)} gzip`)
  } else {
    console.log(`${page}: ${first.length + later.length} JS files, ${kb(before.raw + after.raw)} raw, ${kb(before.gz + after.gz)} gzip`)
  }
}
const all = await readdir(join(dist, "assets"))
for (const f of all.filter((f) => /\.(css|json|png|svg|webmanifest)$/.test(f))) {
  const bytes = await readFile(join(dist, "assets", f))
  console.log(`  ${f}: ${kb(bytes.length)} raw, ${kb(gzipSync(bytes, { level: 9 }).length)} gzip`)
}
if (failed) process.exit(1)
