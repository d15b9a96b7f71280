/**
 * The arrows between the rooms (docs/architecture.md "Packages"), read from every import of every
 * package's src:
 * - a package imports only workspace packages its package.json lists, and those lists form layers
 *   with no way back up: the core at the bottom, the adapters on it, the HTTP package on them, the
 *   server on top;
 * - within a package no two files import each other, and no longer cycle either.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const ROOT = resolve(import.meta.dirname, "..")
const SCOPE = "@climate-grade/"

interface Package {
  readonly name: string
  readonly dir: string
  /** The workspace packages its src may import. */
  readonly declared: ReadonlyArray<string>
  /** Its src files (absolute paths). */
  readonly files: ReadonlyArray<string>
}

const sourceFiles = (dir: string): Array<string> =>
  !existsSync(dir)
    ? []
    : readdirSync(dir).flatMap((name) => {
        const path = join(dir, name)
        if (statSync(path).isDirectory()) return sourceFiles(path)
        return /\.(ts|tsx|mts|js|mjs)$/.test(name) && !name.endsWith(".d.ts") ? [path] : []
      })

const packages: ReadonlyArray<Package> = ["packages", "apps"].flatMap((group) =>
  readdirSync(join(ROOT, group))
    .map((name) => join(ROOT, group, name))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name: string
        dependencies?: Record<string, string>
        devDependencies?: Record<string, string>
      }
      // A package with no runtime dependencies at all is bundled when it is built (the site): what
      // it bundles is its devDependencies. Any other package's src may use only its dependencies.
      const runtime = manifest.dependencies ?? manifest.devDependencies ?? {}
      return {
        name: manifest.name,
        dir,
        declared: Object.keys(runtime).filter((n) => n.startsWith(SCOPE)),
        files: sourceFiles(join(dir, "src"))
      }
    })
)
const byName = new Map(packages.map((p) => [p.name, p]))
const at = (path: string) => relative(ROOT, path)

/** A relative import's file, as the bundler resolves it (`./X.js` is `./X.ts`); undefined for assets. */
const resolveRelative = (from: string, specifier: string): string | undefined => {
  const target = resolve(dirname(from), specifier)
  const base = target.replace(/\.(js|mjs)$/, "")
  const found = [".ts", ".tsx", ".mts", ".js", ".mjs", "/index.ts", "/index.tsx"].map((ext) => base + ext).find((p) => existsSync(p))
  if (found !== undefined) return found
  return existsSync(target) && statSync(target).isFile() && /\.(ts|tsx|js|mjs)$/.test(target) ? target : undefined
}

interface Imports {
  /** Files of the same package. */
  readonly local: ReadonlyArray<string>
  /** Workspace packages, by name. */
  readonly workspace: ReadonlyArray<string>
  /** Relative specifiers that name no file (none expected but assets). */
  readonly unresolved: ReadonlyArray<string>
}

const importsOf = (file: string): Imports => {
  // Static imports, re-exports, dynamic import() and require(): type-only ones too, since a
  // cycle of types is still two files that cannot be read apart.
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true)
  const local: Array<string> = []
  const workspace: Array<string> = []
  const unresolved: Array<string> = []
  for (const { fileName: specifier } of importedFiles) {
    if (specifier.startsWith(".")) {
      const found = resolveRelative(file, specifier)
      if (found !== undefined) local.push(found)
      else if (!/\.(css|svg|json|png|woff2?|txt)$/.test(specifier)) unresolved.push(specifier)
    } else if (specifier.startsWith(SCOPE)) {
      workspace.push(specifier.split("/").slice(0, 2).join("/"))
    }
  }
  return { local, workspace, unresolved }
}

const graph = new Map(packages.flatMap((p) => p.files.map((f) => [f, importsOf(f)] as const)))

/** Each package's layer: one above the highest it declares (the core, declaring none, is 0). */
const layers = (() => {
  const layer = new Map<string, number>()
  const visiting = new Set<string>()
  const cycles: Array<string> = []
  const of = (name: string): number => {
    const known = layer.get(name)
    if (known !== undefined) return known
    if (visiting.has(name)) {
      cycles.push(name)
      return 0
    }
    visiting.add(name)
    const below = (byName.get(name)?.declared ?? []).map(of)
    visiting.delete(name)
    const value = below.length === 0 ? 0 : Math.max(...below) + 1
    layer.set(name, value)
    return value
  }
  for (const p of packages) of(p.name)
  return { layer, cycles }
})()

/** Strongly connected groups of more than one file (Tarjan), each a cycle of imports. */
const cyclesAmong = (files: ReadonlyArray<string>): Array<Array<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const found: Array<Array<string>> = []
  let next = 0
  const visit = (v: string) => {
    index.set(v, next)
    low.set(v, next)
    next++
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v)?.local ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!))
      }
    }
    if (low.get(v) === index.get(v)) {
      const group: Array<string> = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        group.push(w)
      } while (w !== v)
      if (group.length > 1) found.push(group.map(at).sort())
    }
  }
  for (const f of files) if (!index.has(f)) visit(f)
  return found
}

describe("the import graph", () => {
  it("reads every package's sources", () => {
    // A test that reads nothing passes for nothing: the rooms named below are all there.
    for (const name of ["core", "weather", "postgres", "http", "server", "site"]) {
      expect(byName.get(SCOPE + name)?.files.length ?? 0, name).toBeGreaterThan(5)
    }
    const unresolved = [...graph].flatMap(([file, i]) => i.unresolved.map((s) => `${at(file)}: ${s}`))
    expect(unresolved).toEqual([])
  })

  it("has no package importing one it does not list, and the lists form layers", () => {
    expect(layers.cycles, "packages that list each other").toEqual([])
    const wrong: Array<string> = []
    for (const p of packages) {
      for (const file of p.files) {
        for (const target of graph.get(file)!.workspace) {
          if (target === p.name) continue
          if (!byName.has(target)) wrong.push(`${at(file)} imports ${target}, which is not in the workspace`)
          else if (!p.declared.includes(target)) wrong.push(`${at(file)} imports ${target}, which ${p.name}'s package.json does not list`)
          else if (layers.layer.get(target)! >= layers.layer.get(p.name)!) wrong.push(`${at(file)} imports ${target}, a layer not below its own`)
        }
      }
    }
    expect(wrong).toEqual([])
  })

  it("keeps the rooms in order: core, then the adapters, then http, then the server", () => {
    const layer = (name: string) => layers.layer.get(SCOPE + name)!
    const adapters = ["card", "chat", "node", "oauth", "postgres", "weather"]
    // The core imports no other package: it is the bottom, and everything stands on it.
    expect(byName.get(SCOPE + "core")!.declared).toEqual([])
    expect(layer("core")).toBe(0)
    for (const adapter of adapters) {
      // An adapter stands on the core alone: none knows of another, nor of anything above.
      expect(byName.get(SCOPE + adapter)!.declared, adapter).toEqual([SCOPE + "core"])
      expect(layer(adapter)).toBeGreaterThan(layer("core"))
      expect(layer(adapter)).toBeLessThan(layer("http"))
    }
    expect(layer("http")).toBeLessThan(layer("server"))
    // The other consumers of the core (the command line, the client library) stand on it alone.
    for (const consumer of ["cli", "client"]) expect(byName.get(SCOPE + consumer)!.declared, consumer).toEqual([SCOPE + "core"])
  })

  it("has no two files importing each other, and no longer cycle, within any package", () => {
    const pairs: Array<string> = []
    for (const [file, { local }] of graph) {
      for (const other of local) if (file < other && graph.get(other)?.local.includes(file)) pairs.push(`${at(file)} <-> ${at(other)}`)
    }
    expect(pairs).toEqual([])
    expect(packages.flatMap((p) => cyclesAmong(p.files))).toEqual([])
  })
})
