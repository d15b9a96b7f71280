/**
 * The messages as a page holds them: English, and the one other language the page shows once its
 * catalog (`catalogs/<lang>.ts`, in the page's language chunk) is given to `use`. The same functions
 * as `Messages`, so a page and the server word things alike; a language not yet given reads English.
 * Browser-safe: no IO, no `effect`, no Node built-in.
 */
import { type Catalog, en } from "./catalogs/en.js"
import type { Language } from "./Languages.js"
import { localize } from "./Localize.js"

export {
  type Catalog,
  formatDecimal,
  formatPercentile,
  type Key,
  longDate,
  type NotableRankedSpell,
  placeholders,
  shortDate,
  type SpellNotice,
  type Values
} from "./Localize.js"

const held: Partial<Record<Language, Catalog>> = { en }

/** Holds a language's catalog for the page (its language chunk brings it). */
export const use = (lang: Language, catalog: Catalog): void => {
  held[lang] = catalog
}

/** Whether a language's catalog is held. */
export const holds = (lang: Language): boolean => held[lang] !== undefined

export const { t, variableName, variableNoun, labelWords, percentileWords, formatValue, rankWords, standingSentence, spellNotice } = localize((lang) => held[lang])
