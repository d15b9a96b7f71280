/**
 * The account page's way back to the place a person came from ("Sign in to watch this place"): the
 * `return=` of its address, checked (returnPath.ts), kept in this tab while a sign-in provider's
 * round trip lands on the page's fixed address without it, and put back into the address then, so
 * a reload keeps it. An address with neither a return nor a sign-in outcome forgets it.
 */
import { siteBase } from "../api.js"
import { basePathOf, returnPlace, safeReturn } from "../returnPath.js"
import { keepReturn, keptReturn } from "../storage.js"

export interface Return {
  /** The main page's path for the place, e.g. "/climate/?lat=38.7&lon=-9.1&name=Lisbon". */
  readonly path: string
  /** The place in words, for "Back to {place}". */
  readonly place: string
}

export const returnOf = (): Return | null => {
  const q = new URLSearchParams(location.search)
  const base = basePathOf(siteBase)
  const given = q.get("return")
  let path: string | null
  if (given !== null) {
    path = safeReturn(given, base)
    keepReturn(path)
  } else if (q.has("oauth") || q.has("chat")) {
    path = safeReturn(keptReturn(), base)
    if (path !== null) {
      q.set("return", path)
      history.replaceState(history.state, "", `?${q}`)
    }
  } else {
    path = null
    keepReturn(null)
  }
  return path === null ? null : { path, place: returnPlace(path) }
}
