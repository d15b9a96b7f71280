/**
 * The cheap checks of what the server sends and what the store gives back: a payload's `view`, its
 * `v` against the core's PAYLOAD_VER, and the kinds of the fields its row in Views.ts names; a
 * bundle split into its slices' ETags and texts. Nothing here decodes a payload it does not need to.
 */
import { PAYLOAD_VER } from "@climate-grade/core/data/PayloadVersion"
import { kindOf, type Members, members, type Span, textOf, valueOf } from "./JsonText.js"
import type { StoredEntry } from "./Store.js"
import { type Kind, SLICES, type SliceName, VIEWS, type ViewName } from "./Views.js"

const kindOfValue = (u: unknown): string => (u === null ? "null" : Array.isArray(u) ? "array" : typeof u)

/** A parsed payload of `view`, of the version this client knows, with the fields its row names. */
export const isPayload = (view: ViewName, data: unknown): boolean => {
  if (typeof data !== "object" || data === null) return false
  const d = data as Readonly<Record<string, unknown>>
  if (d.view !== view || d.v !== PAYLOAD_VER[view]) return false
  const fields: Readonly<Record<string, Kind>> = VIEWS[view]
  for (const field in fields) if (kindOfValue(d[field]) !== fields[field]) return false
  return true
}

/**
 * The same check on a payload's text, parsing only `view` and `v`: its members when it passes, so
 * a caller can read another small field (the warm-up's day needs its `date`), else null.
 */
export const payloadMembers = (view: ViewName, text: string, span?: Span): Members | null => {
  const m = members(text, span)
  if (m === null) return null
  if (valueOf(text, m.get("view")) !== view || valueOf(text, m.get("v")) !== PAYLOAD_VER[view]) return null
  const fields: Readonly<Record<string, Kind>> = VIEWS[view]
  for (const field in fields) {
    const at = m.get(field)
    if (at === undefined || kindOf(text, at) !== fields[field]) return null
  }
  return m
}

/** A stored payload's body, parsed and checked; undefined when it does not check out. */
export const parsePayload = (view: ViewName, text: string): unknown => {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return undefined // not JSON: the caller drops the entry
  }
  return isPayload(view, data) ? data : undefined
}

export interface CellInfo {
  readonly lat: number
  readonly lon: number
  readonly label: string | null
  readonly timezone: string
}

export const isCell = (u: unknown): u is CellInfo => {
  if (typeof u !== "object" || u === null) return false
  const c = u as Readonly<Record<string, unknown>>
  return (
    typeof c.lat === "number" &&
    typeof c.lon === "number" &&
    (c.label === null || typeof c.label === "string") &&
    typeof c.timezone === "string"
  )
}

/** One slice of a bundle: its ETag and its payload, still text. */
export interface SliceText {
  readonly etag: string
  readonly text: string
}

export interface BundleText {
  readonly cell: CellInfo
  readonly slices: Readonly<Record<SliceName, SliceText | null>>
}

/**
 * A `/cell` answer split into its slices (`GET /cell`, docs/api.md "Weather data"): its `v` this
 * client's, its cell readable, each slice `null` or `{etag, data}` with `data` an object. The slices'
 * payloads are checked by whoever uses them (parsed for a load, as text for a warm-up). Null when it is
 * none of that.
 */
export const splitBundle = (text: string): BundleText | null => {
  const m = members(text)
  if (m === null || valueOf(text, m.get("v")) !== PAYLOAD_VER.bundle) return null
  const cell = valueOf(text, m.get("cell"))
  if (!isCell(cell)) return null
  const slices: Partial<Record<SliceName, SliceText | null>> = {}
  for (const name of SLICES) {
    const at = m.get(name)
    if (at === undefined) return null
    if (kindOf(text, at) === "null") {
      slices[name] = null
      continue
    }
    const slice = members(text, at)
    const etag = valueOf(text, slice?.get("etag"))
    const data = slice?.get("data")
    if (typeof etag !== "string" || data === undefined || kindOf(text, data) !== "object") return null
    slices[name] = { etag, text: textOf(text, data) }
  }
  return { cell, slices: slices as Record<SliceName, SliceText | null> }
}

/** A stored entry of the shape this client writes, under `key`, of version `v`: else it is dropped. */
export const isStoredEntry = (raw: unknown, key: string, v: number): raw is StoredEntry => {
  if (typeof raw !== "object" || raw === null) return false
  const e = raw as Readonly<Record<string, unknown>>
  return (
    e.key === key &&
    e.v === v &&
    (e.etag === null || typeof e.etag === "string") &&
    typeof e.text === "string" &&
    typeof e.storedAt === "number" &&
    typeof e.lastAccess === "number"
  )
}
