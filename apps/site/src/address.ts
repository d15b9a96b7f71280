/**
 * The page's state lives in its address (`?lat=&lon=&date=&units=`), so a link can be shared and
 * back/forward work. Parsing is strict and pure: a bad value is dropped, never guessed.
 */
import type { Units } from "./payloads.js"

export interface Address {
  readonly lat: number | null
  readonly lon: number | null
  readonly date: string | null
  readonly units: Units | null
}

const DATE = /^\d{4}-\d{2}-\d{2}$/

const coordinate = (text: string | null, limit: number): number | null => {
  if (text === null || text.trim() === "") return null
  const value = Number(text)
  return Number.isFinite(value) && Math.abs(value) <= limit ? value : null
}

export const parseAddress = (search: string): Address => {
  const q = new URLSearchParams(search)
  const lat = coordinate(q.get("lat"), 90)
  const lon = coordinate(q.get("lon"), 180)
  const date = q.get("date")
  const units = q.get("units")
  return {
    lat: lat !== null && lon !== null ? lat : null,
    lon: lat !== null && lon !== null ? lon : null,
    date: date !== null && DATE.test(date) ? date : null,
    units: units === "metric" || units === "imperial" ? units : null
  }
}

/** `?lat=…&lon=…` with coordinates kept as given (two decimals), then date and units when set. */
export const formatAddress = (a: Address): string => {
  const q = new URLSearchParams()
  if (a.lat !== null && a.lon !== null) {
    q.set("lat", String(Number(a.lat.toFixed(4))))
    q.set("lon", String(Number(a.lon.toFixed(4))))
  }
  if (a.date !== null) q.set("date", a.date)
  if (a.units !== null) q.set("units", a.units)
  const text = q.toString()
  return text === "" ? "./" : `?${text}`
}

/** imperial for an en-US browser, metric otherwise (CONTRACT.md §8). */
export const defaultUnits = (languages: ReadonlyArray<string>): Units =>
  (languages[0] ?? "").toLowerCase() === "en-us" ? "imperial" : "metric"
