/**
 * What the browser remembers for the person: the chosen units and the recent places. localStorage
 * can be missing or full (private windows, quotas); then the page simply forgets. At sign-out the
 * personal part (the recent places, the watched places' names) is forgotten: `forgetPersonal`.
 */
import type { Units } from "./payloads.js"

const UNITS_KEY = "climate-grade:units"
const RECENT_KEY = "climate-grade:recent"
const RECENT_MAX = 6

export interface RecentPlace {
  /** What the list shows: the name picked in the search, else the cell's label. */
  readonly label: string
  readonly lat: number
  readonly lon: number
  /** The name picked in the search, carried into the place's address (`name=`). */
  readonly name?: string | null
}

const read = (key: string, store: "localStorage" | "sessionStorage" = "localStorage"): string | null => {
  try {
    return globalThis[store]?.getItem(key) ?? null
  } catch {
    // Storage refused (privacy mode, a sandbox): nothing remembered.
    return null
  }
}

const write = (key: string, value: string | null, store: "localStorage" | "sessionStorage" = "localStorage"): void => {
  try {
    if (value === null) globalThis[store]?.removeItem(key)
    else globalThis[store]?.setItem(key, value)
  } catch {
    // Storage refused (quota, privacy mode): remembering is a courtesy, not a requirement.
  }
}

export const storedUnits = (): Units | null => {
  const value = read(UNITS_KEY)
  return value === "metric" || value === "imperial" ? value : null
}

export const storeUnits = (units: Units): void => write(UNITS_KEY, units)

const isRecent = (x: unknown): x is RecentPlace =>
  typeof x === "object" &&
  x !== null &&
  typeof (x as RecentPlace).label === "string" &&
  Number.isFinite((x as RecentPlace).lat) &&
  Number.isFinite((x as RecentPlace).lon) &&
  ((x as RecentPlace).name === undefined || (x as RecentPlace).name === null || typeof (x as RecentPlace).name === "string")

export const recentPlaces = (): ReadonlyArray<RecentPlace> => {
  try {
    const parsed: unknown = JSON.parse(read(RECENT_KEY) ?? "[]")
    return Array.isArray(parsed) ? parsed.filter(isRecent).slice(0, RECENT_MAX) : []
  } catch {
    return []
  }
}

/** Most recent first, one entry per cell. */
export const rememberPlace = (place: RecentPlace): ReadonlyArray<RecentPlace> => {
  const same = (p: RecentPlace) => p.lat === place.lat && p.lon === place.lon
  const next = [place, ...recentPlaces().filter((p) => !same(p))].slice(0, RECENT_MAX)
  write(RECENT_KEY, JSON.stringify(next))
  return next
}

export const forgetPlaces = (): void => write(RECENT_KEY, "[]")

const SIGNED_IN_KEY = "climate-grade:signed-in"

/**
 * Whether this browser was last seen signed in. The session cookie is HttpOnly, so the page cannot
 * see it; the account page (where every sign-in lands) notes the answer of users/me here, and the main
 * page asks users/me only when it is set, so a visitor's page makes no request that can only answer 401.
 */
export const maybeSignedIn = (): boolean => read(SIGNED_IN_KEY) === "1"

export const rememberSignedIn = (signedIn: boolean): void => write(SIGNED_IN_KEY, signedIn ? "1" : "0")

const NAMES_KEY = "climate-grade:names"
const NAMES_MAX = 50

/** The names picked for watched cells, by cell key ("52.50,13.50"): the API keeps a watch's label, not the name. */
export const watchNames = (): Readonly<Record<string, string>> => {
  try {
    const parsed: unknown = JSON.parse(read(NAMES_KEY) ?? "{}")
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {}
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === "string"))
  } catch {
    // Not JSON (written by hand, or cut short): nothing remembered.
    return {}
  }
}

/** Remembers the name a watched cell was picked by (the newest 50). */
export const rememberName = (cell: string, name: string): void => {
  const rest = Object.entries(watchNames()).filter(([key]) => key !== cell)
  write(NAMES_KEY, JSON.stringify(Object.fromEntries([...rest, [cell, name]].slice(-NAMES_MAX))))
}

/**
 * At sign-out or account deletion: the recent places and the watched places' names go, and the
 * browser is noted as signed out; the units stay (they say nothing of the person).
 */
export const forgetPersonal = (): void => {
  write(RECENT_KEY, null)
  write(NAMES_KEY, null)
  rememberSignedIn(false)
}

const RETURN_KEY = "climate-grade:return"

/**
 * Where the account page leads back to, kept in this tab across a sign-in provider's round trip (the
 * provider's redirect lands on the account page's fixed address, without it). Whoever reads it
 * checks it again (returnPath.ts): storage is no more trusted than the address.
 */
export const keptReturn = (): string | null => read(RETURN_KEY, "sessionStorage")

export const keepReturn = (path: string | null): void => write(RETURN_KEY, path, "sessionStorage")
