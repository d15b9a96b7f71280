/**
 * The site's words in the page's language. English is in the main bundle; every other language is a
 * chunk of its own (`./de.ts` … `./ar.ts`), fetched once, before the page is first drawn, while the
 * data loads. The language is chosen as the server chooses it (the core's `Languages.choose`): `lang=`
 * in the address, else the visitor's earlier choice (kept in this browser), else the server's pick from
 * `Accept-Language` (the `<html lang>` it wrote), else English.
 */
import { Languages, PageMessages } from "@climate-grade/core/rules"
import { en, type SiteCatalog, type SiteKey } from "./en.js"
import type { DateWords } from "./dates.js"
import type { LaterCatalog } from "./later/en.js"

export type Language = Languages.Language
export type { SiteKey }

const KEPT = "climate-grade:lang"

/** A language's chunk: the site's words, the core's (`PageMessages`) and its dates' (`./dates.ts`), in one file. */
interface Words {
  readonly default: SiteCatalog
  readonly core: PageMessages.Catalog
  readonly dates: DateWords
}

const loaders: Readonly<Record<Exclude<Language, "en">, () => Promise<Words>>> = {
  de: () => import("./de.js"),
  fr: () => import("./fr.js"),
  es: () => import("./es.js"),
  pt: () => import("./pt.js"),
  ja: () => import("./ja.js"),
  ar: () => import("./ar.js")
}

/**
 * The words drawn after the grades and on the account page (`./later/`), a chunk per language of
 * their own so that the JavaScript before the grades does not carry them. English is no chunk: it
 * comes with the code that uses these words (`./later.ts`), which reads this language's here.
 */
const laterLoaders: Readonly<Record<Exclude<Language, "en">, () => Promise<{ readonly default: LaterCatalog }>>> = {
  de: () => import("./later/de.js"),
  fr: () => import("./later/fr.js"),
  es: () => import("./later/es.js"),
  pt: () => import("./later/pt.js"),
  ja: () => import("./later/ja.js"),
  ar: () => import("./later/ar.js")
}

let later: { readonly language: Language; readonly words: LaterCatalog } | null = null
let laterPending: Promise<void> | undefined

/**
 * Fetches the later words of `language` (the page's by default), once; the parts drawn after the
 * grades, the refusals' words and the account page wait for it. Without them (the chunk did not
 * come) those parts speak English.
 */
export const laterWords = (language: Language = current): Promise<void> => {
  if (language === "en") return Promise.resolve()
  laterPending ??= laterLoaders[language]().then(
    (m) => {
      later = { language, words: m.default }
    },
    (error: unknown) => {
      laterPending = undefined
      console.warn("the page's later words could not be loaded; English instead", error)
    }
  )
  return laterPending
}

/** The page's language's later words, when they are here. */
export const laterCatalog = (): LaterCatalog | null => (later !== null && later.language === current ? later.words : null)

/** Sets a test's later words (with `setCatalog`). */
export const setLaterCatalog = (language: Language, words: LaterCatalog): void => {
  later = { language, words }
}

/** The language the server wrote into `<html lang>` (its pick from Accept-Language and `lang=`). */
const served = typeof document === "undefined" ? null : document.documentElement.getAttribute("lang")
export const servedLanguage = (): string | null => served

let current: Language = "en"
let catalog: SiteCatalog = en
let dates: DateWords | null = null

/** The page's language's words for dates; null in English (the core's `Words` write English dates). */
export const dateWords = (): DateWords | null => dates

/** The page's language (English until `applyLanguage` has run). */
export const lang = (): Language => current

/** The language's locale for `Intl` (the language code itself: "de" writes a decimal comma). */
export const locale = (): string => current

/** The visitor's earlier choice in this browser, when it names one of the languages. */
export const keptLanguage = (): Language | null => {
  try {
    const kept = globalThis.localStorage?.getItem(KEPT) ?? null
    return Languages.isLanguage(kept) ? kept : null
  } catch {
    return null
  }
}

export const keepLanguage = (language: Language): void => {
  try {
    globalThis.localStorage?.setItem(KEPT, language)
  } catch {
    // Storage refused: the choice lasts for this page only.
  }
}

/** The language for this page: `lang=`, the kept choice, the server's `<html lang>` (its Accept-Language pick), English. */
export const pageLanguage = (): Language => {
  const query = new URLSearchParams(location.search).get("lang")
  return Languages.choose({ query, kept: keptLanguage(), acceptLanguage: served })
}

/**
 * Makes `language` the page's: its words (a chunk fetched once; English if it cannot be fetched) and
 * `<html lang dir>`.
 */
export const applyLanguage = async (language: Language): Promise<Language> => {
  if (language !== "en") {
    try {
      const words = await loaders[language]()
      PageMessages.use(language, words.core)
      catalog = words.default
      dates = words.dates
    } catch (error) {
      console.warn("the page's words could not be loaded; English instead", error)
      language = "en"
      catalog = en
      dates = null
    }
  } else {
    catalog = en
    dates = null
  }
  current = language
  const root = document.documentElement
  root.lang = language
  root.dir = Languages.dir(language)
  return language
}

/** Sets a test's or a tool's language without a browser, the core's words and its dates' with it. */
export const setCatalog = (language: Language, words: SiteCatalog, core?: PageMessages.Catalog, dateWords?: DateWords): void => {
  if (core !== undefined) PageMessages.use(language, core)
  current = language
  catalog = words
  dates = language === "en" ? null : (dateWords ?? null)
}

/** A sentence around one placeholder, as its text before and after it (for an element in its place). */
export const around = (key: SiteKey, name: string): readonly [string, string] => {
  const text = w(key)
  const at = text.indexOf(`{${name}}`)
  return at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at + name.length + 2)]
}

/** A message's `{name}` placeholders filled (one left as it is when `values` lacks it). */
export const fill = (text: string, values: Readonly<Record<string, string | number>>): string =>
  text.replace(/\{([a-zA-Z]+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole))

/** A word or sentence in the page's language, its `{name}` placeholders filled. */
export const w = (key: SiteKey, values: Readonly<Record<string, string | number>> = {}): string => fill(catalog[key] ?? en[key], values)
