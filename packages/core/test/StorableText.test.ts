import { describe, expect, it } from "@effect/vitest"
import { PasswordLogin, StorableText } from "@climate-grade/core"
import { parse } from "@climate-grade/core/oauth/Profile"
import { registry } from "@climate-grade/core/oauth/Providers"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"

/** Any UTF-16 text: code units drawn one by one, so lone surrogates and NULs are as likely as anything. */
const codeUnits = FastCheck.array(
  FastCheck.oneof(
    FastCheck.integer({ min: 0, max: 0xffff }),
    FastCheck.constantFrom(0, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0x41)
  ),
  { maxLength: 12 }
).map((units) => String.fromCharCode(...units))

/** What PostgreSQL would hold: the text's UTF-8 form, read back; a NUL is refused outright. */
const storedAs = (text: string): string | undefined =>
  text.includes("\u0000") ? undefined : new TextDecoder().decode(new TextEncoder().encode(text))

describe("StorableText", () => {
  it("a text is storable exactly when PostgreSQL would hold it unchanged", () => {
    const seen = { storable: 0, nul: 0, surrogate: 0 }
    FastCheck.assert(
      FastCheck.property(codeUnits, (text) => {
        const flaw = StorableText.flaw(text)
        seen[flaw ?? "storable"]++
        expect(flaw === undefined).toBe(storedAs(text) === text)
        if (flaw === "nul") expect(text).toContain("\u0000")
      }),
      { numRuns: 2_000 }
    )
    // Each outcome is common under this generator (about a third each); none can pass by absence.
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(100)
  })

  it("pairs are text, halves are not", () => {
    expect(StorableText.flaw("💥 ok")).toBeUndefined()
    expect(StorableText.flaw("\ud83d")).toBe("surrogate")
    expect(StorableText.flaw("\udca5\ud83d")).toBe("surrogate")
    expect(StorableText.flaw("a\u0000b")).toBe("nul")
  })

  it("finds the first flawed string of a JSON value, keys included, and says where", () => {
    expect(StorableText.flawInJson({ email: "a@b.c", kinds: ["heat", "x\u0000"] })).toEqual({ at: "kinds[1]", flaw: "nul" })
    expect(StorableText.flawInJson({ "k\ud800": 1 })).toEqual({ at: "k\ud800", flaw: "surrogate" })
    expect(StorableText.flawInJson({ a: { b: "\udfff" } })).toEqual({ at: "a.b", flaw: "surrogate" })
    expect(StorableText.flawInJson([1, true, null, { lat: 1.5 }])).toBeUndefined()
    FastCheck.assert(
      FastCheck.property(FastCheck.jsonValue(), codeUnits, (value, text) => {
        // A flawed text anywhere in a value is found; a value without one passes.
        const wrapped = { value, extra: [text] }
        const found = StorableText.flawInJson(wrapped)
        const clean = StorableText.flawInJson(value) === undefined
        if (clean) expect(found === undefined).toBe(StorableText.isStorable(text))
      })
    )
  })

  it("no account address is longer than 254 characters or unstorable: the operator's rule and the provider's profile", () => {
    const local = "a".repeat(64)
    const longest = `${local}@${"d".repeat(254 - 65)}`
    expect(longest.length).toBe(254)
    expect(PasswordLogin.newAccountEmail(longest)).toEqual(Either.right(longest))
    expect(Either.isLeft(PasswordLogin.newAccountEmail(`${longest}x`))).toBe(true)
    expect(Either.isLeft(PasswordLogin.newAccountEmail("x".repeat(10_000)))).toBe(true)
    for (const bad of ["nul\u0000@example.org", "a\ud800@example.org", "tab\t@x.org", "bell\u0007@x.org"]) {
      expect(Either.isLeft(PasswordLogin.newAccountEmail(bad)), JSON.stringify(bad)).toBe(true)
    }
    expect(PasswordLogin.couldBeAccount(longest)).toBe(true)
    expect(PasswordLogin.couldBeAccount(`${longest}x`)).toBe(false)
    expect(PasswordLogin.couldBeAccount("a\u0000@b.c")).toBe(false)

    const chat = registry.chat
    const profile = (email: unknown) => parse(chat, { [chat.idField]: "42", [chat.emailField]: email, verified: true })
    expect(profile(longest).email).toBe(longest)
    expect(profile(`${longest}x`).email).toBe("")
    expect(profile("a\ud800@example.org").email).toBe("")
    expect(parse(chat, { [chat.idField]: "4\u00002" }).subject).toBe("")
  })
})
