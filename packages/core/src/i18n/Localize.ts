/**
 * The formatting of messages, apart from the words: `localize` binds the functions that need a
 * catalog (a message, a variable's name, the label words…) to a way of finding one per language, so
 * the server can hold all seven catalogs (`Messages`) and a page only its own (`PageMessages`).
 * Numbers and dates by `Intl` in the language's locale. Browser-safe: no IO, no `effect`, no Node built-in.
 */
import type { Label } from "../grading/Percentile.js"
import { type NotableSeverity, ordinalNumber, type RankedSpell, standing as englishStanding } from "../spells/SpellWords.js"
import type { Variable } from "../weather/DailySeries.js"
import { convert, longDate as englishLongDate, MONTHS, type Unit, type Units, unitSymbol, WEEKDAYS } from "../words/Words.js"
import { type Catalog, en, type Key } from "./catalogs/en.js"
import type { Language } from "./Languages.js"

export type { Catalog, Key }

/** The placeholders a message names, sorted. */
export const placeholders = (message: string): ReadonlyArray<string> =>
  [...new Set([...message.matchAll(/\{([a-zA-Z]+)\}/g)].map((m) => m[1]!))].sort()

/** A message in `lang` with its placeholders filled (English when the language lacks it). */
const numberFormats = new Map<string, Intl.NumberFormat>()
const numberFormat = (lang: Language, digits: number) => {
  const key = `${lang}:${digits}`
  let f = numberFormats.get(key)
  if (f === undefined) {
    // Arabic as Intl's "ar" writes it: Latin digits, as the Arab weather services' pages print them.
    f = new Intl.NumberFormat(lang, {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
      useGrouping: false
    })
    numberFormats.set(key, f)
  }
  return f
}

/** The languages whose figures take a decimal comma (the others, as Intl writes them here, a point). */
const DECIMAL_COMMA: ReadonlySet<Language> = new Set(["de", "fr", "es", "pt"])

/** A number in the language's way (decimal comma in de, fr, es, pt), a real minus sign, never "−0,0". */
export const formatDecimal = (lang: Language, value: number, digits: number): string => {
  const rounded = Number(value.toFixed(digits))
  const size = Math.abs(rounded)
  // By hand, exactly as Intl.NumberFormat writes it without grouping (a test holds the two equal): a
  // page's first NumberFormat loads ICU's locale data, tens of milliseconds of a phone's main thread.
  // Intl for what toFixed writes with an exponent. The sign by hand: Intl puts a direction mark before
  // Arabic's, and a real minus sign reads better.
  const figures = size < 1e21 ? size.toFixed(digits) : numberFormat(lang, digits).format(size)
  const text = DECIMAL_COMMA.has(lang) ? figures.replace(".", ",") : figures
  return rounded < 0 ? `−${text}` : text
}

/** A percentile as the words print it: whole, except a tenth kept near 0 and 100 (not a record). */
export const formatPercentile = (lang: Language, p: number): string => {
  const rounded = Math.round(p)
  if (rounded === 0 && p > 0) return formatDecimal(lang, Math.max(0.1, p), 1)
  if (rounded === 100 && p < 100) return formatDecimal(lang, Math.min(99.9, p), 1)
  return formatDecimal(lang, rounded, 0)
}

/** "96th percentile", "96. Perzentil", "percentil 96"… (English's ordinal suffixes by Intl.PluralRules). */
const dateFormats = new Map<Language, Intl.DateTimeFormat>()
/**
 * A civil date (YYYY-MM-DD) as the language writes it in full, with its weekday; English as the
 * pages write it ("Tue 14 July 2026"), neither Intl's American nor its British order with commas.
 */
export const longDate = (lang: Language, date: string): string => {
  if (lang === "en") return englishLongDate(date)
  let f = dateFormats.get(lang)
  if (f === undefined) {
    f = new Intl.DateTimeFormat(lang, {
      weekday: "short",
      day: "numeric",
      month: "long",
      year: "numeric",
      timeZone: "UTC"
    })
    dateFormats.set(lang, f)
  }
  const [y, m, d] = date.split("-").map(Number)
  return f.format(new Date(Date.UTC(y!, m! - 1, d!)))
}

const shortDateFormats = new Map<Language, Intl.DateTimeFormat>()
/**
 * A civil date (YYYY-MM-DD) in short, with its weekday and without its year, as the language writes
 * it ("Thu 3 Dec", "Do., 3. Dezember", "12月3日(木)"): a day of the coming weeks, named so that it is
 * still right when read days later. The month is written out but in English: an abbreviation's
 * period would end a sentence twice ("ab Do., 3. Dez..").
 */
export const shortDate = (lang: Language, date: string): string => {
  const [y, m, d] = date.split("-").map(Number)
  const utc = new Date(Date.UTC(y!, m! - 1, d!))
  if (lang === "en") return `${WEEKDAYS[utc.getUTCDay()]} ${d} ${MONTHS[m! - 1]!.slice(0, 3)}`
  let f = shortDateFormats.get(lang)
  if (f === undefined) {
    f = new Intl.DateTimeFormat(lang, { weekday: "short", day: "numeric", month: "long", timeZone: "UTC" })
    shortDateFormats.set(lang, f)
  }
  return f.format(utc)
}

/** A heat wave or cold spell worth a notice (SpellWords.isNotable): severe or extreme. */
export type NotableRankedSpell = RankedSpell & { readonly severity: NotableSeverity }

/** A spell's notice in words, and its two halves (a card draws them on two lines). */
export interface SpellNotice {
  /** The whole notice: "A severe heat wave from Thursday: it would be the 4th hottest here since 1940 if the forecast holds." */
  readonly text: string
  /** What and when: "A severe heat wave from Thursday", "Eine starke Hitzewelle ab Donnerstag." */
  readonly lead: string
  /** Its standing, as the notice ends: "it would be the 4th hottest here since 1940 if the forecast holds.", "Sie stünde auf Platz 4 …" */
  readonly standing: string
}

/** A message's values: figures and words already formatted for the language. */
export type Values = Readonly<Record<string, string | number>>

/** The catalog-bound half of the messages, for one way of finding a language's catalog. */
export const localize = (catalogOf: (lang: Language) => Catalog | undefined) => {
  /** A message in `lang` with its placeholders filled (English when the language lacks it or is not loaded). */
  const t = (lang: Language, key: Key, values: Values = {}): string =>
    (catalogOf(lang)?.[key] ?? en[key]).replace(/\{([a-zA-Z]+)\}/g, (whole, name: string) =>
      name in values ? String(values[name]) : whole
    )
  const variableName = (lang: Language, v: Variable): string => t(lang, `variable.${v}`)
  const variableNoun = (lang: Language, v: Variable): string => t(lang, `noun.${v}`)
  const labelWords = (lang: Language, v: Variable, label: Label): string =>
    t(lang, v === "precip" ? `precip.${label}` : `label.${label}`)
  /** "96th percentile", "96. Perzentil", "percentil 96"… (English's ordinal suffixes by Intl.PluralRules). */
  const percentileWords = (lang: Language, p: number): string => {
    const text = formatPercentile(lang, p)
    if (lang === "en") {
      const suffix = text.includes(".") ? "th" : EN_SUFFIX[ordinalRules.select(Number(text))]!
      return `${text}${suffix} percentile`
    }
    return t(lang, "percentile", { p: text })
  }
  /** A value in the chosen units with its unit, in the language's way ("31,2 °C"), or "no value" in words. */
  const formatValue = (lang: Language, value: number | null, unit: Unit, units: Units): string =>
    value === null
      ? t(lang, "value.none")
      : `${formatDecimal(lang, convert(value, unit, units), units === "imperial" && unit === "mm" ? 2 : 1)} ${unitSymbol(unit, units)}`
  /** A spell's rank as the language writes the ordinal ("3rd", "3.", "3e", "3.ª"). */
  const rankWords = (lang: Language, n: number): string => (lang === "en" ? ordinalNumber(n) : t(lang, "rank", { n }))
  /**
   * The spell's standing as a sentence: "It would be the 3rd hottest heat wave here since 1940 if the
   * forecast holds." (the alert messages'; English as SpellWords.standing says it).
   */
  const standingSentence = (lang: Language, spell: Pick<RankedSpell, "kind" | "rank_peak" | "forecast">, since: number): string =>
    t(lang, `standing.${spell.kind}.${spell.rank_peak <= 1 ? "first" : "nth"}${spell.forecast ? ".forecast" : ""}`, {
      rank: rankWords(lang, spell.rank_peak),
      year: since
    })
  /**
   * The notice of a severe or extreme heat wave or cold spell on or coming, for the page's notice,
   * the share card and a shared link's head. `day` names its first day as the reader is told it
   * ("today", "Thursday", "Thu 3 Dec"); a spell already under way (`started`) is "since" that day.
   * English goes on with the clause the pages have always said ("…: it would be the 4th hottest
   * here since 1940 if the forecast holds."); the other languages with the standing's sentence.
   */
  const spellNotice = (lang: Language, spell: NotableRankedSpell, since: number, day: string, started: boolean): SpellNotice => {
    const standing = lang === "en" ? `it ${englishStanding(spell, since, false)}` : standingSentence(lang, spell, since)
    const text = t(lang, `notice.${spell.kind}.${spell.severity}.${started ? "since" : "from"}`, { day, standing })
    // Every catalog's notice ends with its standing; what comes before it, less the colon, is the lead.
    const at = text.lastIndexOf(standing)
    return at < 0 ? { text, lead: text, standing: "" } : { text, lead: text.slice(0, at).replace(/[\s:：]+$/u, ""), standing: text.slice(at) }
  }
  return { t, variableName, variableNoun, labelWords, percentileWords, formatValue, rankWords, standingSentence, spellNotice }
}

const ordinalRules = new Intl.PluralRules("en", { type: "ordinal" })
const EN_SUFFIX: Readonly<Record<string, string>> = { one: "st", two: "nd", few: "rd", other: "th" }
