/**
 * A compact, exact binary form of a DailySeries for storage: one row per cell, not per day.
 *
 * Layout (little-endian): u8 format, 3 reserved bytes, i32 start (epoch day), u32 length, 4 bytes of
 * padding (so the series are aligned for typed arrays), then the three series.
 * Format 1 stores tenths as i16 (NaN as -32768): upstream values have one decimal, so an 85-year
 * record of three variables is ~186 KB and decodes to exactly the doubles the JSON held (123 / 10
 * is the double nearest 12.3). Any value that is not a whole number of tenths in range falls back
 * to format 2, raw f64, so nothing is ever rounded away. (A negative zero is stored as zero: the
 * sign of a zero reading means nothing, and the two compare equal.)
 */
import * as Either from "effect/Either"
import type { DailySeries } from "@climate-grade/core/weather/DailySeries"

const TENTHS = 1
const FLOAT64 = 2
/** Format, three reserved bytes, start, length, padding: 16 bytes keeps the series aligned for typed arrays. */
const HEADER = 16
const MISSING = -32768
// Typed arrays use the platform's byte order; the stored form is little-endian.
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

const fitsTenths = (series: DailySeries): boolean => {
  for (const values of [series.tmax, series.tmin, series.precip]) {
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!
      if (Number.isNaN(v)) continue
      const t = Math.round(v * 10)
      if (t <= MISSING || t > 32767 || t / 10 !== v) return false
    }
  }
  return true
}

export const encode = (series: DailySeries): Uint8Array => {
  const n = series.tmax.length
  const tenths = littleEndian && fitsTenths(series)
  const width = tenths ? 2 : 8
  const buffer = new ArrayBuffer(HEADER + 3 * n * width)
  const view = new DataView(buffer)
  view.setUint8(0, tenths ? TENTHS : FLOAT64)
  view.setInt32(4, series.start, true)
  view.setUint32(8, n, true)
  ;[series.tmax, series.tmin, series.precip].forEach((values, k) => {
    const offset = HEADER + k * n * width
    if (tenths) {
      const out = new Int16Array(buffer, offset, n)
      for (let i = 0; i < n; i++) {
        const v = values[i]!
        out[i] = Number.isNaN(v) ? MISSING : Math.round(v * 10)
      }
    } else if (littleEndian) {
      new Float64Array(buffer, offset, n).set(values)
    } else {
      for (let i = 0; i < n; i++) view.setFloat64(offset + 8 * i, values[i]!, true)
    }
  })
  return new Uint8Array(buffer)
}

export const decode = (bytes: Uint8Array): Either.Either<DailySeries, string> => {
  if (bytes.byteLength < HEADER) return Either.left(`not an encoded daily series (${bytes.byteLength} bytes)`)
  // Copied into a fresh, aligned buffer: a driver's Buffer may sit at any offset of a shared pool.
  const own = bytes.slice()
  const view = new DataView(own.buffer)
  const format = view.getUint8(0)
  const start = view.getInt32(4, true)
  const n = view.getUint32(8, true)
  const width = format === TENTHS ? 2 : 8
  if ((format !== TENTHS && format !== FLOAT64) || own.byteLength !== HEADER + 3 * n * width) {
    return Either.left(`not an encoded daily series (format ${format}, ${own.byteLength} bytes for ${n} days)`)
  }
  const read = (k: number) => {
    const offset = HEADER + k * n * width
    const out = new Float64Array(n)
    if (format === TENTHS && littleEndian) {
      const stored = new Int16Array(own.buffer, offset, n)
      for (let i = 0; i < n; i++) {
        const t = stored[i]!
        out[i] = t === MISSING ? Number.NaN : t / 10
      }
    } else if (format === TENTHS) {
      for (let i = 0; i < n; i++) {
        const t = view.getInt16(offset + 2 * i, true)
        out[i] = t === MISSING ? Number.NaN : t / 10
      }
    } else if (littleEndian) {
      out.set(new Float64Array(own.buffer, offset, n))
    } else {
      for (let i = 0; i < n; i++) out[i] = view.getFloat64(offset + 8 * i, true)
    }
    return out
  }
  return Either.right({ start, tmax: read(0), tmin: read(1), precip: read(2) })
}
