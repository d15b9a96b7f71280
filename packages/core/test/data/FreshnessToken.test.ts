import { describe, expect, it } from "@effect/vitest"
import { FreshnessToken } from "@climate-grade/core"

const base: FreshnessToken.TokenInputs = {
  view: "grade",
  cell: "47.25,-122.50",
  params: { date: "2026-11-22" },
  label: "Seattle, US",
  timezone: "America/Los_Angeles",
  recordEnd: "2026-11-17",
  forecastStamp: 1_795_000_000_000
}

describe("FreshnessToken", () => {
  it("is stable for equal inputs, whatever the key order", () => {
    const withParams = { ...base, params: { date: "2026-11-22", source: "forecast" } }
    // The same inputs with every key, top-level and nested, in reverse order.
    const reversed = Object.fromEntries(
      Object.entries(withParams)
        .reverse()
        .map(([k, v]) => [k, k === "params" ? Object.fromEntries(Object.entries(v as object).reverse()) : v])
    ) as unknown as FreshnessToken.TokenInputs
    // The reordering is real: a plain serialization tells the two apart.
    expect(Object.keys(reversed)).toEqual(Object.keys(withParams).reverse())
    expect(Object.keys(reversed.params)).toEqual(["source", "date"])
    expect(JSON.stringify(reversed)).not.toBe(JSON.stringify(withParams))
    expect(FreshnessToken.make(reversed)).toBe(FreshnessToken.make(withParams))
    expect(FreshnessToken.make(base)).toMatch(/^[0-9a-f]{32}$/)
  })

  it("changes with everything that can change the payload's bytes", () => {
    const variants: ReadonlyArray<Partial<FreshnessToken.TokenInputs>> = [
      { view: "day" },
      { cell: "47.50,-122.50" },
      { params: { date: "2026-11-23" } },
      { label: null },
      { timezone: "UTC" },
      { recordEnd: "2026-11-18" },
      { forecastStamp: null },
      { forecastStamp: 1_795_000_003_600 }
    ]
    const tokens = new Set([FreshnessToken.make(base), ...variants.map((v) => FreshnessToken.make({ ...base, ...v }))])
    expect(tokens.size).toBe(variants.length + 1)
  })

  it("the bundle's token depends on every slice's token and on their order", () => {
    const a = FreshnessToken.combine(["a", "b", null, "d"])
    expect(FreshnessToken.combine(["a", "b", null, "d"])).toBe(a)
    expect(FreshnessToken.combine(["b", "a", null, "d"])).not.toBe(a)
    expect(FreshnessToken.combine(["a", "b", "c", "d"])).not.toBe(a)
  })

  it("the bundle's token hashes its slices' ETags, so it is the one clients already hold", () => {
    // The value from when the caller passed ETags (`W/"a"`, …): hashing tokens, or ETags in any
    // other format, would change every bundle's ETag under clients' feet.
    expect(FreshnessToken.combine(["a", "b", null, "d"])).toBe("4ef493f3d00e09211cbf115c025a7e1a")
  })

  it("a payload's ETag is the weak entity-tag of its token", () => {
    expect(FreshnessToken.etag("4ef493f3d00e09211cbf115c025a7e1a")).toBe('W/"4ef493f3d00e09211cbf115c025a7e1a"')
  })
})
