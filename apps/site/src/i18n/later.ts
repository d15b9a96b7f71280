/**
 * The words of what is drawn after the grades and of the account page (`./later/`): `w` takes their
 * keys and the page's first words' alike. English is here, with the code that uses it; another
 * language's are read from its chunk, which `laterWords` (./index.ts) fetched before these parts were
 * drawn.
 */
import { fill, laterCatalog, type SiteKey, w as first } from "./index.js"
import { type LaterKey, later as en } from "./later/en.js"

export type { LaterKey }

/** A word or sentence in the page's language, its `{name}` placeholders filled. */
export const w = (key: SiteKey | LaterKey, values: Readonly<Record<string, string | number>> = {}): string =>
  Object.hasOwn(en, key) ? fill(laterCatalog()?.[key as LaterKey] ?? en[key as LaterKey], values) : first(key as SiteKey, values)

/** A sentence around one placeholder, as its text before and after it (for an element in its place). */
export const around = (key: SiteKey | LaterKey, name: string): readonly [string, string] => {
  const text = w(key)
  const at = text.indexOf(`{${name}}`)
  return at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at + name.length + 2)]
}
