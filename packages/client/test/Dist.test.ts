/**
 * The built library as consumers outside the repository use it: `pnpm build`'s
 * `packages/client/dist/index.js`, copied to a temporary directory (no workspace, no node_modules),
 * imported by a plain Node script that drives it against the real server.
 */
import { execFile } from "node:child_process"
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { backends } from "@climate-grade/testing"
import { startWorld, type World } from "./support/World.js"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")
let world: World
let outside: string

beforeAll(async () => {
  // The package's own build step, as the root `pnpm build` runs it.
  // Awaited, not synchronous: a worker blocked for a minute on a loaded machine loses its line to vitest.
  await promisify(execFile)(process.execPath, ["build.mjs"], { cwd: packageDir })
  outside = mkdtempSync(join(tmpdir(), "climate-grade-client-"))
  copyFileSync(join(packageDir, "dist", "index.js"), join(outside, "index.js"))
}, 180_000)
afterAll(async () => {
  if (outside !== undefined) rmSync(outside, { recursive: true, force: true })
})

const script = `
import { createClient, indexedDbStore } from "./index.js"
const [baseUrl] = process.argv.slice(2)
const calls = []
const recording = async (input, init) => {
  const url = new URL(String(input))
  const response = await fetch(input, init)
  calls.push({ path: url.pathname + url.search, ifNoneMatch: new Headers(init?.headers).get("if-none-match"), cache: init?.cache, status: response.status })
  return response
}
// No IndexedDB in Node: the store falls back to memory.
const client = createClient({ baseUrl, fetch: recording, store: indexedDbStore() })
const loaded = await client.load(48.13, 11.58)
client.cancelWarmUp()
const grade = await client.view("grade", 48.13, 11.58)
const watched = []
for await (const r of client.watch("calendar", 48.13, 11.58, { months: "24" })) watched.push(r.source)
const rejected = await client.view("day", 48.13, 11.58, { date: "2024-13-01" }).then(() => null, (e) => ({ name: e._tag, status: e.status }))
const pruned = await client.prune()
await client.close()
console.log(JSON.stringify({ cell: loaded.cell, loaded: [loaded.grade.source, loaded.day.source], grade: grade.source, watched, rejected, pruned, calls }))
`

for (const backend of backends) describe(`on ${backend.name}`, () => {
  beforeAll(async () => {
    world = await startWorld(backend)
  }, 180_000)
  afterAll(() => world?.stop())

  it("a Node script outside the repository imports dist/index.js and drives the server with it", async () => {
    const built = readFileSync(join(outside, "index.js"), "utf8")
    // Self-contained: nothing left to resolve but relative files (there are none).
    expect(built).not.toMatch(/\bfrom\s*["'][^./]/)
    expect(built).not.toMatch(/\bimport\(\s*["'][^./]/)
    writeFileSync(join(outside, "main.mjs"), script)
    const { stdout } = await promisify(execFile)(process.execPath, ["main.mjs", world.baseUrl], { cwd: outside, timeout: 60_000 })
    const out = JSON.parse(stdout.trim().split("\n").at(-1)!)
    expect(out.cell).toMatchObject({ lat: 48.25, lon: 11.5, timezone: "Europe/Berlin" })
    expect(out.loaded).toEqual(["network", "network"])
    expect(out.grade).toBe("revalidated")
    expect(out.watched).toEqual(["cache", "revalidated"])
    expect(out.rejected).toEqual({ name: "RequestRejected", status: 400 })
    expect(out.pruned).toBe(0)
    expect(out.calls.map((c: { path: string; status: number }) => [c.path, c.status])).toEqual([
      ["/api/v2/cell?lat=48.25&lon=11.50", 200],
      ["/api/v2/grade?lat=48.25&lon=11.50", 304],
      ["/api/v2/calendar?lat=48.25&lon=11.50&months=24", 304],
      ["/api/v2/day?date=2024-13-01&lat=48.25&lon=11.50", 400]
    ])
    expect(out.calls.every((c: { cache: string }) => c.cache === "no-store")).toBe(true)
  }, 180_000)
})
