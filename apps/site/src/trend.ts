/**
 * The climate context in words and stripes: how this month, season and year so far rank against
 * the same days of earlier years, said as a person would say it, and each complete year's mean
 * temperature as an anomaly for the warming stripes. Pure functions, tested without a browser.
 *
 * A rank from the payload counts the years strictly higher (1 = the highest), so "the 3rd warmest"
 * is exact even with ties. From the bottom the payload says less: `of − rank` other years are at or
 * below this one, but not how many tie with it, so near the bottom the words are "the 2nd driest"
 * only when that is certain and "among the 5 driest" otherwise; in the middle they count from the top.
 */
import { PageMessages } from "@climate-grade/core/rules"
import { formatCount, formatValue, ltr, monthName, ordinal, shortMonth, unitSymbol } from "./format.js"
import { lang } from "./i18n/index.js"
import { w } from "./i18n/later.js"
import type { TrendPayload, TrendStanding, Units, Variable } from "./payloads.js"

/** The core's words in the page's language (its catalog came with the page's language chunk). */
const t = (key: PageMessages.Key, values?: PageMessages.Values): string => PageMessages.t(lang(), key, values)

/** A name at the head of a sentence: Intl writes French, Spanish and Portuguese months in lower case. */
const capital = (text: string): string => text.charAt(0).toLocaleUpperCase(lang()) + text.slice(1)

export type PeriodName = keyof TrendPayload["periods"]

const SEASONS_NORTH = ["winter", "spring", "summer", "autumn"] as const
const SEASONS_SOUTH = ["summer", "autumn", "winter", "spring"] as const

const ymd = (date: string) => ({ year: Number(date.slice(0, 4)), month: Number(date.slice(5, 7)), day: Number(date.slice(8, 10)) })
const monthLength = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate()

/** "1–21 Nov", "1 Sep–21 Nov", "1 Dec 2024–15 Jan 2025": the span's days, an en dash between. */
export const spanWords = (from: string, to: string): string => {
  const a = ymd(from)
  const b = ymd(to)
  if (a.year !== b.year) return `${a.day} ${shortMonth(a.month)} ${a.year}–${b.day} ${shortMonth(b.month)} ${b.year}`
  if (a.month === b.month) return a.day === b.day ? `${a.day} ${shortMonth(a.month)}` : `${a.day}–${b.day} ${shortMonth(b.month)}`
  return `${a.day} ${shortMonth(a.month)}–${b.day} ${shortMonth(b.month)}`
}

/**
 * The period's name: "November so far", "Autumn so far", "2025 so far" ("November 2025" once the
 * record holds the whole month). Seasons are meteorological and named for the cell's hemisphere
 * (December to February is summer south of the equator).
 */
export const periodWords = (period: PeriodName, from: string, to: string, lat: number): string => {
  const end = ymd(to)
  const start = ymd(from)
  if (period === "month") {
    const whole = end.day === monthLength(end.year, end.month)
    const month = monthName(end.month)
    return capital(whole ? t("trend.month.whole", { month, year: end.year }) : t("trend.so-far", { name: month }))
  }
  if (period === "season") {
    const index = start.month === 12 ? 0 : Math.floor(start.month / 3)
    const name = t(`trend.season.${(lat < 0 ? SEASONS_SOUTH : SEASONS_NORTH)[index]!}`)
    const lastMonth = start.month === 12 ? 2 : start.month + 2
    const whole = end.month === lastMonth && end.day === monthLength(end.year, end.month)
    return capital(whole ? t("trend.season.whole", { season: name, year: end.year }) : t("trend.so-far", { name }))
  }
  return end.month === 12 && end.day === 31 ? t("trend.year.whole", { year: end.year }) : t("trend.so-far", { name: end.year })
}

/**
 * The variable's words (`trend.<variable>.*` in the core's catalogs): `high`/`low` say the top and the
 * bottom of the ranking ("warmest", "driest"), `highs`/`lows` the same where a language wants the
 * plural ("des plus chauds"), `measure` names the value in parentheses, `noun` the variable when
 * nothing is ranked; `trend.of.<variable>` is what is ranked, "of 37 for daytime highs".
 */
const wordsOf = (variable: Variable) => ({
  high: t(`trend.${variable}.high`),
  highs: t(`trend.${variable}.highs`),
  low: t(`trend.${variable}.low`),
  lows: t(`trend.${variable}.lows`),
  measure: t(`trend.${variable}.measure`),
  noun: t(`trend.${variable}.noun`)
})

const unitOf = (variable: Variable) => (variable === "precip" ? "mm" : "°C")

/**
 * One sentence for a period and a variable, e.g. "November so far is the 3rd warmest of 37 for
 * daytime highs (mean high 12.3 °C); the warmest was 2015 (14.0 °C)."
 * `year` is the period's own year (of its last day), for telling a record from a tie.
 */
export const standingWords = (subject: string, variable: Variable, s: TrendStanding, year: number, units: Units): string => {
  const w = wordsOf(variable)
  const unit = unitOf(variable)
  // A value and its unit are never split across lines.
  const v = (x: number) => formatValue(x, unit, units).replace(" ", "\u00a0")
  if (s.value === null || s.rank === null || s.highest === null || s.lowest === null) {
    return t("trend.unranked", { subject, noun: w.noun })
  }
  if (s.of === 1) return t("trend.single", { subject, measure: w.measure, value: v(s.value) })
  const common = { subject, ...w, of: t(`trend.of.${variable}`, { n: s.of }), own: t("trend.own", { measure: w.measure, value: v(s.value) }) }
  // A rank as the sentence says it: "3rd" in English, the figure elsewhere (the sentence holds its marks).
  const rank = (n: number) => (lang() === "en" ? ordinal(n) : formatCount(n))
  if (s.rank === 1) {
    return s.highest.year === year ? t("trend.high.record", common) : t("trend.high.joint", { ...common, year: s.highest.year })
  }
  if (s.lowest.value === s.value) {
    return s.lowest.year === year ? t("trend.low.record", common) : t("trend.low.joint", { ...common, year: s.lowest.year })
  }
  // Other years at or below this one; the lowest is strictly below (it is not this value).
  const below = s.of - s.rank
  // Near the bottom the words count from it; elsewhere the rank from the top, which is exact.
  const nearBottom = s.rank > below + 1 && (below === 1 || below + 1 <= Math.max(3, Math.floor(s.of / 4)))
  if (!nearBottom) {
    return t("trend.nth", { ...common, rank: rank(s.rank), year: s.highest.year, value: v(s.highest.value) })
  }
  const lowest = { year: s.lowest.year, value: v(s.lowest.value) }
  return below === 1 ? t("trend.nth.low", { ...common, ...lowest, rank: rank(2) }) : t("trend.among", { ...common, ...lowest, n: below + 1 })
}

export interface PeriodText {
  readonly period: PeriodName
  /** "November so far (1–21 Nov)": the period and its days. */
  readonly title: string
  readonly sentences: ReadonlyArray<{ readonly variable: Variable; readonly text: string }>
}

/** The three periods, each a title with its days and a sentence per variable ("November so far is …"). */
export const periodTexts = (trend: TrendPayload, units: Units): ReadonlyArray<PeriodText> =>
  (["month", "season", "year"] as const).map((period) => {
    const p = trend.periods[period]
    const name = periodWords(period, p.from, p.to, trend.cell.lat)
    const year = ymd(p.to).year
    return {
      period,
      title: t("trend.title", { name, span: spanWords(p.from, p.to) }),
      sentences: (["tmax", "tmin", "precip"] as const).map((variable) => ({
        variable,
        text: standingWords(name, variable, p.variables[variable], year, units)
      }))
    }
  })

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

export interface Stripe {
  readonly year: number
  /** The year's mean of (daily high + daily low) / 2, °C; null without both means. */
  readonly mean: number | null
  /** `mean` less the reference mean, °C. */
  readonly anomaly: number | null
}

export interface Stripes {
  readonly stripes: ReadonlyArray<Stripe>
  /** The years the anomaly is measured against: the baseline, else every complete year with a mean. */
  readonly reference: { readonly from: number; readonly to: number; readonly mean: number } | null
  /** Whether the reference is the payload's baseline (else the whole record). */
  readonly isBaseline: boolean
}

/** One stripe per complete year of the record (every day of it between the record's ends). */
export const stripesOf = (trend: TrendPayload): Stripes => {
  const complete = trend.years.filter((y) => y.days === (isLeap(y.year) ? 366 : 365))
  const meanOf = (y: TrendPayload["years"][number]) => (y.tmax === null || y.tmin === null ? null : (y.tmax + y.tmin) / 2)
  const inReference = (year: number) => trend.baseline === null || (year >= trend.baseline.from && year <= trend.baseline.to)
  const reference = complete.filter((y) => inReference(y.year) && meanOf(y) !== null)
  const base = reference.length === 0 ? null : reference.reduce((sum, y) => sum + meanOf(y)!, 0) / reference.length
  return {
    stripes: complete.map((y) => {
      const mean = meanOf(y)
      return { year: y.year, mean, anomaly: mean === null || base === null ? null : mean - base }
    }),
    reference:
      base === null
        ? null
        : trend.baseline !== null
          ? { from: trend.baseline.from, to: trend.baseline.to, mean: base }
          : { from: reference[0]!.year, to: reference.at(-1)!.year, mean: base },
    isBaseline: trend.baseline !== null
  }
}

/**
 * ColorBrewer's RdBu, 11 classes, from the coldest to the warmest: diverging, safe for the common
 * colour-blindnesses (it is blue against red, never red against green), and ordered light to dark
 * from the middle out when printed in grey.
 */
export const STRIPE_COLOURS = [
  "#053061",
  "#2166ac",
  "#4393c3",
  "#92c5de",
  "#d1e5f0",
  "#f7f7f7",
  "#fddbc7",
  "#f4a582",
  "#d6604d",
  "#b2182b",
  "#67001f"
] as const
/** A complete year without a mean (too few days with values). */
export const NO_STRIPE = "#8c8c8c"

/**
 * A stripe's colour: the anomalies are spread over the palette symmetrically, so 0 is the middle
 * class and the largest anomaly of either sign reaches an end.
 */
export const stripeColour = (anomaly: number | null, extent: number): string => {
  if (anomaly === null) return NO_STRIPE
  const k = STRIPE_COLOURS.length
  const span = Math.max(extent, 0.05)
  const index = Math.floor(((anomaly + span) / (2 * span)) * k)
  return STRIPE_COLOURS[Math.min(k - 1, Math.max(0, index))]!
}

/** The largest anomaly either way, for `stripeColour`. */
export const extentOf = (stripes: ReadonlyArray<Stripe>): number =>
  stripes.reduce((m, s) => (s.anomaly === null ? m : Math.max(m, Math.abs(s.anomaly))), 0)

/** A difference's size in the chosen units, to the tenth: 0 when it rounds to "0.0". */
const tenths = (delta: number, units: Units): number => Number((units === "metric" ? delta : (delta * 9) / 5).toFixed(1))

/** A temperature difference in the chosen units, signed: "+1.2 °C", "−0.4 °F" ("+1,2 °C" in German). */
export const formatDifference = (delta: number, units: Units): string => {
  const value = tenths(delta, units)
  const sign = value === 0 ? "±" : value > 0 ? "+" : "−"
  return ltr(`${sign}${formatCount(Math.abs(value), 1)} ${unitSymbol("°C", units)}`)
}

/** What a stripe says, for its readout and for a screen reader: "1987: mean 9.8 °C, 0.4 °C above the 1961–1990 average." */
export const stripeWords = (stripe: Stripe, reference: Stripes["reference"], units: Units): string => {
  if (stripe.mean === null) return w("stripe.no-mean", { year: stripe.year })
  const value = formatValue(stripe.mean, "°C", units)
  if (stripe.anomaly === null || reference === null) return w("stripe.mean", { year: stripe.year, value })
  const average = { year: stripe.year, value, from: reference.from, to: reference.to }
  if (tenths(Math.abs(stripe.anomaly), units) === 0) return w("stripe.same", average)
  // The size of the difference, without its sign: the words say which way.
  const size = ltr(`${formatCount(tenths(Math.abs(stripe.anomaly), units), 1)} ${unitSymbol("°C", units)}`)
  return w(stripe.anomaly > 0 ? "stripe.above" : "stripe.below", { ...average, size })
}
