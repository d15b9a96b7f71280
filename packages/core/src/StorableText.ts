/**
 * Text that can be stored as it was sent. PostgreSQL's `text` holds UTF-8 without NUL: a U+0000
 * is refused by the server (an error that used to read as an outage), and an unpaired UTF-16
 * surrogate has no UTF-8 form at all (the driver writes U+FFFD instead, silently changing what
 * was sent). Every value a client sends is checked against this before it can reach a query.
 */

export type Flaw = "nul" | "surrogate"

/** The first reason `text` cannot be stored unchanged, if any. */
export const flaw = (text: string): Flaw | undefined => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0) return "nul"
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0
      if (next >= 0xdc00 && next <= 0xdfff) i++
      else return "surrogate"
    } else if (c >= 0xdc00 && c <= 0xdfff) return "surrogate"
  }
  return undefined
}

export const isStorable = (text: string): boolean => flaw(text) === undefined

/** The flaw in words, for a refusal's detail. */
export const describe = (f: Flaw): string =>
  f === "nul" ? "a NUL character (U+0000)" : "an unpaired surrogate (U+D800–U+DFFF without its pair)"

/** The first flawed string in a decoded JSON value (its keys included), with where it is: `email`, `kinds[1]`. */
export const flawInJson = (value: unknown, at = ""): { readonly at: string; readonly flaw: Flaw } | undefined => {
  if (typeof value === "string") {
    const f = flaw(value)
    return f === undefined ? undefined : { at, flaw: f }
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = flawInJson(value[i], `${at}[${i}]`)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      const name = at === "" ? key : `${at}.${key}`
      const f = flaw(key)
      if (f !== undefined) return { at: name, flaw: f }
      const found = flawInJson(inner, name)
      if (found !== undefined) return found
    }
  }
  return undefined
}
