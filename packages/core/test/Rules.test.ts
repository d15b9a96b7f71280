/**
 * `@climate-grade/core/rules` is what pages import: bundled for a browser, nothing of `effect`, of
 * Node's built-ins or of a hashing library may come along with it.
 */
import { join } from "node:path"
import { build } from "esbuild"
import { describe, expect, it } from "vitest"

describe("the browser-safe rules", () => {
  it("bundle for a browser with no effect, no node: module and nothing outside the core's sources", async () => {
    const result = await build({
      entryPoints: [join(import.meta.dirname, "../src/rules.ts")],
      bundle: true,
      format: "esm",
      platform: "browser",
      write: false,
      metafile: true,
      logLevel: "silent"
    })
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs.filter((path) => !path.startsWith("src/") && !path.includes("packages/core/src/"))).toEqual([])
    expect(inputs.some((path) => path.endsWith("src/spells/Spells.ts"))).toBe(true)
  })

  it("name each of the rules' modules", async () => {
    const rules = await import("../src/rules.js")
    expect(Object.keys(rules).sort()).toEqual(
      [
        "Baseline",
        "Cell",
        "CivilDate",
        "DailySeries",
        "Grader",
        "Languages",
        "Messages",
        "PageMessages",
        "PageWords",
        "Palette",
        "PayloadVersion",
        "Percentile",
        "Ranking",
        "Refusal",
        "RetryAfter",
        "Sample",
        "Spans",
        "Spells",
        "Ties",
        "Trend",
        "Views",
        "Words"
      ].sort()
    )
  })
})
