/**
 * README.md and docs/ are for someone who has cloned this repository and nothing else: no path
 * outside it, no document that is not in it, every relative link and picture present, and the
 * first steps as promised — "On a fresh machine" with exactly two commands, then "Try it" with
 * `pnpm demo` first.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "..", "..", "..")
const documents = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)]

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
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue
        const path = resolve(dirname(join(root, document)), target!)
        expect(path.startsWith(root), `${document}: ${target}`).toBe(true)
        expect(existsSync(path), `${document}: ${target}`).toBe(true)
      }
    }
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
