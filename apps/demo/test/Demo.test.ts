/**
 * `pnpm demo` as a newcomer meets it: in a copy of the repository holding only what a clone holds
 * (no builds, no database), installed from the lockfile, then `pnpm demo`, which builds what it
 * needs and starts. In Chromium: sign in through the fake chat provider, watch the place whose
 * coming days are extreme, and see its alert listed on the demo's inbox page. `pnpm user:create`
 * creates an account through the running service. Ctrl-C (SIGINT to the whole process group, as a
 * terminal sends it) stops everything: the demo exits 0 and the service drained and let go of its
 * database.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "@climate-grade/server/test/BuiltServer"
import { Chromium, FreshClone } from "@climate-grade/testing"
import { afterAll, describe, expect, it } from "vitest"
import { ROOT } from "../src/Demo.js"
import { awaitAlert, signIn, watchExtremePlace } from "./support/Walkthrough.js"

/**
 * The environment a newcomer's shell has: this run's, without the test suite's own database (the
 * demo and the operator command must use the demo's embedded one, as they do on a clone).
 */
const shellEnv = (extra: Record<string, string> = {}) => {
  const { DATABASE_URL: _, ...rest } = process.env
  return { ...rest, ...extra }
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}, input = "") =>
  new Promise<{ code: number | null; output: string }>((done) => {
    const child = spawn(command, [...args], { cwd, env: shellEnv(env) })
    let output = ""
    child.stdout.on("data", (d) => (output += d))
    child.stderr.on("data", (d) => (output += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000)
    child.on("exit", (code) => {
      clearTimeout(timer)
      done({ code, output })
    })
    child.stdin.end(input)
  })

const clone = mkdtempSync(join(tmpdir(), "demo-clone-"))
let demo: ChildProcess | undefined

afterAll(() => {
  // Whatever the test's outcome: the demo's whole process group, then the copy.
  if (demo?.pid !== undefined && demo.exitCode === null) {
    try {
      process.kill(-demo.pid, "SIGKILL")
    } catch {
      // Already gone.
    }
  }
  rmSync(clone, { recursive: true, force: true })
})

describe.skipIf(!Chromium.available())("pnpm demo from a fresh clone", () => {
  it("builds, starts, signs in, delivers an alert to its inbox page, serves user:create, and stops cleanly on Ctrl-C", async () => {
    FreshClone.copyInto(ROOT, clone)
    expect(existsSync(join(clone, "apps/server/dist"))).toBe(false)
    const install = await run("pnpm", ["install", "--offline", "--frozen-lockfile"], clone, { CI: "true" })
    expect(install.code, install.output).toBe(0)

    const [port, inboxPort] = [await freePort(), await freePort()]
    // Its own process group, so that SIGINT reaches every process of it, as Ctrl-C in a terminal does.
    const child = spawn("pnpm", ["demo"], {
      cwd: clone,
      detached: true,
      env: shellEnv({ DEMO_PORT: String(port), DEMO_INBOX_PORT: String(inboxPort) }),
      stdio: ["ignore", "pipe", "pipe"]
    })
    demo = child
    let output = ""
    child.stdout!.on("data", (d) => (output += d))
    child.stderr!.on("data", (d) => (output += d))
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
    const started = Date.now()
    while (!output.includes("Ctrl-C stops everything")) {
      if (child.exitCode !== null) throw new Error(`pnpm demo exited ${child.exitCode}: ${output}`)
      if (Date.now() - started > 300_000) throw new Error(`pnpm demo did not start: ${output}`)
      await new Promise((r) => setTimeout(r, 250))
    }
    const siteUrl = `http://127.0.0.1:${port}/`
    const inboxUrl = `http://127.0.0.1:${inboxPort}/`
    expect(output).toContain(`Site:     ${siteUrl}`)
    expect(output).toContain(`Inbox:    ${inboxUrl}`)
    expect(await (await fetch(inboxUrl)).text()).toContain("No message yet")

    const browser = await Chromium.launch()
    try {
      const { page, context } = await Chromium.openPage(browser)
      await signIn(page, siteUrl)
      await watchExtremePlace(page, siteUrl)
      const alert = await awaitAlert(page, inboxUrl)
      expect(alert).toMatch(/^Heat alert for Berlin, (DE|Germany) on [A-Z][a-z]{2} \d{1,2} [A-Z][a-z]+ \d{4}: high temperature .+ record high/)
      expect(alert).toContain(`${siteUrl}?lat=52.52&lon=13.4&date=`)
      // Every page says the weather is made up, and Sydney is in its own zone.
      await page.goto(`${siteUrl}?lat=-33.869&lon=151.209`)
      await page.locator(".grade-card").nth(2).waitFor({ timeout: 60_000 })
      expect(await page.locator(".demo-notice").textContent()).toContain("made up")
      expect(await page.locator(".place-cell").textContent()).toContain("Australia/Sydney")
      expect(await page.locator(".foot").textContent()).not.toContain("Open-Meteo")
      await page.goto(`${siteUrl}alerts`)
      expect(await page.locator(".demo-notice").textContent()).toContain("made up")
      const head = await (await fetch(`${siteUrl}?lat=-33.869&lon=151.209`)).text()
      expect(head).toMatch(/<title>Demo data, not real weather — /)
      await context.close()
    } finally {
      await browser.close()
    }

    // The operator command, on the demo's DATA_DIR, goes through the running service.
    const created = await run("pnpm", ["user:create", "--email", "ops@example.org"], clone, { DATA_DIR: ".demo/data" }, "a long demo password")
    expect(created.code, created.output).toBe(0)
    expect(created.output).toMatch(/created ops@example\.org .* through the running server/)
    const login = await fetch(`${siteUrl}api/v2/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "ops@example.org", password: "a long demo password" })
    })
    expect(login.status).toBe(204)

    process.kill(-child.pid!, "SIGINT")
    expect(await exited).toBe(0)
    expect(output).toContain("demo: stopping")
    await expect(fetch(siteUrl)).rejects.toThrow()
    await expect(fetch(inboxUrl)).rejects.toThrow()
    expect(readFileSync(join(clone, ".demo/server.log"), "utf8")).toContain("shutting down")
    expect(existsSync(join(clone, ".demo/data/climate-grade.lock"))).toBe(false)
  }, 900_000)
})
