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

describe("PlaceName.label: one way to write a place's name, whatever found it", () => {
  const word = FastCheck.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== "" && !s.includes(","))
  const code = FastCheck.constantFrom("de", "fr", "US", "jp", "Br", "")
  const field = FastCheck.constantFrom(...PlaceName.PLACE_FIELDS)
  const country = FastCheck.constantFrom("Deutschland", "France", "United States", "日本", "Brasil")

  it.prop(
    "the map's reverse lookup and the search name the same place the same way: the place, then the upper-cased code",
    [word, code, field, country],
    ([place, cc, where, countryName]) => {
      const address = { [where]: place, country: countryName, country_code: cc }
      const fromMap = PlaceName.ofAddress(address, "1.00°N 2.00°E")
      const fromSearch = PlaceName.ofSearchResult({ display_name: `${place}, Some Region, ${countryName}`, name: place, address })
      expect(fromSearch).toBe(fromMap)
      expect(fromMap).toBe(cc === "" ? place.trim() : `${place.trim()}, ${cc.toUpperCase()}`)
      // The geocoder's country name, in whatever language it answered, is never part of it.
      if (cc !== "") expect(fromMap.endsWith(countryName)).toBe(false)
    }
  )

  it("examples: search and map agree; no place is the coordinates; no address keeps the display name", () => {
    expect(PlaceName.ofSearchResult({ display_name: "Paris, Île-de-France, France métropolitaine, France", name: "Paris", address: { city: "Paris", country: "France", country_code: "fr" } })).toBe("Paris, FR")
    expect(PlaceName.ofAddress({ city: "Paris", country: "France", country_code: "fr" }, "x")).toBe("Paris, FR")
    expect(PlaceName.ofAddress({ city: "Berlin", country: "Deutschland", country_code: "de" }, "x")).toBe("Berlin, DE")
    expect(PlaceName.ofAddress({ country_code: "no" }, "60.00°N 5.00°E")).toBe("60.00°N 5.00°E, NO")
    expect(PlaceName.ofAddress({}, "60.00°N 5.00°E")).toBe("60.00°N 5.00°E")
    expect(PlaceName.ofSearchResult({ display_name: "Lisboa, Portugal", name: "Lisboa" })).toBe("Lisboa, Portugal")
    // A result's own name first (what was searched for), else its address's place.
    expect(PlaceName.ofSearchResult({ display_name: "Brooklyn, New York, United States", name: "Brooklyn", address: { city: "New York", country_code: "us" } })).toBe("Brooklyn, US")
    expect(PlaceName.ofSearchResult({ display_name: "X", address: { town: "Sintra", country_code: "pt" } })).toBe("Sintra, PT")
  })
})
