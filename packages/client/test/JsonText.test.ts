/** The JSON member scanner against JSON.parse: the same members and values, on any JSON object text. */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { kindOf, members, textOf } from "../src/JsonText.js"

/** Objects with at least one member, keys and strings over all of Unicode (quotes, backslashes, controls). */
const object = FastCheck.dictionary(FastCheck.fullUnicodeString(), FastCheck.unicodeJsonValue(), { minKeys: 1, maxKeys: 8 })
const indent = FastCheck.constantFrom(undefined, 0, 2, "\t")

const kind = (u: unknown) => (u === null ? "null" : Array.isArray(u) ? "array" : typeof u)

describe("members", () => {
  it.prop("finds every member of an object's text, in order, each value's text parsing to the member's value", [object, indent], ([value, space]) => {
    const text = JSON.stringify(value, null, space)
    const parsed = JSON.parse(text) as Record<string, unknown>
    const found = members(text)
    expect(found).not.toBeNull()
    expect([...found!.keys()]).toEqual(Object.keys(parsed))
    expect(found!.size).toBeGreaterThan(0)
    for (const [name, span] of found!) {
      expect(JSON.parse(textOf(text, span))).toEqual(parsed[name])
      expect(kindOf(text, span)).toBe(kind(parsed[name]))
    }
  })

  it.prop("a member's span of a nested object is itself an object's text, last member or not", [object, object, indent, FastCheck.boolean()], ([outer, inner, space, last]) => {
    const text = JSON.stringify(last ? { ...outer, nested: inner } : { ...outer, nested: inner, after: outer }, null, space)
    const nested = members(text)!.get("nested")!
    const found = members(text, nested)
    expect(found).not.toBeNull()
    expect(Object.fromEntries([...found!].map(([k, s]) => [k, JSON.parse(textOf(text, s))]))).toEqual(JSON.parse(JSON.stringify(inner)))
  })

  it.prop("anything but an object is not one", [FastCheck.unicodeJsonValue().filter((u) => kind(u) !== "object")], ([value]) => {
    expect(members(JSON.stringify(value))).toBeNull()
  })

  it("an empty object has no members; truncated or broken text has none either", () => {
    expect(members(" { } ")).toEqual(new Map())
    const text = JSON.stringify({ a: [1, { b: "x\\\"}" }], c: "d" })
    for (let cut = 0; cut < text.length; cut++) expect(members(text.slice(0, cut))).toBeNull()
    expect(members('{"a" 1}')).toBeNull()
    expect(members('{"a":1,}')).toBeNull()
    expect(members('{"a":1} x')).toBeNull()
  })
})
