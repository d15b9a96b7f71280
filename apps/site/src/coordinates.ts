/**
 * Coordinates as people type and paste them: a decimal comma ("48,85"), a real minus sign, a pair in
 * one piece ("48.85 2.35", "48.85, 2.35", "48,85 2,35", "48.85;2.35") and this page's own way of
 * writing a cell ("48.75°N 2.25°E"). Pure, so every form is tested without a browser.
 */
import { Cell } from "@climate-grade/core/rules"
import { parseNumber } from "./address.js"
import { w } from "./i18n/later.js"

export type PairResult =
  | { readonly tag: "pair"; readonly lat: number; readonly lon: number }
  /** Coordinates, but not a place: `message` says why, for the person who typed them. */
  | { readonly tag: "invalid"; readonly message: string }
  /** Not coordinates at all (a place name, or one number alone). */
  | { readonly tag: "none" }

/** A number with an optional degree sign and hemisphere letter: "48.75°N", "2,25 E", "-9.1". */
const HEMISPHERE = /^(.*?)\s*°?\s*([NSEWnsew])?$/

interface Part {
  readonly value: number
  readonly axis: "lat" | "lon" | null
}

const part = (text: string): Part | null => {
  const match = HEMISPHERE.exec(text.trim())
  if (match === null) return null
  const value = parseNumber(match[1]!.replace(/°$/, ""))
  if (value === null) return null
  const letter = match[2]?.toUpperCase()
  if (letter === undefined) return { value, axis: null }
  // A hemisphere letter says the sign; a minus sign as well would say it twice.
  if (value < 0) return null
  return { value: letter === "S" || letter === "W" ? -value : value, axis: letter === "N" || letter === "S" ? "lat" : "lon" }
}

/** The two pieces of a pasted pair, or null when the text is not two pieces. */
const split = (text: string): readonly [string, string] | null => {
  // A degree sign or hemisphere letter set apart belongs to the number before it: "48.85 ° N" is "48.85°N".
  const t = text
    .trim()
    .replace(/(\d)\s*°/g, "$1°")
    .replace(/(\d°?)\s+([NSEWnsew])(?![a-z])/g, "$1$2")
  let pieces: Array<string>
  if (t.includes(";")) pieces = t.split(";")
  else if (/\s/.test(t)) pieces = t.split(/\s*,\s+|\s+,?\s*/)
  // No blank: "48.85,2.35" is a pair; "48,85" is one number written with a decimal comma.
  else if ((t.match(/,/g) ?? []).length === 1 && t.includes(".")) pieces = t.split(",")
  else return null
  return pieces.length === 2 ? [pieces[0]!, pieces[1]!] : null
}


/** Whether the two numbers are a place; the message says which one is not. */
export const checkRange = (lat: number, lon: number): PairResult =>
  !Cell.inRange("lat", lat)
    ? { tag: "invalid", message: w("coords.lat.not", { value: formatTyped(lat) }) }
    : !Cell.inRange("lon", lon)
      ? { tag: "invalid", message: w("coords.lon.not", { value: formatTyped(lon) }) }
      : { tag: "pair", lat, lon }

const formatTyped = (x: number) => String(x).replace("-", "−")

/**
 * A latitude and longitude in one piece of text. Latitude first, unless hemisphere letters say
 * otherwise ("2.35E 48.85N").
 */
export const parsePair = (text: string): PairResult => {
  const pieces = split(text.replace(/[()[\]]/g, " "))
  if (pieces === null) return { tag: "none" }
  const a = part(pieces[0])
  const b = part(pieces[1])
  if (a === null || b === null) return { tag: "none" }
  if (a.axis !== null && a.axis === b.axis) {
    return { tag: "invalid", message: w("coords.one-each") }
  }
  const [lat, lon] = a.axis === "lon" || b.axis === "lat" ? [b.value, a.value] : [a.value, b.value]
  return checkRange(lat, lon)
}

/**
 * The coordinates form: a number in each field (a decimal comma too), or a pair typed or pasted into
 * one field with the other left empty.
 */
export const readForm = (lat: string, lon: string): PairResult => {
  const pair = lon.trim() === "" ? parsePair(lat) : lat.trim() === "" ? parsePair(lon) : ({ tag: "none" } as const)
  if (pair.tag !== "none") return pair
  const a = parseNumber(lat)
  if (a === null) return { tag: "invalid", message: w("coords.lat.range") }
  const b = parseNumber(lon)
  if (b === null) return { tag: "invalid", message: w("coords.lon.range") }
  return checkRange(a, b)
}
