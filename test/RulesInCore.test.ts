/**
 * The label cut-offs (10 / 33⅓ / 66⅔ / 90) and the snapping of a coordinate to its 0.25° cell are
 * written once, in the core (`Percentile.CUTS`, `Cell.snap` and `Cell.SIZE`); everyone else imports
 * them. A grep over every other package's and app's code (comments aside; tests and the testing
 * package's reference fixtures aside: they write the rules again on purpose, to check them).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = resolve(import.meta.dirname, "..")
const CORE = join(ROOT, "packages", "core")
const SKIPPED = new Set(["node_modules", "dist", "test", ".build-site", ".data", "coverage"])

const codeFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return SKIPPED.has(name) || name.startsWith(".") ? [] : codeFiles(path)
    return /\.(ts|tsx|mts|js|mjs|cjs)$/.test(name) && !name.endsWith(".d.ts") ? [path] : []
  })

const files = ["packages", "apps"]
  .flatMap((group) => readdirSync(join(ROOT, group)).map((name) => join(ROOT, group, name)))
  .filter((dir) => existsSync(join(dir, "package.json")) && dir !== CORE && !dir.endsWith(`${"/"}testing`))
  .flatMap(codeFiles)
  .concat(codeFiles(join(ROOT, "bench")))

/** The code without its comments (a `//` after a colon is a URL's, not a comment). */
const withoutComments = (text: string): string =>
  text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " ")).replace(/(^|[^:\\"'`])\/\/.*$/gm, "$1")

const LABEL = /much-below|much-above|near-normal|muchBelow|muchAbove|nearNormal/

/** What a copy of a rule looks like, each with what it is a copy of. */
const RULES: ReadonlyArray<{ readonly rule: string; readonly test: (line: string, around: string) => boolean }> = [
  { rule: "a label cut-off (33⅓ or 66⅔)", test: (line) => /\b[12]00\s*\/\s*3\b|\b33\.3|\b66\.[67]/.test(line) },
  {
    rule: "a label cut-off (10 or 90) beside a label",
    test: (line, around) => /[<>]=?\s*(10|90)\b|\b(10|90)\s*[<>]/.test(line) && LABEL.test(around)
  },
  { rule: "a percentile compared with 10 or 90", test: (line) => /(percentile|pct)\w*\s*[<>]=?\s*(10|90)\b/i.test(line) },
  { rule: "cell snapping (x * 4, rounded, / 4)", test: (line) => /\*\s*4\s*\)\s*\/\s*4\b|\/\s*0?\.25\s*\)\s*\*\s*0?\.25\b/.test(line) },
  {
    rule: "the cell's size (0.25°) or half of it in arithmetic",
    test: (line) => /[-+*/]=?\s*0?\.(25|125)\b(?!°)|\b0?\.(25|125)\s*[-+*/](?!\/)/.test(line)
  },
  { rule: "a snap function", test: (line) => /\b(const|function)\s+snap\w*\b/.test(line) }
]

const copiesIn = (path: string, text: string): Array<string> => {
  const lines = withoutComments(text).split("\n")
  const found: Array<string> = []
  lines.forEach((line, i) => {
    const around = lines.slice(Math.max(0, i - 2), i + 3).join("\n")
    for (const { rule, test } of RULES) if (test(line, around)) found.push(`${path}:${i + 1}: ${rule}: ${line.trim()}`)
  })
  return found
}

describe("the rules written once, in the core", () => {
  it("reads the code of every other package and app", () => {
    for (const where of ["apps/site/src/", "packages/card/src/", "packages/client/src/", "packages/http/src/", "packages/cli/src/"]) {
      expect(files.filter((f) => relative(ROOT, f).startsWith(where)).length, where).toBeGreaterThan(0)
    }
    expect(files.some((f) => f.startsWith(CORE))).toBe(false)
  })

  it("finds the copies it looks for", () => {
    // The shapes the copies had before the core held them, and the core's own definitions.
    expect(copiesIn("a.ts", "const CUT = { below: 100 / 3, above: 200 / 3 }")).toHaveLength(1)
    expect(copiesIn("a.ts", 'return p < 10 ? "much-below" : p > 90 ? "much-above" : "near-normal"')).not.toEqual([])
    expect(copiesIn("a.ts", "if (percentile <= 90) return x")).toHaveLength(1)
    expect(copiesIn("a.ts", "const lat = Math.round(x * 4) / 4")).toHaveLength(1)
    expect(copiesIn("a.ts", "out.push(cellOf(cell.lat + dLat * 0.25, lon))")).toHaveLength(1)
    expect(copiesIn("a.ts", "const gx = (lon + 0.125) * u")).toHaveLength(1)
    const core = (path: string) => copiesIn(path, readFileSync(join(CORE, "src", path), "utf8"))
    expect(core("grading/Percentile.ts")).not.toEqual([])
    expect(core("Cell.ts")).not.toEqual([])
    // Words, comments, a metric's buckets and an address are not copies.
    expect(copiesIn("a.ts", "// round(x * 4) / 4, 33⅓\nconst BOUNDS = [0.1, 0.25, 0.5]\nconst t = `the 0.25° grid`")).toEqual([])
    expect(copiesIn("a.ts", 'const url = "https://example.org/x"; const y = 100 / 30')).toEqual([])
  })

  it("finds none outside the core", () => {
    const found = files.flatMap((path) => copiesIn(relative(ROOT, path), readFileSync(path, "utf8")))
    expect(found).toEqual([])
  })
})
