/**
 * Open-Meteo's daily answer read straight from its bytes into columns. `JSON.parse` of 85 years
 * builds ~31,000 date strings and ~93,000 boxed numbers, only for them to be copied into
 * `Float64Array`s and collected: the largest part of a cold cell's own time (`pnpm bench:http c`).
 * This reader walks the same bytes once, checking the JSON grammar as it goes, and keeps only what
 * is used: the time zone, the count and the two ends of `daily.time`, and each variable's numbers
 * (null as NaN). Anything it does not expect — another shape, a non-finite or non-numeric value,
 * a byte-order mark, malformed JSON — gives `undefined`, and the caller takes the general path
 * (`JSON.parse` and the schema), which says what is wrong; so on every input this reader either
 * agrees with that path or declines. Numbers are exact: up to 15 significant digits and 22
 * decimals, one division of two exactly held doubles (correctly rounded, as `JSON.parse` is);
 * anything longer, or with an exponent, is read by `Number`.
 */

export interface DailyColumns<Name extends string> {
  readonly timezone: string
  /** How many days, and the first and last day as written (undefined when there are none). */
  readonly time: { readonly count: number; readonly first: string | undefined; readonly last: string | undefined }
  readonly values: { readonly [K in Name]: Float64Array }
}

/** Thrown inside the reader only, caught at its top: "not the simple case". */
const DECLINE = Symbol("DailyJson.decline")

const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k)
const MAX_DEPTH = 64
const utf8 = new TextDecoder()

const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39
const isHex = (c: number | undefined) =>
  c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66))

export const decode = <Name extends string>(bytes: Uint8Array, names: ReadonlyArray<Name>): DailyColumns<Name> | undefined => {
  try {
    return read(bytes, names)
  } catch (e) {
    if (e === DECLINE) return undefined
    // A recursion too deep for the stack is the general path's to judge as well.
    if (e instanceof RangeError) return undefined
    throw e
  }
}

const read = <Name extends string>(b: Uint8Array, names: ReadonlyArray<Name>): DailyColumns<Name> => {
  const n = b.length
  let i = 0

  const ws = () => {
    for (;;) {
      const c = b[i]
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++
      else return
    }
  }
  const expect = (c: number) => {
    ws()
    if (b[i] !== c) throw DECLINE
    i++
  }
  /** At an opening quote: past the closing one, the string checked. */
  const skipString = () => {
    i++
    for (;;) {
      if (i >= n) throw DECLINE
      const c = b[i++]!
      if (c === 0x22) return
      if (c === 0x5c) {
        const e = b[i++]
        if (e === 0x75) {
          if (!isHex(b[i]) || !isHex(b[i + 1]) || !isHex(b[i + 2]) || !isHex(b[i + 3])) throw DECLINE
          i += 4
        } else if (!(e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74)) {
          throw DECLINE
        }
      } else if (c < 0x20) throw DECLINE
    }
  }
  /** A string's value, escapes and all, read by `JSON.parse` (only for the few short strings kept). */
  const text = (start: number, end: number): string => JSON.parse(utf8.decode(b.subarray(start, end))) as string
  const string = () => {
    ws()
    if (b[i] !== 0x22) throw DECLINE
    const start = i
    skipString()
    return text(start, i)
  }
  const literal = (word: ReadonlyArray<number>) => {
    for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) throw DECLINE
    i += word.length
  }
  const number = (): number => {
    const start = i
    let negative = false
    if (b[i] === 0x2d) {
      negative = true
      i++
    }
    let mantissa = 0
    let digits = 0
    let c = b[i]
    if (c === 0x30) {
      c = b[++i]
    } else if (isDigit(c)) {
      do {
        mantissa = mantissa * 10 + (c! - 0x30)
        digits++
        c = b[++i]
      } while (isDigit(c))
    } else throw DECLINE
    let decimals = 0
    if (c === 0x2e) {
      c = b[++i]
      if (!isDigit(c)) throw DECLINE
      do {
        mantissa = mantissa * 10 + (c! - 0x30)
        digits++
        decimals++
        c = b[++i]
      } while (isDigit(c))
    }
    let exact = digits <= 15 && decimals <= 22
    if (c === 0x65 || c === 0x45) {
      exact = false
      c = b[++i]
      if (c === 0x2b || c === 0x2d) c = b[++i]
      if (!isDigit(c)) throw DECLINE
      do c = b[++i]
      while (isDigit(c))
    }
    if (!exact) return Number(utf8.decode(b.subarray(start, i)))
    const value = decimals === 0 ? mantissa : mantissa / POW10[decimals]!
    return negative ? -value : value
  }
  /**
   * `open item, item, … close` (an object's members or an array's items), or `open close`; `item`
   * reads one where it starts. For the few containers read this way: the two long arrays have
   * loops of their own below.
   */
  const sequence = (open: number, close: number, item: () => void) => {
    ws()
    if (b[i] !== open) throw DECLINE
    i++
    ws()
    if (b[i] === close) {
      i++
      return
    }
    for (;;) {
      item()
      ws()
      const d = b[i++]
      if (d === 0x2c) continue
      if (d === close) return
      throw DECLINE
    }
  }
  /** `{ key: value, … }`, each key handed to `member` with the position at its value. */
  const object = (member: (key: string) => void) =>
    sequence(0x7b, 0x7d, () => {
      const key = string()
      expect(0x3a)
      ws()
      member(key)
    })
  const skipValue = (depth: number): void => {
    ws()
    const c = b[i]
    if (c === 0x22) skipString()
    else if (c === 0x7b || c === 0x5b) {
      if (depth > MAX_DEPTH) throw DECLINE
      if (c === 0x7b) {
        sequence(0x7b, 0x7d, () => {
          ws()
          if (b[i] !== 0x22) throw DECLINE
          skipString()
          expect(0x3a)
          skipValue(depth + 1)
        })
      } else sequence(0x5b, 0x5d, () => skipValue(depth + 1))
    } else if (c === 0x74) literal(TRUE)
    else if (c === 0x66) literal(FALSE)
    else if (c === 0x6e) literal(NULL)
    else number()
  }
  /** `[ "…", … ]`: the count and the two ends. The hot loops keep their position in a local. */
  const times = () => {
    if (b[i] !== 0x5b) throw DECLINE
    i++
    ws()
    if (b[i] === 0x5d) {
      i++
      return { count: 0, first: undefined, last: undefined }
    }
    let p = i
    let count = 0
    let firstStart = 0
    let firstEnd = 0
    let lastStart = 0
    let lastEnd = 0
    for (;;) {
      let c = b[p]
      while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++p]
      if (c !== 0x22) throw DECLINE
      lastStart = p++
      for (;;) {
        c = b[p++]
        if (c === 0x22) break
        if (c === undefined || c < 0x20) throw DECLINE
        if (c === 0x5c) {
          // An escape: the string read again from its start by the general reader, which checks it.
          i = lastStart
          skipString()
          p = i
          break
        }
      }
      lastEnd = p
      if (count === 0) {
        firstStart = lastStart
        firstEnd = lastEnd
      }
      count++
      c = b[p]
      while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++p]
      p++
      if (c === 0x2c) continue
      if (c === 0x5d) break
      throw DECLINE
    }
    i = p
    return { count, first: text(firstStart, firstEnd), last: text(lastStart, lastEnd) }
  }
  /** `[ number | null, … ]` as doubles, null as NaN; `expected` sizes the first allocation. */
  const numbers = (expected: number) => {
    if (b[i] !== 0x5b) throw DECLINE
    i++
    ws()
    if (b[i] === 0x5d) {
      i++
      return new Float64Array(0)
    }
    let out = new Float64Array(expected > 0 ? expected : 64)
    let k = 0
    let p = i
    for (;;) {
      let c = b[p]
      while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++p]
      let value: number
      if (c === 0x6e) {
        if (b[p + 1] !== 0x75 || b[p + 2] !== 0x6c || b[p + 3] !== 0x6c) throw DECLINE
        p += 4
        value = Number.NaN
      } else {
        // A number, as in `number` above, with the position kept local.
        const start = p
        let negative = false
        if (c === 0x2d) {
          negative = true
          c = b[++p]
        }
        let mantissa = 0
        let digits = 0
        if (c === 0x30) c = b[++p]
        else if (c !== undefined && c >= 0x31 && c <= 0x39) {
          do {
            mantissa = mantissa * 10 + (c - 0x30)
            digits++
            c = b[++p]
          } while (c !== undefined && c >= 0x30 && c <= 0x39)
        } else throw DECLINE
        let decimals = 0
        if (c === 0x2e) {
          c = b[++p]
          if (c === undefined || c < 0x30 || c > 0x39) throw DECLINE
          do {
            mantissa = mantissa * 10 + (c - 0x30)
            digits++
            decimals++
            c = b[++p]
          } while (c !== undefined && c >= 0x30 && c <= 0x39)
        }
        if (c === 0x65 || c === 0x45 || digits > 15 || decimals > 22) {
          i = start
          value = number()
          p = i
          // The general path refuses these (Open-Meteo's numbers are finite): let it say so.
          if (!Number.isFinite(value)) throw DECLINE
        } else {
          value = decimals === 0 ? mantissa : mantissa / POW10[decimals]!
          if (negative) value = -value
        }
      }
      if (k === out.length) {
        const bigger = new Float64Array(out.length * 2)
        bigger.set(out)
        out = bigger
      }
      out[k++] = value
      let d = b[p]
      while (d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) d = b[++p]
      p++
      if (d === 0x2c) continue
      if (d === 0x5d) break
      throw DECLINE
    }
    i = p
    return k === out.length ? out : out.slice(0, k)
  }

  let timezone: string | undefined
  let time: DailyColumns<Name>["time"] | undefined
  let daily = false
  const values: Partial<Record<Name, Float64Array>> = {}
  object((key) => {
    if (key === "timezone") {
      timezone = string()
    } else if (key === "daily") {
      // A repeated key replaces the earlier one, as in `JSON.parse`.
      daily = true
      time = undefined
      for (const name of names) delete values[name]
      object((member) => {
        if (member === "time") time = times()
        else if ((names as ReadonlyArray<string>).includes(member)) values[member as Name] = numbers(time?.count ?? 0)
        else skipValue(1)
      })
    } else skipValue(0)
  })
  ws()
  if (i !== n || timezone === undefined || !daily || time === undefined) throw DECLINE
  for (const name of names) if (values[name] === undefined) throw DECLINE
  return { timezone, time, values: values as Record<Name, Float64Array> }
}

const TRUE = [0x74, 0x72, 0x75, 0x65]
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65]
const NULL = [0x6e, 0x75, 0x6c, 0x6c]
