/**
 * The body of `POST /alerts/watches` (docs/api.md "Alerts"): `{lat, lon, kinds}`, coordinates in range
 * (the rule of `Cell`) and `kinds` a non-empty list of known kinds (`Kinds.parse`). Left: a detail
 * for a 400 that names what is wrong.
 */
import * as Either from "effect/Either"
import * as Cell from "../Cell.js"
import * as Kinds from "./Kinds.js"

export interface WatchRequest {
  readonly lat: number
  readonly lon: number
  readonly kinds: ReadonlyArray<Kinds.Kind>
}

const coordinate = (body: Readonly<Record<string, unknown>>, name: Cell.Axis): Either.Either<number, string> => {
  const value = body[name]
  if (value === undefined) return Either.left(`'${name}' is required.`)
  if (typeof value !== "number" || !Number.isFinite(value)) return Either.left(`'${name}' must be a number, got ${JSON.stringify(value)}.`)
  if (!Cell.inRange(name, value)) return Either.left(`'${name}' must be ${Cell.rangeText(name)}, got ${value}.`)
  return Either.right(value)
}

export const parse = (body: unknown): Either.Either<WatchRequest, string> =>
  Either.gen(function* () {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return yield* Either.left('The body must be a JSON object {"lat": number, "lon": number, "kinds": [...]}.')
    }
    const record = body as Readonly<Record<string, unknown>>
    const lat = yield* coordinate(record, "lat")
    const lon = yield* coordinate(record, "lon")
    if (record.kinds === undefined) return yield* Either.left(`'kinds' is required: a non-empty list of ${Kinds.kinds.join(", ")}.`)
    const kinds = yield* Kinds.parse(record.kinds)
    return { lat, lon, kinds }
  })
