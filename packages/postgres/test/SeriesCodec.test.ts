import { describe, expect, it } from "@effect/vitest"
import { SeriesCodec } from "@climate-grade/postgres"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"

const series = (values: ReadonlyArray<number>) => ({
  start: -10_958,
  tmax: Float64Array.from(values),
  tmin: Float64Array.from(values.map((v) => (Number.isNaN(v) ? v : -v))),
  precip: Float64Array.from(values.map((v) => (Number.isNaN(v) ? v : Math.abs(v))))
})

const tenths = FastCheck.oneof(
  FastCheck.integer({ min: -32767, max: 32767 }).map((t) => t / 10),
  FastCheck.constant(Number.NaN)
)
const anyDouble = FastCheck.oneof(FastCheck.double({ noDefaultInfinity: true }), FastCheck.constant(Number.NaN))

/** Negative zero is stored as zero (see SeriesCodec); every other value, NaN included, exactly. */
const unsignedZero = (values: Float64Array) => Array.from(values, (v) => (v === 0 ? 0 : v))

const roundTrips = (values: ReadonlyArray<number>) => {
  const input = series(values)
  const output = Either.getOrThrow(SeriesCodec.decode(SeriesCodec.encode(input)))
  expect(output.start).toBe(input.start)
  for (const key of ["tmax", "tmin", "precip"] as const) {
    expect(unsignedZero(output[key])).toEqual(unsignedZero(input[key]))
  }
}

describe("SeriesCodec", () => {
  it.prop("values in tenths round-trip exactly, NaN included", [FastCheck.array(tenths, { maxLength: 400 })], ([values]) =>
    roundTrips(values)
  )

  it.prop("any double round-trips exactly (the f64 fallback)", [FastCheck.array(anyDouble, { maxLength: 200 })], ([values]) =>
    roundTrips(values)
  )

  it("tenths take two bytes a value; a value with more decimals falls back to eight", () => {
    expect(SeriesCodec.encode(series([12.3, -4.5, 0])).byteLength).toBe(16 + 3 * 3 * 2)
    expect(SeriesCodec.encode(series([12.34, -4.5, 0])).byteLength).toBe(16 + 3 * 3 * 8)
  })

  it("refuses bytes that are not an encoded series", () => {
    expect(Either.isLeft(SeriesCodec.decode(new Uint8Array([1, 2, 3])))).toBe(true)
    const bytes = SeriesCodec.encode(series([1, 2, 3]))
    expect(Either.isLeft(SeriesCodec.decode(bytes.subarray(0, bytes.length - 1)))).toBe(true)
    expect(Either.isLeft(SeriesCodec.decode(Uint8Array.from([9, ...bytes.subarray(1)])))).toBe(true)
    // Bytes at an odd offset of a larger buffer (as a driver's pooled Buffer may be) still decode.
    const shifted = new Uint8Array(bytes.byteLength + 1)
    shifted.set(bytes, 1)
    expect(Either.isRight(SeriesCodec.decode(shifted.subarray(1)))).toBe(true)
  })
})
