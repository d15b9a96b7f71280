/**
 * The place name a user picked from the search, carried in a place's address (`name=`) so the
 * page and a shared link say "Paris" rather than the label of the cell's centre. It is user input:
 * shown as text only, at most 100 characters. No imports: the site's bundle may use it as it is.
 */

export const MAX_LENGTH = 100

/** C0 and C1 controls, and the bidirectional overrides and isolates that could reorder what follows. */
const INVISIBLE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu

/**
 * The name as shown: NFC, controls removed, blanks collapsed, trimmed; null when nothing is left
 * or it is longer than `MAX_LENGTH` characters (code points) — then the cell's label is used.
 */
export const parse = (raw: string | null | undefined): string | null => {
  if (raw === null || raw === undefined) return null
  const name = raw.normalize("NFC").replace(INVISIBLE, "").replace(/\s+/gu, " ").trim()
  if (name === "" || [...name].length > MAX_LENGTH) return null
  return name
}
