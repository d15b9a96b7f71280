/**
 * The page's state lives in its address (`?lat=&lon=&name=&date=&units=`), so a link can be shared
 * and back/forward work. Parsing is strict and pure: a bad value is dropped, never guessed, and
 * coordinates that are not a place say why (`problem`), so the page can tell the person.
 */
import { parse as parsePlaceName } from "@climate-grade/core/places/PlaceName"
import { Cell } from "@climate-grade/core/rules"
import { w } from "./i18n/index.js"
import type { Units } from "./payloads.js"

export interface Address {
  readonly lat: number | null
  readonly lon: number | null
  /** The place name picked in the search (user input: shown as text only), when there is one. */
  readonly name: string | null
  readonly date: string | null
  readonly units: Units | null
}

const DATE = /^\d{4}-\d{2}-\d{2}$/

const NUMBER = /^[+\-\u2212]?(\d+(?:[.,]\d*)?|[.,]\d+)$/

/** One number as people write it, with a decimal point or comma ("48,85", "−9.1"); null when it is not one. */
export const parseNumber = (text: string): number | null => {
  const t = text.trim()
  if (!NUMBER.test(t)) return null
  const value = Number(t.replace("\u2212", "-").replace(",", "."))
  return Number.isFinite(value) ? value : null
}

/** A written value as quoted back to the person: short, so a long address stays readable. */
const quoted = (text: string) => w("address.quoted", { text: [...text].length > 24 ? `${[...text].slice(0, 24).join("")}…` : text })

type Coordinate = { readonly value: number } | { readonly problem: string } | null

const coordinate = (text: string | null, axis: "lat" | "lon"): Coordinate => {
  if (text === null || text.trim() === "") return null
  const value = parseNumber(text)
  if (value === null) return { problem: w(`address.${axis}.nan`, { value: quoted(text) }) }
  if (!Cell.inRange(axis, value)) return { problem: w(`address.${axis}.range`, { value: quoted(text) }) }
  return { value }
}

/** Why an address's coordinates show no place, in words; null when they are a place or absent. */
export const addressProblem = (search: string): string | null => {
  const q = new URLSearchParams(search)
  const lat = coordinate(q.get("lat"), "lat")
  const lon = coordinate(q.get("lon"), "lon")
  const [first, second] = [lat, lon].flatMap((c) => (c !== null && "problem" in c ? [c.problem] : []))
  if (first !== undefined) return w("address.none", { problems: second === undefined ? first : w("address.both", { first, second }) })
  if ((lat === null) !== (lon === null)) return w(lat === null ? "address.lon-only" : "address.lat-only")
  return null
}

export const parseAddress = (search: string): Address => {
  const q = new URLSearchParams(search)
  const lat = coordinate(q.get("lat"), "lat")
  const lon = coordinate(q.get("lon"), "lon")
  const place = lat !== null && "value" in lat && lon !== null && "value" in lon ? { lat: lat.value, lon: lon.value } : null
  const date = q.get("date")
  const units = q.get("units")
  return {
    lat: place?.lat ?? null,
    lon: place?.lon ?? null,
    name: place === null ? null : parsePlaceName(q.get("name")),
    date: date !== null && DATE.test(date) ? date : null,
    units: units === "metric" || units === "imperial" ? units : null
  }
}

/** `?lat=…&lon=…` with coordinates kept as given (four decimals), then name, date and units when set. */
export const formatAddress = (a: Address): string => {
  const q = new URLSearchParams()
  if (a.lat !== null && a.lon !== null) {
    q.set("lat", String(Number(a.lat.toFixed(4))))
    q.set("lon", String(Number(a.lon.toFixed(4))))
    if (a.name !== null) q.set("name", a.name)
  }
  if (a.date !== null) q.set("date", a.date)
  if (a.units !== null) q.set("units", a.units)
  const text = q.toString()
  return text === "" ? "./" : `?${text}`
}

/** imperial for an en-US browser, metric otherwise. */
export const defaultUnits = (languages: ReadonlyArray<string>): Units =>
  (languages[0] ?? "").toLowerCase() === "en-us" ? "imperial" : "metric"

/**
 * A name picked in the search, fitted to what an address keeps (`name=`, at most 100 characters):
 * a longer geocoder label is cut after its last whole part that fits ("Lisbon, Maine, …").
 */
export const fitName = (label: string): string | null => {
  const whole = parsePlaceName(label)
  if (whole !== null) return whole
  const chars = [...label.normalize("NFC")]
  const head = chars.slice(0, 100).join("")
  const comma = head.lastIndexOf(", ")
  return parsePlaceName(comma > 0 ? head.slice(0, comma) : head)
}
