/**
 * The end of a run says what was skipped and why (vitest.global.ts prints `Skips.summary` of what the
 * test processes noted): the PostgreSQL half above all, which a green run on PGlite alone hides.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Skips from "@climate-grade/testing/Skips"

describe("the run's summary of skips", () => {
  it("names the PostgreSQL half when it did not run, in the banner and in the list", () => {
    const text = Skips.summary([], false)
    expect(text).toContain("POSTGRESQL TESTS DID NOT RUN")
    expect(text).toContain("  - every database test on PostgreSQL (they ran on PGlite only): no DATABASE_URL and no Docker engine")
    expect(text).not.toContain("nothing")
  })

  it("says nothing was skipped only when nothing was, the PostgreSQL half included", () => {
    const text = Skips.summary([], true)
    expect(text).not.toContain("POSTGRESQL")
    expect(text).toContain("Skipped in this run for want of something on this machine: nothing.")
  })

  it("lists each skip the test processes noted, once, with its reason", () => {
    const dir = mkdtempSync(join(tmpdir(), "skips-test-"))
    const file = join(dir, "skips.jsonl")
    const previous = process.env[Skips.ENV]
    process.env[Skips.ENV] = file
    try {
      Skips.note("grading against scipy and numpy", "python3 on PATH cannot import scipy and numpy")
      // Two test files noting the same skip: said once.
      expect(Skips.unless(false, "the deployment test", "no nginx")).toBe(false)
      expect(Skips.unless(false, "the deployment test", "no nginx")).toBe(false)
      expect(Skips.unless(true, "not skipped", "never said")).toBe(true)
      const text = Skips.summary(Skips.read(file), true)
      expect(text.split("\n").filter((l) => l.startsWith("  - "))).toEqual([
        "  - grading against scipy and numpy: python3 on PATH cannot import scipy and numpy",
        "  - the deployment test: no nginx"
      ])
    } finally {
      if (previous === undefined) delete process.env[Skips.ENV]
      else process.env[Skips.ENV] = previous
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
