/**
 * The data routes' query values, checked by hand so every 400 names the parameter at fault
 * (CONTRACT.md §2): missing or non-numeric `lat`/`lon`, out-of-range coordinates, malformed
 * dates, a bad `months` or `prefetch`.
 */
import { Cell, CivilDate } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { BadRequest } from "./Errors.js"

export type Query = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const bad = (detail: string) => Effect.fail(new BadRequest({ detail }))

/** One value per parameter: a repeated parameter is ambiguous, so it is refused. */
const single = (query: Query, name: string): Effect.Effect<string | undefined, BadRequest> => {
  const value = query[name]
  if (value === undefined || typeof value === "string") return Effect.succeed(value)
  return value.length === 1 ? Effect.succeed(value[0]) : bad(`Query parameter '${name}' is given more than once.`)
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/

const coordinate = (query: Query, name: Cell.Axis) =>
  Effect.flatMap(single(query, name), (raw) => {
    if (raw === undefined || raw.trim() === "") return bad(`Query parameter '${name}' is required.`)
    if (!DECIMAL.test(raw.trim())) return bad(`Query parameter '${name}' must be a number, got '${raw}'.`)
    const value = Number(raw)
    if (!Cell.inRange(name, value)) {
      return bad(`Query parameter '${name}' must be ${Cell.rangeText(name)}, got '${raw}'.`)
    }
    return Effect.succeed(value)
  })

/** `lat` and `lon` snapped to their 0.25° cell. */
export const cell = (query: Query) =>
  Effect.map(
    Effect.all([coordinate(query, "lat"), coordinate(query, "lon")]),
    ([lat, lon]) => Cell.fromCoordinates(lat, lon)
  )

/** An optional strict `YYYY-MM-DD` calendar date. */
export const date = (query: Query, name: string) =>
  Effect.flatMap(single(query, name), (raw) => {
    if (raw === undefined) return Effect.succeed(Option.none<CivilDate.EpochDay>())
    return Option.match(CivilDate.parse(raw), {
      onNone: () => bad(`Query parameter '${name}' must be a calendar date YYYY-MM-DD, got '${raw}'.`),
      onSome: (day) => Effect.succeed(Option.some(day))
    })
  })

/** An optional whole number of at least 0, as large as it is written (what it means is the core's). */
export const wholeNumber = (query: Query, name: string) =>
  Effect.flatMap(single(query, name), (raw) => {
    if (raw === undefined) return Effect.succeed(Option.none<number>())
    if (!/^\d+$/.test(raw)) return bad(`Query parameter '${name}' must be a whole number (0 or more), got '${raw}'.`)
    return Effect.succeed(Option.some(Number(raw)))
  })

/** `prefetch`: absent, or `1` for warm-only mode. */
export const prefetch = (query: Query) =>
  Effect.flatMap(single(query, "prefetch"), (raw) => {
    if (raw === undefined || raw === "0") return Effect.succeed(false)
    if (raw === "1") return Effect.succeed(true)
    return bad(`Query parameter 'prefetch' must be 1 when given, got '${raw}'.`)
  })

/** `units`: absent (metric), `metric` or `imperial`, as the site's addresses carry it. */
export const units = (query: Query) =>
  Effect.flatMap(single(query, "units"), (raw): Effect.Effect<"metric" | "imperial", BadRequest> => {
    if (raw === undefined || raw === "metric") return Effect.succeed("metric")
    if (raw === "imperial") return Effect.succeed("imperial")
    return bad(`Query parameter 'units' must be metric or imperial when given, got '${raw}'.`)
  })
