import { describe, expect, it } from "@effect/vitest"
import { PlaceName } from "@climate-grade/core"
import * as FastCheck from "effect/FastCheck"

describe("PlaceName.parse", () => {
  it("keeps a name as typed, blanks collapsed and trimmed", () => {
    expect(PlaceName.parse("  Paris,\n  Île-de-France ")).toBe("Paris, Île-de-France")
    expect(PlaceName.parse("Lisbon")).toBe("Lisbon")
    expect(PlaceName.parse('<script>alert("x")</script>')).toBe('<script>alert("x")</script>')
  })

  it("drops controls and direction overrides; nothing left, or over 100 characters, is no name", () => {
    expect(PlaceName.parse("Ber\u0000lin\u202e")).toBe("Berlin")
    for (const none of [undefined, null, "", "   ", "\u0007\u202e", "x".repeat(101)]) expect(PlaceName.parse(none)).toBeNull()
    // Characters, not UTF-16 units: 100 emoji are 200 units and still a name.
    expect(PlaceName.parse("🌧".repeat(100))).toBe("🌧".repeat(100))
  })

  it("answers a name of 1 to 100 characters without controls or runs of blanks, or null", () => {
    let named = 0
    FastCheck.assert(
      FastCheck.property(FastCheck.string({ unit: "binary", maxLength: 130 }), (raw) => {
        const name = PlaceName.parse(raw)
        if (name === null) return
        named++
        expect([...name].length).toBeGreaterThan(0)
        expect([...name].length).toBeLessThanOrEqual(PlaceName.MAX_LENGTH)
        expect(name).not.toMatch(/[\p{Cc}\u202a-\u202e\u2066-\u2069]|\s\s|^\s|\s$/u)
        expect(PlaceName.parse(name)).toBe(name)
      }),
      { numRuns: 500 }
    )
    expect(named).toBeGreaterThan(100)
  })
})
