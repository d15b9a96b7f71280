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

/**
 * The address fields that name a place in a Nominatim answer, most specific first: a cell's label
 * is the first of them that is set (docs/api.md "Place labels").
 */
export const PLACE_FIELDS = ["city", "town", "village", "municipality", "county", "state"] as const

const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined)

/** The first place field set in an address, trimmed. */
export const placeOf = (address: Readonly<Record<string, unknown>>): string | undefined => {
  for (const field of PLACE_FIELDS) {
    const v = text(address[field])
    if (v !== undefined) return v
  }
  return undefined
}

/** An address's ISO country code, upper-cased ("DE"); "" when it has none. */
export const countryCodeOf = (address: Readonly<Record<string, unknown>>): string => text(address.country_code)?.toUpperCase() ?? ""

/**
 * One way to write a place's name, whatever found it (a cell's reverse lookup, the place search):
 * the place, ", " and the upper-cased country code — "Paris, FR", "Berlin, DE" — never the country
 * in whatever language the geocoder answered ("Berlin, Deutschland"). Without a place, `fallback`
 * (a cell's coordinates) with the code; without a code, the place alone.
 */
export const label = (place: string | undefined, countryCode: string, fallback: string): string => {
  const name = place?.trim() || fallback
  const code = countryCode.trim().toUpperCase()
  return code === "" ? name : `${name}, ${code}`
}

/** A cell's label from its reverse lookup's address (`fallback`: the cell's coordinates). */
export const ofAddress = (address: Readonly<Record<string, unknown>>, fallback: string): string =>
  label(placeOf(address), countryCodeOf(address), fallback)

/**
 * A search result's label by the same rule: its own name (else its address's place) and its
 * address's country code. A result without an address (asked without `addressdetails`) keeps its
 * display name, the only name it gives.
 */
export const ofSearchResult = (result: {
  readonly display_name: string
  readonly name?: string | undefined
  readonly address?: Readonly<Record<string, unknown>> | undefined
}): string => {
  const display = result.display_name.trim() !== "" ? result.display_name.trim() : (result.name ?? "").trim()
  if (result.address === undefined) return display
  const place = text(result.name) ?? placeOf(result.address)
  return place === undefined ? display : label(place, countryCodeOf(result.address), display)
}
