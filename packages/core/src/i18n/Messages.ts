/**
 * Every word the pages' heads, the card and the direct messages say, with all seven catalogs at
 * hand: for the server, which answers in any language. A page holds only its own language's catalog
 * (`PageMessages`). A message is a string with `{name}` placeholders; numbers and dates are formatted
 * by `Intl` in the language's locale before they go in (docs/i18n.md says why no ICU runtime).
 * Browser-safe: no IO, no `effect`, no Node built-in.
 */
import { ar } from "./catalogs/ar.js"
import { de } from "./catalogs/de.js"
import { type Catalog, en } from "./catalogs/en.js"
import { es } from "./catalogs/es.js"
import { fr } from "./catalogs/fr.js"
import { ja } from "./catalogs/ja.js"
import { pt } from "./catalogs/pt.js"
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

export const CATALOGS: Readonly<Record<Language, Catalog>> = { en, de, fr, es, pt, ja, ar }

export const { t, variableName, variableNoun, labelWords, percentileWords, formatValue, rankWords, standingSentence, spellNotice } = localize((lang) => CATALOGS[lang])
