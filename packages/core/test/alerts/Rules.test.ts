/** The alert rules (docs/api.md "Alerts") as properties, without IO. */
import { describe, expect, it } from "@effect/vitest"
import { Backoff, Cell, CivilDate, Delivery, Kinds, Languages, Message, type Payloads, Qualifying, WatchRequest } from "@climate-grade/core"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"

const labels = ["record-low", "much-below", "below", "near-normal", "above", "much-above", "record-high", null] as const
type Label = (typeof labels)[number]

const gradeOf = (variable: string, label: Label, value: number): Payloads.Grade => ({
  value,
  unit: variable === "precip" ? "mm" : "°C",
  percentile: label === null ? null : 50,
  label,
  n: label === null ? 10 : 100
})

/** A forecast of `days` days from `start`, some NaN, and a label for every (variable, day). */
const scenario = FastCheck.record({
  start: FastCheck.integer({ min: 18_000, max: 21_000 }),
  days: FastCheck.integer({ min: 0, max: 16 }),
  todayOffset: FastCheck.integer({ min: -3, max: 18 }),
  daysAhead: FastCheck.integer({ min: 0, max: 15 }),
  seed: FastCheck.array(FastCheck.constantFrom(...labels), { minLength: 48, maxLength: 48 }),
  gaps: FastCheck.array(FastCheck.boolean(), { minLength: 48, maxLength: 48 })
})

const build = (s: typeof scenario extends FastCheck.Arbitrary<infer A> ? A : never) => {
  const series = {
    start: s.start,
    tmax: Float64Array.from({ length: s.days }, (_, i) => (s.gaps[i * 3]! ? Number.NaN : 20 + i)),
    tmin: Float64Array.from({ length: s.days }, (_, i) => (s.gaps[i * 3 + 1]! ? Number.NaN : 5 + i)),
    precip: Float64Array.from({ length: s.days }, (_, i) => (s.gaps[i * 3 + 2]! ? Number.NaN : i))
  }
  const index = { tmax: 0, tmin: 1, precip: 2 } as const
  const labelOf = (variable: "tmax" | "tmin" | "precip", date: number): Label =>
    s.seed[(((date - s.start) * 3 + index[variable]) % 48 + 48) % 48]!
  const grade = (variable: "tmax" | "tmin" | "precip", date: number, value: number) => gradeOf(variable, labelOf(variable, date), value)
  return { series, labelOf, grade, today: s.start + s.todayOffset }
}

describe("qualifying days and kinds", () => {
  it.prop("exactly the watched days the forecast holds, whose kind's variable carries one of its labels", [scenario], ([s]) => {
    const { grade, labelOf, series, today } = build(s)
    const found = Qualifying.candidates({ today, daysAhead: s.daysAhead, forecast: series, grade })
    const expected: Array<string> = []
    for (let date = today; date <= today + s.daysAhead; date++) {
      for (const kind of Kinds.dailyKinds) {
        const variable = Kinds.RULES[kind].variable
        const i = date - series.start
        if (i < 0 || i >= s.days || Number.isNaN(series[variable][i]!)) continue
        const label = labelOf(variable, date)
        const hot = kind === "heat" && (label === "much-above" || label === "record-high")
        const cold = kind === "cold" && (label === "much-below" || label === "record-low")
        const wet = kind === "wet" && (label === "much-above" || label === "record-high")
        if (hot || cold || wet) expected.push(Qualifying.alertKey(date, kind))
      }
    }
    expect(found.map((c) => Qualifying.alertKey(c.date, c.kind))).toEqual(expected)
    for (const c of found) {
      expect(c.date).toBeGreaterThanOrEqual(today)
      expect(c.date).toBeLessThanOrEqual(today + s.daysAhead)
    }
  })

  it.prop(
    "one alert per (watch, date, kind) ever: what was made is never made again, whatever the order of evaluations",
    [scenario, FastCheck.subarray([...Kinds.kinds], { minLength: 1 }), FastCheck.array(FastCheck.integer({ min: 0, max: 3 }), { maxLength: 6 })],
    ([s, kinds, shifts]) => {
      const { grade, series, today } = build(s)
      const made = new Set<string>()
      let count = 0
      // Evaluations on later days too (the window moves), each adding what is fresh.
      for (const shift of [0, ...shifts]) {
        const found = Qualifying.candidates({ today: today + shift, daysAhead: s.daysAhead, forecast: series, grade })
        for (const c of Qualifying.fresh(found, kinds, made)) {
          expect(kinds).toContain(c.kind)
          expect(made.has(Qualifying.alertKey(c.date, c.kind))).toBe(false)
          made.add(Qualifying.alertKey(c.date, c.kind))
          count++
        }
        // Evaluating again at once makes nothing.
        expect(Qualifying.fresh(found, kinds, made)).toEqual([])
      }
      expect(count).toBe(made.size)
    }
  )

  it("an ungraded value (fewer than 30 samples) never qualifies", () => {
    for (const kind of Kinds.dailyKinds) expect(Kinds.qualifies(kind, gradeOf("tmax", null, 50))).toBe(false)
  })

  it("kinds: a non-empty list of known kinds, repeats collapsed, canonical order; else a detail", () => {
    expect(Kinds.parse(["wet", "heat", "wet"])).toEqual(Either.right(["heat", "wet"]))
    expect(Either.isLeft(Kinds.parse([]))).toBe(true)
    expect(Either.isLeft(Kinds.parse("heat"))).toBe(true)
    expect(Kinds.parse(["heat", "hot"])).toEqual(Either.left(`Unknown kind "hot" in 'kinds': expected a non-empty list of heat, cold, wet, heatwave, coldspell.`))
  })

  it.prop(
    "a watch request is {lat, lon, kinds} with coordinates in range and known kinds; anything else is refused with a detail naming the field",
    [
      FastCheck.oneof(FastCheck.double(), FastCheck.integer({ min: -200, max: 200 }), FastCheck.string(), FastCheck.constant(undefined)),
      FastCheck.oneof(FastCheck.double(), FastCheck.integer({ min: -200, max: 200 }), FastCheck.string(), FastCheck.constant(undefined)),
      FastCheck.oneof(
        FastCheck.array(FastCheck.constantFrom("heat", "cold", "wet"), { maxLength: 4 }),
        FastCheck.array(FastCheck.string(), { maxLength: 2 }),
        FastCheck.constant(undefined),
        FastCheck.string()
      )
    ],
    ([lat, lon, kinds]) => {
      const parsed = WatchRequest.parse({ lat, lon, kinds })
      const good = (name: Cell.Axis, v: unknown) => typeof v === "number" && Number.isFinite(v) && Cell.inRange(name, v)
      if (!good("lat", lat)) expect(parsed).toEqual(Either.left(expect.stringMatching(/^'lat' /)))
      else if (!good("lon", lon)) expect(parsed).toEqual(Either.left(expect.stringMatching(/^'lon' /)))
      else if (kinds === undefined) expect(parsed).toEqual(Either.left(expect.stringMatching(/^'kinds' is required/)))
      else expect(parsed).toEqual(Either.map(Kinds.parse(kinds), (k) => ({ lat, lon, kinds: k })))
    }
  )

  it("a watch request body that is not an object is refused", () => {
    for (const body of [null, [], "x", 3, true]) {
      expect(WatchRequest.parse(body)).toEqual(Either.left('The body must be a JSON object {"lat": number, "lon": number, "kinds": [...]}.'))
    }
  })
})

describe("the message", () => {
  it("names the place, date, variable, value with unit, percentile and label, and links to the day", () => {
    const date = CivilDate.fromYmd({ year: 2026, month: 7, day: 14 })
    const link = Message.link({ origin: "https://g.example.org", basePath: "/grades", lat: 52.52, lon: 13.4, date })
    expect(link).toBe("https://g.example.org/grades/?lat=52.52&lon=13.4&date=2026-07-14")
    expect(
      Message.content({
        place: "Berlin, DE",
        date,
        kind: "wet",
        variable: "precip",
        grade: { value: 41.26, unit: "mm", percentile: 99.5, label: "much-above", n: 430 },
        link
      })
    ).toBe(
      "Heavy rain alert for Berlin, DE on Tue 14 July 2026: precipitation 41.3 mm, much wetter than normal for this place and time of year " +
        `(99.5th percentile). ${link}`
    )
  })

  const heat = {
    place: "Berlin, DE",
    date: CivilDate.fromYmd({ year: 2026, month: 7, day: 14 }),
    kind: "heat",
    variable: "tmax",
    grade: { value: 36.24, unit: "°C", percentile: 96.2, label: "much-above", n: 430 },
    link: "L"
  } as const

  it("is written in the reader's language and units, the percentile as the pages print it", () => {
    expect(Message.content(heat)).toBe(
      "Heat alert for Berlin, DE on Tue 14 July 2026: high temperature 36.2 °C, much above normal for this place and time of year (96th percentile). L"
    )
    expect(Message.content({ ...heat, reader: { language: null, units: "imperial" } })).toBe(
      "Heat alert for Berlin, DE on Tue 14 July 2026: high temperature 97.2 °F, much above normal for this place and time of year (96th percentile). L"
    )
    expect(Message.content({ ...heat, reader: { language: "de", units: "metric" } })).toBe(
      "Hitzewarnung für Berlin, DE am Di., 14. Juli 2026: Höchsttemperatur 36,2 °C, deutlich über dem Mittel für diesen Ort und diese Jahreszeit (96. Perzentil). L"
    )
    expect(Message.content({ ...heat, reader: { language: "fr", units: "imperial" } })).toContain("maximum 97,2 °F, très au-dessus de la normale")
    expect(Message.content({ ...heat, reader: { language: "ja", units: null } })).toContain("最高気温は36.2 °C")
    const wet = { ...heat, kind: "wet", variable: "precip", grade: { value: 41.26, unit: "mm", percentile: 100, label: "record-high", n: 430 } } as const
    expect(Message.content({ ...wet, reader: { language: "es", units: "imperial" } })).toBe(
      "Aviso por lluvias intensas para Berlin, DE el mar, 14 de julio de 2026: acumulado de lluvia 1,62 in, un récord de lluvia para este lugar y época del año. L"
    )
    const record = { ...heat, grade: { ...heat.grade, percentile: 100, label: "record-high" } } as const
    expect(Message.content(record)).toBe(
      "Heat alert for Berlin, DE on Tue 14 July 2026: high temperature 36.2 °C, a record high for this place and time of year. L"
    )
  })

  it("every language writes every kind without a placeholder left", () => {
    for (const language of Languages.LANGUAGES) {
      for (const kind of ["heat", "cold", "wet"] as const) {
        for (const label of ["much-above", "much-below", "record-high", "record-low"] as const) {
          const text = Message.content({
            ...heat,
            kind,
            variable: Kinds.RULES[kind].variable,
            grade: { ...heat.grade, label },
            reader: { language, units: "imperial" }
          })
          expect(text).not.toMatch(/[{}]|undefined|NaN/)
          expect(text.endsWith(" L") || text.endsWith("。L")).toBe(true)
        }
      }
    }
  })
})

describe("retries", () => {
  it.prop(
    "backoff doubles from the base up to an hour; retries stop 24 hours after the message was queued",
    [
      FastCheck.integer({ min: 1, max: 60 }),
      FastCheck.integer({ min: 1, max: 120_000 }),
      FastCheck.integer({ min: 0, max: 30 * 3_600_000 }),
      FastCheck.integer({ min: 0, max: 7_200_000 })
    ],
    ([attempts, base, elapsed, wait]) => {
      const delay = Backoff.delay(attempts, base)
      expect(delay).toBe(Math.min(Math.max(Backoff.CAP_MS, base), base * 2 ** (attempts - 1)))
      expect(Backoff.delay(attempts + 1, base)).toBeGreaterThanOrEqual(delay)
      const createdAt = 1_000_000
      const windowMs = 24 * 3_600_000
      const step = Backoff.next({ now: createdAt + elapsed, createdAt, windowMs, waitMs: wait })
      if (elapsed >= windowMs) expect(step).toEqual({ _tag: "Fail" })
      else expect(step).toEqual({ _tag: "Retry", at: Math.min(createdAt + elapsed + wait, createdAt + windowMs) })
    }
  )
})

describe("the message's nonce", () => {
  it("one per alert, the same on every attempt, within the provider's 25 characters", () => {
    const seen = new Map<string, string>()
    FastCheck.assert(
      FastCheck.property(FastCheck.uuid(), (alertId) => {
        const nonce = Delivery.nonce(alertId)
        expect(nonce).toMatch(/^[0-9a-f]{25}$/)
        expect(Delivery.nonce(alertId)).toBe(nonce)
        // Two alerts never share one (a shared nonce would make the provider swallow the second).
        const other = seen.get(nonce)
        if (other !== undefined) expect(other).toBe(alertId)
        seen.set(nonce, alertId)
      }),
      { numRuns: 2_000 }
    )
    expect(seen.size).toBeGreaterThan(1_900)
  })
})
