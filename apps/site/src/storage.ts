/**
 * What the browser remembers for the person: the chosen units and the recent places. localStorage
 * can be missing or full (private windows, quotas); then the page simply forgets.
 */
import type { Units } from "./payloads.js"

const UNITS_KEY = "climate-grade:units"
const RECENT_KEY = "climate-grade:recent"
const RECENT_MAX = 6

export interface RecentPlace {
  readonly label: string
  readonly lat: number
  readonly lon: number
}

const read = (key: string): string | null => {
  try {
    return globalThis.localStorage?.getItem(key) ?? null
  } catch {
    return null
  }
}

const write = (key: string, value: string): void => {
  try {
    globalThis.localStorage?.setItem(key, value)
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
  Number.isFinite((x as RecentPlace).lon)

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
