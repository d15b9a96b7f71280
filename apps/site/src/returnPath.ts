/**
 * Where the account page sends a person back to after signing in: the main page of this site, for
 * the place they wanted to watch. The address arrives as `return=` in the account page's address,
 * which anyone can write, so it is taken only when it is the main page's own path
 * (`{BASE_PATH}/`) with a query at most: never another origin (`//evil.example`,
 * `https://evil.example`, `/\evil.example`), never a `javascript:` or other scheme, never another
 * path on this origin, and never anything that only becomes one of these once decoded again. Pure.
 */

/** What a path and query may hold as written: RFC 3986's characters, percent escapes, nothing else. */
const URL_TEXT = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/
const ESCAPES = /%(?![0-9A-Fa-f]{2})/

import { formatCoordinates } from "./format.js"

/** The parameters a place's address has; anything else in a return address is dropped. */
const KEPT = ["lat", "lon", "name", "date", "units"] as const

/**
 * The main page's address from `raw` (`{basePath}/` or `{basePath}/?…`), rebuilt from its checked
 * parameters; null for anything else. `basePath` is "" or "/climate" (no trailing slash).
 */
export const safeReturn = (raw: string | null | undefined, basePath: string): string | null => {
  if (typeof raw !== "string") return null
  const page = `${basePath}/`
  // The page's path exactly, then nothing or a query: "/climate/?lat=1" but not "/climate//x",
  // "/climate/../", "//evil.example" or "/%2F%2Fevil.example".
  if (raw !== page && !raw.startsWith(`${page}?`)) return null
  if (!URL_TEXT.test(raw) || ESCAPES.test(raw)) return null
  const params = new URLSearchParams(raw.slice(page.length + 1))
  const kept = new URLSearchParams()
  for (const key of KEPT) {
    const value = params.get(key)
    if (value !== null) kept.set(key, value)
  }
  const text = kept.toString()
  return text === "" ? page : `${page}?${text}`
}

/** The site's base path ("" or "/climate") from its root address (`{origin}{BASE_PATH}/`). */
export const basePathOf = (siteRoot: URL): string => siteRoot.pathname.replace(/\/$/, "")

/** The account page's address with a return to `path` (a main-page path checked by `safeReturn`). */
export const accountHref = (path: string | null): string => (path === null ? "alerts" : `alerts?${new URLSearchParams({ return: path })}`)

/** How a "Back to …" link names the place of a checked return path: its name, else its coordinates. */
export const returnPlace = (path: string): string => {
  const q = new URLSearchParams(path.slice(path.indexOf("?") + 1))
  const name = q.get("name")
  if (name !== null && name.trim() !== "") return name
  const lat = Number(q.get("lat"))
  const lon = Number(q.get("lon"))
  return q.has("lat") && q.has("lon") && Number.isFinite(lat) && Number.isFinite(lon) ? formatCoordinates(lat, lon) : "the grades"
}
