/**
 * The page's words hold for values that tie with many days of their sample: every sentence a card,
 * the verdict and the day view can say about a graded value is checked against the sample itself,
 * over samples made of a few values only (so most days tie), graded as the service grades them.
 */
import { Percentile } from "@climate-grade/core"
import { type SampleBounds, shownLabel, tieOf, tieWords } from "@climate-grade/core/grading/Ties"
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { headline, labelWords, ordinal, verdict } from "../src/format.js"
import type { Grade, Variable } from "../src/payloads.js"

const round1 = (x: number) => Math.round(x * 10) / 10

/** Every claim about the sample that a sentence makes, checked; the failures, in words. */
const check = (sentence: string, sample: ReadonlyArray<number>, x: number, median: number): Array<string> => {
  const n = sample.length
  const share = (f: (s: number) => boolean) => (100 * sample.filter(f).length) / n
  const wrong: Array<string> = []
  // A tie's printed share ("like 69%") is rounded to whole numbers (tenths near 0 and 100), from a
  // percentile in tenths.
  const slack = 0.55
  let rest = sentence
  for (const m of sentence.matchAll(/(dry|as cold as the coldest|as warm as the warmest|as dry as the driest|as wet as the wettest), like ([\d.]+)% of days/g)) {
    const claimed = Number(m[2])
    const [kind] = [m[1]!]
    const at = kind === "dry" ? 0 : kind.includes("coldest") || kind.includes("driest") ? Math.min(...sample) : Math.max(...sample)
    if (x !== at) wrong.push(`"${m[0]}" of ${x}, where that end is ${at}`)
    const actual = share((s) => s === x)
    if (Math.abs(actual - claimed) > slack) wrong.push(`"${m[0]}": ${actual.toFixed(2)}% share it`)
    rest = rest.replace(m[0], "")
  }
  // "At least" is a bound: no slack for rounding (a share is floored, never rounded up).
  for (const m of rest.matchAll(/at least as (warm|cold|wet|dry) as ([\d.]+)% of days/g)) {
    const claimed = Number(m[2])
    const upward = m[1] === "warm" || m[1] === "wet"
    const actual = upward ? share((s) => s <= x) : share((s) => s >= x)
    if (actual < claimed) wrong.push(`"${m[0]}": only ${actual.toFixed(2)}%`)
  }
  // Strict comparisons (the words before ties had their own): that many days strictly below, or above.
  for (const m of rest.matchAll(/(warmer|colder) than ([\d.]+)% of days|more than on ([\d.]+)% of days/g)) {
    const claimed = Number(m[2] ?? m[3])
    const actual = m[1] === "colder" ? share((s) => s > x) : share((s) => s < x)
    if (actual < claimed - slack) wrong.push(`"${m[0]}": only ${actual.toFixed(2)}%`)
  }
  if (/record high/.test(rest) && !sample.every((s) => x > s)) wrong.push("a record high that is not past every day")
  if (/record low/.test(rest) && !sample.every((s) => x < s)) wrong.push("a record low that is not past every day")
  const withoutRecords = rest.replace(/record (high|low|wet)/g, "")
  if (/(above normal|wetter than normal)/.test(withoutRecords) && !(x > median)) wrong.push(`above normal, but the median day is ${median}`)
  if (/(below normal|drier than normal)/.test(withoutRecords) && !(x < median)) wrong.push(`below normal, but the median day is ${median}`)
  if (/No precipitation/.test(sentence) && x !== 0) wrong.push("no precipitation said of a wet day")
  return wrong
}

const LEVELS: Readonly<Record<Variable, ReadonlyArray<number>>> = {
  // Mostly dry, as many places are around many dates; a few small amounts, tied too.
  precip: [0, 0, 0, 0, 0, 0.1, 0.1, 0.2, 0.5, 1.3, 4.2, 12.4],
  tmax: [-1.2, 0, 0, 0.1, 3.5, 3.5, 3.6, 8.9, 14.1],
  tmin: [-7.4, -3.5, -3.5, -0.1, 0, 0, 2.2, 6.1]
}

const cases = FastCheck.constantFrom<Variable>("tmax", "tmin", "precip").chain((variable) => {
  const levels = LEVELS[variable]
  return FastCheck.record({
    variable: FastCheck.constant(variable),
    sample: FastCheck.array(FastCheck.constantFrom(...levels), { minLength: 30, maxLength: 240 }),
    // A value from the sample's own levels (ties), or one just past its ends (records).
    x: FastCheck.oneof(FastCheck.constantFrom(...levels), FastCheck.constantFrom(Math.min(...levels) - 0.5, Math.max(...levels) + 0.5))
  })
})

/**
 * Samples with many ties anywhere, not only at the ends: a few levels (as one decimal a payload
 * carries), each held by many days, and a value at one of them or past the ends.
 */
const tiedCases = FastCheck.record({
  variable: FastCheck.constantFrom<Variable>("tmax", "tmin", "precip"),
  levels: FastCheck.uniqueArray(FastCheck.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 6 }),
  counts: FastCheck.array(FastCheck.integer({ min: 1, max: 300 }), { minLength: 6, maxLength: 6 }),
  pick: FastCheck.nat()
}).map(({ variable, levels, counts, pick }) => {
  const values = levels.map((l) => l / 10)
  const sample = values.flatMap((v, i) => Array<number>(counts[i]!).fill(v))
  const xs = [...values, Math.min(...values) - 0.5, Math.max(...values) + 0.5]
  return { variable, sample, x: xs[pick % xs.length]! }
})

const graded = (variable: Variable, sample: ReadonlyArray<number>, x: number) => {
  const sorted = Float64Array.from(sample).sort()
  const p = Percentile.percentileOfScore(sorted, x)
  const grade: Grade = {
    value: x,
    unit: variable === "precip" ? "mm" : "°C",
    // As the payload carries it: one decimal.
    percentile: round1(p),
    label: Percentile.label(x, p, sorted[0]!, sorted[sorted.length - 1]!),
    n: sample.length
  }
  const median = Percentile.quantileType8(sorted, 0.5)
  const bounds: SampleBounds = { min: sorted[0]!, max: sorted[sorted.length - 1]!, p50: round1(median) }
  return { grade, median, bounds }
}

/** Every sentence the page can say about a graded value, with what it says wrong of its sample. */
const wrongs = (variable: Variable, sample: ReadonlyArray<number>, x: number): Array<string> => {
  const { grade, median, bounds } = graded(variable, sample, x)
  const ordinary: Grade = { value: 1, unit: "°C", percentile: 50, label: "near-normal", n: sample.length }
  const grades = { tmax: ordinary, tmin: ordinary, precip: { ...ordinary, unit: "mm" as const }, [variable]: grade }
  const tie = tieOf(variable, grade, bounds)
  const label = shownLabel(variable, grade, bounds)
  const sentences = [
    headline({ variable, grade, units: "metric", sinceYear: 1940, bounds }),
    verdict(grades, undefined, { [variable]: bounds }),
    label === null ? "" : labelWords(variable, label),
    grade.percentile === null ? "" : `${ordinal(grade.percentile)} percentile${tie === null ? "" : ` · ${tieWords(variable, tie)}`}`
  ]
  return sentences.flatMap((s) => check(s, sample, x, median).map((w) => `${s} → ${w}`))
}

describe("words for ties", () => {
  it.prop("every sentence about a graded value holds against its sample, however many days tie", [cases], ([{ variable, sample, x }]) => {
    expect(wrongs(variable, sample, x)).toEqual([])
  }, { fastCheck: { numRuns: 2_000 } })

  it.prop("and over samples tied at any level, the middle too", [tiedCases], ([{ variable, sample, x }]) => {
    expect(wrongs(variable, sample, x)).toEqual([])
  }, { fastCheck: { numRuns: 3_000 } })

  it("a low just under the 50th percentile is at least as cold as the share of days truly at or above it", () => {
    // 430 days (86 years of 5): 212 colder, 218 warmer. The percentile is 49.30…, carried as 49.3:
    // 100 − 49.3 rounds to "51%", where only 50.7% of days are at least as cold.
    const sample = [...Array<number>(212).fill(-2), ...Array<number>(218).fill(4)]
    const { grade, bounds } = graded("tmin", sample, 1)
    expect(grade.percentile).toBe(49.3)
    const sentence = headline({ variable: "tmin", grade, units: "metric", sinceYear: 1940, bounds })
    expect(sentence).toContain("at least as cold as 50% of days")
    expect(wrongs("tmin", sample, 1)).toEqual([])
    // A whole percentile keeps its figure when the sample's size shows it is exact.
    const warm = graded("tmax", [...Array<number>(413).fill(1), ...Array<number>(17).fill(9)], 5).grade
    expect(warm.percentile).toBe(96)
    expect(headline({ variable: "tmax", grade: warm, units: "metric", sinceYear: 1940 })).toContain("at least as warm as 96% of days")
  })

  it("a dry day where 69% of days were dry says so, with no share of wetter days", () => {
    const sample = [...Array(69).fill(0), ...Array(31).fill(2.5)]
    const { grade, bounds } = graded("precip", sample, 0)
    expect(grade.percentile).toBe(34.5)
    expect(headline({ variable: "precip", grade, units: "imperial", sinceYear: 1940, bounds })).toBe(
      "No precipitation today: dry, like 69% of days around this date since 1940."
    )
    // Most days are dry: a dry day is the normal one, whatever its percentile says.
    expect(verdict({ tmax: { ...grade, value: 1, unit: "°C", percentile: 50, label: "near-normal" }, tmin: { ...grade, value: 1, unit: "°C", percentile: 50, label: "near-normal" }, precip: grade }, undefined, { precip: bounds })).toBe(
      "Today is an ordinary day here for the time of year."
    )
  })

  it("the checker catches the old words: 'more than on 35%' of a dry day, 'drier than normal' of the median day", () => {
    const sample = [...Array(60).fill(0), ...Array(40).fill(2.5)]
    expect(check("Today's precipitation of 0.0 mm is at least as wet as 30% of days", sample, 0, 0)).toEqual([])
    expect(check("dry, like 45% of days around this date", sample, 0, 0)).not.toEqual([])
    expect(check("drier than normal", sample, 0, 0)).not.toEqual([])
    expect(check("at least as dry as 80% of days", sample, 2.5, 0)).not.toEqual([])
    expect(check("Today's precipitation of 0.1 mm is more than on 70% of days", [...Array(60).fill(0), ...Array(20).fill(0.1), ...Array(20).fill(3)], 0.1, 0)).not.toEqual([])
  })
})
