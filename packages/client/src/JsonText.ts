/**
 * The members of a JSON object found as ranges of its text, without building its values: a bundle's
 * slices are stored as the text the server sent, so a 40 KB calendar is neither decoded nor handed
 * to IndexedDB as an object graph to clone (structured clone of a string is a copy of its bytes).
 * Only the few small values the client checks (`view`, `v`, an `etag`, a `date`) are parsed.
 *
 * It finds where values start and end, it does not validate them: text that is not well-formed
 * JSON inside a value is caught when a reader parses it (Payload.ts), and the entry is dropped then.
 */
export interface Span {
  readonly start: number
  readonly end: number
}

/** The object's members in text order: name → the span of its value. */
export type Members = ReadonlyMap<string, Span>

const SPACE = /[ \t\n\r]*/y
/** Characters that can neither open nor close a string or a nested value: skipped in one native step. */
const PLAIN = /[^"[\]{}]*/y
/** A number, `true`, `false` or `null` runs up to the next delimiter. */
const SCALAR = /[^,}\] \t\n\r]*/y

const skip = (pattern: RegExp, text: string, at: number): number => {
  if (at >= text.length) return at
  pattern.lastIndex = at
  pattern.test(text)
  return pattern.lastIndex
}

/** The index just past the string opening at `at`, or -1 when it never closes. */
const endOfString = (text: string, at: number): number => {
  let quote = at
  for (;;) {
    quote = text.indexOf('"', quote + 1)
    if (quote < 0) return -1
    let slashes = 0
    while (text.charCodeAt(quote - 1 - slashes) === 92) slashes++
    if (slashes % 2 === 0) return quote + 1
  }
}

/** The index just past the value starting at `at`, or -1. */
const endOfValue = (text: string, at: number): number => {
  const first = text[at]
  if (first === '"') return endOfString(text, at)
  if (first === "{" || first === "[") {
    let depth = 0
    let i = at
    for (;;) {
      i = skip(PLAIN, text, i)
      const c = text[i]
      if (c === undefined) return -1
      if (c === '"') {
        i = endOfString(text, i)
        if (i < 0) return -1
        continue
      }
      depth += c === "{" || c === "[" ? 1 : -1
      i++
      if (depth === 0) return i
    }
  }
  const end = skip(SCALAR, text, at)
  return end > at ? end : -1
}

/** The `}` at `at` ends the span: only white space follows it within. */
const closes = (text: string, at: number, span: Span): boolean => at < span.end && skip(SPACE, text, at + 1) >= span.end

/** The members of the object that `span` of `text` holds (the whole text by default), or null if it holds none. */
export const members = (text: string, span: Span = { start: 0, end: text.length }): Members | null => {
  const out = new Map<string, Span>()
  let i = skip(SPACE, text, span.start)
  if (text[i] !== "{") return null
  i = skip(SPACE, text, i + 1)
  if (text[i] === "}") return closes(text, i, span) ? out : null
  for (;;) {
    if (text[i] !== '"') return null
    const nameEnd = endOfString(text, i)
    if (nameEnd < 0) return null
    const quoted = text.slice(i, nameEnd)
    const name = quoted.includes("\\") ? (JSON.parse(quoted) as string) : quoted.slice(1, -1)
    i = skip(SPACE, text, nameEnd)
    if (text[i] !== ":") return null
    const start = skip(SPACE, text, i + 1)
    const end = endOfValue(text, start)
    if (end < 0 || end > span.end) return null
    out.set(name, { start, end })
    i = skip(SPACE, text, end)
    if (text[i] === ",") {
      i = skip(SPACE, text, i + 1)
      continue
    }
    if (text[i] === "}") return closes(text, i, span) ? out : null
    return null
  }
}

export type JsonKind = "object" | "array" | "string" | "number" | "boolean" | "null"

/** A value's kind, from its first character. */
export const kindOf = (text: string, span: Span): JsonKind => {
  const c = text[span.start]
  return c === "{"
    ? "object"
    : c === "["
      ? "array"
      : c === '"'
        ? "string"
        : c === "t" || c === "f"
          ? "boolean"
          : c === "n"
            ? "null"
            : "number"
}

export const textOf = (text: string, span: Span): string => text.slice(span.start, span.end)

/** A small value, parsed (a malformed one is `undefined`, which no check accepts). */
export const valueOf = (text: string, span: Span | undefined): unknown => {
  if (span === undefined) return undefined
  try {
    return JSON.parse(textOf(text, span))
  } catch {
    return undefined
  }
}
