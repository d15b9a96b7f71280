/**
 * The data routes' query values as schemas (the HttpApi decodes them, the OpenAPI document shows
 * their real types), whose refusals are the plain words every 400 has said (docs/api.md "Common rules"),
 * naming the parameter at fault: missing or non-numeric `lat`/`lon`, out-of-range coordinates,
 * malformed dates, a bad `months`, `prefetch` or `units`, a parameter given twice.
 * `DecodeErrors` passes these words on as they are.
 */
import { Cell, CivilDate } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { BadRequest } from "./Errors.js"

export type Query = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/** How every message of this module begins; `DecodeErrors` says such a message whole. */
export const PREFIX = "Query parameter '"

/** A query value as it arrives: a repeated parameter is an array, refused by name below. */
const Raw = Schema.Union(Schema.String, Schema.Array(Schema.String))

/**
 * One parameter: its decoded type, how a single value is read (a refusal is its detail), how it
 * is written back, and what the OpenAPI document says of it.
 */
const param = <A, I>(
  name: string,
  to: Schema.Schema<A, I>,
  read: (raw: string) => Either.Either<A, string>,
  write: (value: A) => string,
  jsonSchema: object
) =>
  Schema.transformOrFail(Raw, Schema.typeSchema(to), {
    strict: true,
    decode: (raw, _, ast) => {
      if (typeof raw !== "string" && raw.length !== 1) {
        return ParseResult.fail(new ParseResult.Type(ast, raw, `${PREFIX}${name}' is given more than once.`))
      }
      const value = typeof raw === "string" ? raw : raw[0]!
      return Either.match(read(value), {
        onLeft: (detail) => ParseResult.fail(new ParseResult.Type(ast, raw, detail)),
        onRight: ParseResult.succeed
      })
    },
    encode: (value) => ParseResult.succeed(write(value))
  }).annotations({ jsonSchema })

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/

const coordinate = (name: Cell.Axis, description: string) =>
  Schema.propertySignature(
    param(
      name,
      Schema.Number,
      (raw) => {
        if (raw.trim() === "") return Either.left(`${PREFIX}${name}' is required.`)
        if (!DECIMAL.test(raw.trim())) return Either.left(`${PREFIX}${name}' must be a number, got '${raw}'.`)
        const value = Number(raw)
        return Cell.inRange(name, value) ? Either.right(value) : Either.left(`${PREFIX}${name}' must be ${Cell.rangeText(name)}, got '${raw}'.`)
      },
      String,
      { type: "number", minimum: name === "lat" ? -90 : -180, maximum: name === "lat" ? 90 : 180, description }
    )
  ).annotations({ missingMessage: () => `${PREFIX}${name}' is required.` })

/** `lat` and `lon`, required, within range; the handlers snap them to their 0.25° cell. */
export const Where = {
  lat: coordinate("lat", "latitude, -90..90"),
  lon: coordinate("lon", "longitude, -180..180")
}

/** An optional strict `YYYY-MM-DD` calendar date, as the day it names. */
export const date = (name: string, description: string) =>
  Schema.optional(
    param(
      name,
      Schema.Number,
      (raw) =>
        Option.match(Option.fromNullable(CivilDate.parse(raw)), {
          onNone: () => Either.left(`${PREFIX}${name}' must be a calendar date YYYY-MM-DD, got '${raw}'.`),
          onSome: (day: CivilDate.EpochDay) => Either.right(day)
        }),
      CivilDate.format,
      { type: "string", format: "date", description }
    )
  )

/** An optional whole number of at least 0, as large as it is written (what it means is the core's). */
export const wholeNumber = (name: string, description: string) =>
  Schema.optional(
    param(
      name,
      Schema.Number,
      (raw) => (/^\d+$/.test(raw) ? Either.right(Number(raw)) : Either.left(`${PREFIX}${name}' must be a whole number (0 or more), got '${raw}'.`)),
      String,
      { type: "integer", minimum: 0, description }
    )
  )

/** `prefetch`: absent or `0`, or `1` for warm-only mode. */
export const prefetch = Schema.optional(
  param(
    "prefetch",
    Schema.Boolean,
    (raw) =>
      raw === "0" ? Either.right(false) : raw === "1" ? Either.right(true) : Either.left(`${PREFIX}prefetch' must be 1 when given, got '${raw}'.`),
    (on) => (on ? "1" : "0"),
    { type: "string", enum: ["0", "1"], description: "1: warm-only mode, never calling the weather source" }
  )
)

/** `units`: absent (metric), `metric` or `imperial`, as the site's addresses carry it. */
export const units = Schema.optional(
  param<"metric" | "imperial", "metric" | "imperial">(
    "units",
    Schema.Literal("metric", "imperial"),
    (raw) =>
      raw === "metric" || raw === "imperial"
        ? Either.right(raw)
        : Either.left(`${PREFIX}units' must be metric or imperial when given, got '${raw}'.`),
    (u) => u,
    { type: "string", enum: ["metric", "imperial"], description: "metric (default) or imperial" }
  )
)

/** The cell of decoded `lat` and `lon`. */
export const cellOf = (where: { readonly lat: number; readonly lon: number }): Cell.Cell => Cell.fromCoordinates(where.lat, where.lon)

const CellQuery = Schema.Struct(Where)

/** `lat` and `lon` of a raw query (a site page's address) snapped to their cell, or the 400 the API would give. */
export const cell = (query: Query): Effect.Effect<Cell.Cell, BadRequest> =>
  Effect.mapBoth(Schema.decodeUnknown(CellQuery)(query), {
    onFailure: (error) => new BadRequest({ detail: ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.message ?? "Bad query.", code: "invalid-query" }),
    onSuccess: cellOf
  })
