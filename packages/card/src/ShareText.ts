/**
 * What a shared link to a place says before it is opened (a chat client's preview, a tab, a
 * history entry): the place and today's grades in words, from the grade payload the server holds.
 * Plain text: whoever puts it into HTML escapes it.
 */
import type { GradePayload } from "@climate-grade/core/data/Payloads"
import { shownLabel, tieOf, tieWords } from "@climate-grade/core/grading/Ties"
import type { Language } from "@climate-grade/core/i18n/Languages"
import * as Messages from "@climate-grade/core/i18n/Messages"
import type { NotableSpell } from "@climate-grade/core/spells/Notable"
import { isNotable } from "@climate-grade/core/spells/SpellWords"
import { type Variable, Words } from "@climate-grade/core/rules"

const { formatCoordinates, formatValue, labelWords, longDate, ordinal, sinceYearOf, VARIABLE_NAME, VARIABLE_NOUN, VARIABLES } = Words
type Units = Words.Units

/** The place as the server knows it: the cell's label, else its coordinates. */
export const placeLabel = (grade: GradePayload): string => grade.cell.label ?? formatCoordinates(grade.cell.lat, grade.cell.lon)

/** The most unusual of today's graded values, as the site's verdict picks it. */
const mostUnusual = (grade: GradePayload): Variable | null => Words.mostUnusual(grade.variables)

export const SITE_NAME = "Climate grade"

export interface ShareText {
  /** The document's `<title>`: the preview title and the site's name. */
  readonly title: string
  /** `og:title`: the place and its most unusual grade. */
  readonly headline: string
  /** `<meta name="description">` and `og:description`: the date and the three grades. */
  readonly description: string
  /** `og:image:alt`: what the card shows, in words. */
  readonly imageAlt: string
}

const gradeWords = (grade: GradePayload, variable: Variable, units: Units): string => {
  const g = grade.variables[variable]
  const value = formatValue(g.value, g.unit, units)
  if (g.value === null) return `${VARIABLE_NOUN[variable]}: no value`
  if (g.percentile === null || g.label === null) return `${VARIABLE_NOUN[variable]} ${value} (not graded: ${g.n} comparable days)`
  // A dry day is described by the dry days it ties with, not by its percentile (core's Ties).
  const tie = tieOf(variable, g)
  if (tie !== null) return `${VARIABLE_NOUN[variable]} ${value} (${tieWords(variable, tie)})`
  return `${VARIABLE_NOUN[variable]} ${value} (${ordinal(g.percentile)} percentile, ${labelWords(variable, g.label)})`
}

/** The one thing to say: the most unusual grade with its value, or that the day is ordinary. */
const verdict = (grade: GradePayload, units: Units): string => {
  const top = mostUnusual(grade)
  if (top === null) return "today's weather against its history"
  const g = grade.variables[top]
  const label = shownLabel(top, g)
  if (label === null || label === "near-normal") return "an ordinary day for the time of year"
  return `${VARIABLE_NOUN[top]} ${formatValue(g.value, g.unit, units)}, ${labelWords(top, label)}`
}

/**
 * A severe or extreme heat wave or cold spell on or coming, in words (the core's notice, as the page
 * says it): "A severe heat wave from Thu 3 Dec: it would be the 4th hottest here since 1940 if the
 * forecast holds." A preview is read days after it was made, so the first day is a date (or
 * "today"), not a weekday alone. Null for a spell that is not severe or extreme.
 */
export const spellText = (notable: NotableSpell, today: string, lang: Language = "en"): Messages.SpellNotice | null => {
  const { spell } = notable
  if (!isNotable(spell)) return null
  const day = spell.start === today ? Messages.t(lang, "day.today") : Messages.shortDate(lang, spell.start)
  return Messages.spellNotice(lang, spell, notable.since, day, spell.start <= today)
}

/** The notice before the rest of a description, or nothing. */
const toldOf = (spell: NotableSpell | null, today: string, lang: Language): string => {
  const told = spell === null ? null : spellText(spell, today, lang)
  return told === null ? "" : `${told.text} `
}

/**
 * The words for a place's today. `name` is the place name the user picked (already checked:
 * `PlaceName.parse`); the cell's label stays beside it so the reader knows which cell answered.
 */
export const forGrade = (
  grade: GradePayload,
  name: string | null,
  units: Units,
  spell: NotableSpell | null = null,
  lang: Language = "en"
): ShareText => {
  if (lang !== "en") return forGradeIn(lang, grade, name, units, spell)
  const label = placeLabel(grade)
  const place = name === null || name === label ? label : name
  const where = name === null || name === label ? label : `${name} (${label})`
  const since = sinceYearOf(Math.max(...VARIABLES.map((v) => grade.variables[v].n)), grade.date)
  const headline = `${place} today: ${verdict(grade, units)}`
  const grades = VARIABLES.map((v) => gradeWords(grade, v, units)).join("; ")
  const told = toldOf(spell, grade.date, "en")
  const description =
    told +
    `${longDate(grade.date)} at ${where}: ${grades}. ` +
    `Each ranked against the same days of the year ${since === null ? "in the record" : `in every year since ${since}`}.`
  const imageAlt =
    told +
    `${label}, ${longDate(grade.date)}: ` +
    VARIABLES.map((v) => {
      const g = grade.variables[v]
      const value = formatValue(g.value, g.unit, units)
      const tie = tieOf(v, g)
      return g.percentile === null || g.label === null
        ? `${VARIABLE_NAME[v]} ${value}, no percentile`
        : tie !== null
          ? `${VARIABLE_NAME[v]} ${value}, ${tieWords(v, tie)}`
          : `${VARIABLE_NAME[v]} ${value}, ${ordinal(g.percentile)} percentile, ${labelWords(v, g.label)}`
    }).join("; ")
  return { title: `${headline} — ${SITE_NAME}`, headline, description, imageAlt }
}

/**
 * The same words in another language, from the core's messages, the spell's notice first as in
 * English. The words for ties other than a dry day are English-only sentences of the core, so they
 * are left out here and the percentile is said instead (still true, only less precise).
 */
const forGradeIn = (lang: Language, grade: GradePayload, name: string | null, units: Units, spell: NotableSpell | null): ShareText => {
  const t = Messages.t
  const label = placeLabel(grade)
  const place = name === null || name === label ? label : name
  const where = name === null || name === label ? label : `${name} (${label})`
  const since = sinceYearOf(Math.max(...VARIABLES.map((v) => grade.variables[v].n)), grade.date)
  const date = Messages.longDate(lang, grade.date)
  const value = (v: Variable) => Messages.formatValue(lang, grade.variables[v].value, grade.variables[v].unit, units)
  const standing = (v: Variable) => {
    const g = grade.variables[v]
    const tie = tieOf(v, g)
    if (tie !== null && tie.at === "dry") return t(lang, "dry.like", { share: Messages.formatPercentile(lang, tie.share) })
    return `${Messages.percentileWords(lang, g.percentile!)}, ${Messages.labelWords(lang, v, g.label!)}`
  }
  const gradeWords = (v: Variable) => {
    const g = grade.variables[v]
    const noun = Messages.variableNoun(lang, v)
    if (g.value === null) return t(lang, "grade.novalue", { noun })
    if (g.percentile === null || g.label === null) return t(lang, "grade.ungraded", { noun, value: value(v), n: g.n })
    return `${noun} ${value(v)} (${standing(v)})`
  }
  const top = mostUnusual(grade)
  const shown = top === null ? null : shownLabel(top, grade.variables[top])
  const verdict =
    top === null
      ? t(lang, "head.nothing")
      : shown === null || shown === "near-normal"
        ? t(lang, "head.ordinary")
        : t(lang, "head.verdict", { noun: Messages.variableNoun(lang, top), value: value(top), label: Messages.labelWords(lang, top, shown) })
  const headline = t(lang, "head.today", { place, verdict })
  const sinceWords = since === null ? t(lang, "since.record") : t(lang, "since.year", { year: since })
  const told = toldOf(spell, grade.date, lang)
  const description = told + t(lang, "head.description", {
    date,
    place: where,
    grades: VARIABLES.map(gradeWords).join("; "),
    since: sinceWords
  })
  const imageAlt = told + t(lang, "head.alt", {
    place: label,
    date,
    grades: VARIABLES.map((v) => {
      const g = grade.variables[v]
      const name = Messages.variableName(lang, v)
      return g.percentile === null || g.label === null ? `${name} ${value(v)}` : `${name} ${value(v)}, ${standing(v)}`
    }).join("; ")
  })
  return { title: t(lang, "head.title", { headline, site: t(lang, "site.name") }), headline, description, imageAlt }
}
