/**
 * The daily answer's reader against the general path it stands in for (`JSON.parse`, the shape's
 * checks, the columns): on Open-Meteo's shape, written any way JSON allows, it reads exactly what
 * the general path reads; on anything else it declines or still agrees — it never reads
 * something the general path would not.
 */
import { describe, expect, it } from "@effect/vitest"
import { DailyJson } from "@climate-grade/weather"
import * as fc from "effect/FastCheck"

const NAMES = ["temperature_2m_max", "temperature_2m_min", "precipitation_sum"] as const
const utf8 = new TextEncoder()

/** What the general path reads from the same bytes, or undefined where it refuses them. */
const general = (bytes: Uint8Array) => {
  let body: unknown
  try {
    body = JSON.parse(new TextDecoder().decode(bytes))
  } catch {
    return undefined
  }
  if (typeof body !== "object" || body === null) return undefined
  const { timezone, daily } = body as { timezone?: unknown; daily?: unknown }
  if (typeof timezone !== "string" || typeof daily !== "object" || daily === null) return undefined
  const d = daily as Record<string, unknown>
  const time = d.time
  if (!Array.isArray(time) || !time.every((t) => typeof t === "string")) return undefined
  const values: Record<string, Float64Array> = {}
  for (const name of NAMES) {
    const column = d[name]
    if (!Array.isArray(column) || !column.every((v) => v === null || (typeof v === "number" && Number.isFinite(v)))) return undefined
    values[name] = Float64Array.from(column, (v: number | null) => (v === null ? Number.NaN : v))
  }
  return { timezone, time: { count: time.length, first: time[0] as string | undefined, last: time.at(-1) as string | undefined }, values }
}

/** Same reading, NaN and -0 included. */
const expectSame = (fast: ReturnType<typeof DailyJson.decode<(typeof NAMES)[number]>>, slow: ReturnType<typeof general>) => {
  expect(fast).toBeDefined()
  expect(fast!.timezone).toBe(slow!.timezone)
  expect(fast!.time).toEqual(slow!.time)
  for (const name of NAMES) {
    expect(fast!.values[name].length).toBe(slow!.values[name]!.length)
    fast!.values[name].forEach((v, i) => {
      if (!Object.is(v, slow!.values[name]![i])) expect.fail(`${name}[${i}]: ${v} read, ${slow!.values[name]![i]} expected`)
    })
  }
}

/** A value as Open-Meteo writes it, or as any JSON writer might: integers, decimals, exponents, -0, long digit strings. */
const number = fc.oneof(
  fc.integer({ min: -600, max: 600 }).map((t) => String(t / 10)),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => JSON.stringify(v)),
  fc.constantFrom("-0", "0", "0.0", "-0.0", "1e5", "1E+2", "2.5e-3", "-1.0e0", "12345678901234567890", "0.1234567890123456789", "100.000000000000000000001"),
  fc.tuple(fc.integer({ min: 0, max: 999999 }), fc.integer({ min: 0, max: 99999 })).map(([a, b]) => `${a}.${String(b).padStart(5, "0")}`)
)
const cell = fc.oneof({ weight: 1, arbitrary: fc.constant("null") }, { weight: 6, arbitrary: number })
/** JSON's whitespace, sometimes. */
const space = fc.oneof({ weight: 4, arbitrary: fc.constant("") }, { weight: 1, arbitrary: fc.stringMatching(/^[ \t\n\r]{1,3}$/) })

/** Open-Meteo's daily answer with extra members, shuffled keys, escapes and whitespace anywhere JSON allows it. */
const answer = fc
  .integer({ min: 0, max: 40 })
  .chain((days) =>
    fc.record({
      days: fc.constant(days),
      timezone: fc.oneof(fc.constantFrom("Europe/Berlin", "GMT", "America/Argentina/Buenos_Aires"), fc.string()),
      extra: fc.dictionary(fc.string().filter((k) => !["timezone", "daily"].includes(k)), fc.jsonValue(), { maxKeys: 3 }),
      extraDaily: fc.dictionary(fc.string().filter((k) => k !== "time" && !(NAMES as ReadonlyArray<string>).includes(k)), fc.jsonValue(), { maxKeys: 2 }),
      escapedTime: fc.boolean(),
      reversed: fc.boolean(),
      columns: fc.tuple(...NAMES.map(() => fc.array(cell, { minLength: days, maxLength: days }))),
      spaces: fc.array(space, { minLength: 40, maxLength: 40 })
    })
  )
  .map(({ timezone, extra, extraDaily, escapedTime, reversed, columns, spaces, days }) => {
    let s = 0
    const ws = () => spaces[s++ % spaces.length]!
    const date = (d: number) => {
      const text = new Date(Date.UTC(1940, 0, 1 + d)).toISOString().slice(0, 10)
      return escapedTime && d === 0 ? `"\\u0031${text.slice(1)}"` : JSON.stringify(text)
    }
    const array = (items: Array<string>) => `[${ws()}${items.join(`${ws()},${ws()}`)}${ws()}]`
    const member = (key: string, value: string) => `${ws()}${JSON.stringify(key)}${ws()}:${ws()}${value}${ws()}`
    const dailyMembers = [
      member("time", array(Array.from({ length: days }, (_, d) => date(d)))),
      ...NAMES.map((name, i) => member(name, array(columns[i]!))),
      ...Object.entries(extraDaily).map(([k, v]) => member(k, JSON.stringify(v)))
    ]
    const top = [
      member("latitude", "52.5"),
      member("timezone", JSON.stringify(timezone)),
      member("daily_units", JSON.stringify({ time: "iso8601", temperature_2m_max: "°C" })),
      member("daily", `{${dailyMembers.join(",")}}`),
      ...Object.entries(extra).map(([k, v]) => member(k, JSON.stringify(v)))
    ]
    // Keys in either order: a writer need not put `time` first.
    if (reversed) top.reverse()
    return utf8.encode(`${ws()}{${top.join(",")}}${ws()}`)
  })

describe("DailyJson", () => {
  it.prop("reads Open-Meteo's daily shape, written any way JSON allows, exactly as JSON.parse and the checks do", [answer], ([bytes]) => {
    const slow = general(bytes)
    expect(slow).toBeDefined()
    expectSame(DailyJson.decode(bytes, NAMES), slow)
  })

  it.prop(
    "declines or agrees on anything else: arbitrary JSON, and answers cut short or with one byte changed",
    [
      fc.oneof(
        fc.json().map((s) => utf8.encode(s)),
        fc.tuple(answer, fc.nat()).map(([b, n]) => b.subarray(0, n % (b.length + 1))),
        fc.tuple(answer, fc.nat(), fc.integer({ min: 0, max: 255 })).map(([b, n, byte]) => {
          const copy = b.slice()
          if (copy.length > 0) copy[n % copy.length] = byte
          return copy
        })
      )
    ],
    ([bytes]) => {
      const fast = DailyJson.decode(bytes, NAMES)
      const slow = general(bytes)
      if (slow === undefined) expect(fast).toBeUndefined()
      else if (fast !== undefined) expectSame(fast, slow)
    },
    { fastCheck: { numRuns: 500 } }
  )

  it("keeps the last of repeated keys, as JSON.parse does, and declines what JSON refuses", () => {
    const body = (daily: string) => utf8.encode(`{"timezone":"GMT","timezone":"UTC","daily":${daily}}`)
    const one = `{"time":["2020-01-01"],"temperature_2m_max":[1],"temperature_2m_min":[2],"precipitation_sum":[3]}`
    const two = `{"time":["2020-01-01","2020-01-02"],"temperature_2m_max":[1,null],"temperature_2m_min":[2,-0],"precipitation_sum":[3,1e2],"precipitation_sum":[4,5]}`
    expectSame(DailyJson.decode(body(two), NAMES), general(body(two)))
    expect(DailyJson.decode(utf8.encode(`{"timezone":"GMT","daily":${one},"daily":${two}}`), NAMES)?.time.count).toBe(2)
    // The later `daily` lacks a column: the general path refuses it, and so does the reader.
    expect(DailyJson.decode(utf8.encode(`{"timezone":"GMT","daily":${one},"daily":{"time":[]}}`), NAMES)).toBeUndefined()
    for (const bad of ["01", "1.", ".5", "-", "1e", "+1", "NaN", "Infinity", "1e999", "0x10", "nul", "true"]) {
      const bytes = utf8.encode(`{"timezone":"GMT","daily":{"time":["2020-01-01"],"temperature_2m_max":[${bad}],"temperature_2m_min":[2],"precipitation_sum":[3]}}`)
      expect(DailyJson.decode(bytes, NAMES), bad).toBeUndefined()
      expect(general(bytes), bad).toBeUndefined()
    }
    // A byte-order mark: the general path reads past it (TextDecoder drops it); the reader leaves it to that path.
    const withMark = new Uint8Array([0xef, 0xbb, 0xbf, ...body(one)])
    expect(DailyJson.decode(withMark, NAMES)).toBeUndefined()
    expect(general(withMark)).toBeDefined()
  })
})
