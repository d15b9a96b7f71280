/**
 * README.md and docs/ are for someone who has cloned this repository and nothing else: no path
 * outside it, no document that is not in it, every relative link and picture present (and every
 * link to a heading names one that is there), and the first steps as promised — "On a fresh
 * machine" with exactly two commands, then "Try it" with `pnpm demo` first. They stay references
 * rather than diaries: README.md at most 15 KB, docs/architecture.md at most 30 KB.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "..", "..", "..")
const documents = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)]

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")

const anchors = (markdown: string) =>
  new Set([...markdown.replace(/```[\s\S]*?```/g, "").matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1]!)))

const section = (markdown: string, heading: string) => {
  const start = markdown.indexOf(`\n## ${heading}\n`)
  expect(start, heading).toBeGreaterThanOrEqual(0)
  const end = markdown.indexOf("\n## ", start + 1)
  return markdown.slice(start, end < 0 ? undefined : end)
}

describe("the repository's own documents", () => {
  it("name nothing outside the repository, and every relative link and picture is there", () => {
    for (const document of documents) {
      const text = readFileSync(join(root, document), "utf8")
      expect(text, document).not.toMatch(/\.\.\/shared|SPEC\.md|CONTRACT\.md|\bissue \d+/i)
      for (const [, target, fragment] of text.matchAll(/\]\(([^)#\s]*)(?:#([^)\s]*))?\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue
        const path = target ? resolve(dirname(join(root, document)), target) : join(root, document)
        expect(path.startsWith(root), `${document}: ${target}`).toBe(true)
        expect(existsSync(path), `${document}: ${target}`).toBe(true)
        if (fragment !== undefined && path.endsWith(".md")) {
          expect(anchors(readFileSync(path, "utf8")), `${document}: ${target}#${fragment}`).toContain(fragment)
        }
      }
    }
  })

  it("stay references: README.md at most 15 KB, docs/architecture.md at most 30 KB", () => {
    const bytes = (document: string) => statSync(join(root, document)).size
    expect(bytes("README.md"), "README.md").toBeLessThanOrEqual(15 * 1024)
    expect(bytes("docs/architecture.md"), "docs/architecture.md").toBeLessThanOrEqual(30 * 1024)
  })

  it("architecture.md says why each dependency is there: every package's third-party dependency is in its list", () => {
    const architecture = readFileSync(join(root, "docs/architecture.md"), "utf8")
    const list = architecture.slice(architecture.indexOf("\n## Dependencies and why\n"))
    const manifests = [".", ...["packages", "apps"].flatMap((top) => readdirSync(join(root, top)).map((name) => `${top}/${name}`))]
      .map((dir) => join(root, dir, "package.json"))
      .filter((path) => existsSync(path))
    const unexplained: Array<string> = []
    for (const manifest of manifests) {
      const json = JSON.parse(readFileSync(manifest, "utf8")) as Record<string, Record<string, string> | undefined>
      for (const kind of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]) {
        for (const name of Object.keys(json[kind] ?? {})) {
          if (name.startsWith("@climate-grade/")) continue
          // A family may be named once: `@expo-google-fonts/noto-sans-arabic`, `noto-sans-jp`.
          const named = list.includes(`\`${name}\``) || list.includes(`\`${name.split("/").pop()}\``)
          if (!named) unexplained.push(`${name} (${manifest.slice(root.length + 1)})`)
        }
      }
    }
    expect(unexplained).toEqual([])
  })

  it("the code names no issue numbers: a comment says the reason itself", () => {
    const found: Array<string> = []
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue
        const path = join(dir, entry.name)
        if (entry.isDirectory()) walk(path)
        else if (/\.(ts|tsx|mjs|js)$/.test(entry.name)) {
          readFileSync(path, "utf8")
            .split("\n")
            .forEach((line, i) => {
              if (/\bissues? #?\d+|\bitems? \d+ of\b/i.test(line)) found.push(`${path.slice(root.length + 1)}:${i + 1}: ${line.trim()}`)
            })
        }
      }
    }
    for (const top of ["apps", "packages", "bench"]) walk(join(root, top))
    expect(found).toEqual([])
  })

  it("README: a fresh machine needs two commands; then 'Try it' starts with pnpm demo and shows the card and the inbox", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8")
    const fresh = section(readme, "On a fresh machine (Node 20)")
    const commands = [...fresh.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim())
    expect(commands).toEqual([
      "npm install -g pnpm@10.34.8 && pnpm install && pnpm start",
      "npm install -g pnpm@10.34.8 && pnpm install && pnpm test"
    ])
    expect(readme.indexOf("## Try it")).toBeGreaterThan(readme.indexOf("## On a fresh machine"))
    const tryIt = section(readme, "Try it")
    expect([...tryIt.matchAll(/```sh\n([\s\S]*?)```/g)][0]![1]!.trim()).toBe("pnpm demo")
    expect(tryIt).toContain("](docs/screenshots/card.png)")
    expect(tryIt).toContain("](docs/screenshots/demo-inbox.png)")
    const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts
    for (const name of ["start", "test", "demo", "user:create"]) expect(scripts[name], name).toBeDefined()
  })
})
