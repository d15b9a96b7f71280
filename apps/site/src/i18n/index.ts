/**
 * The site's words in the page's language. English is in the main bundle; every other language is a
 * chunk of its own (`./de.ts` … `./ar.ts`), fetched once, before the page is first drawn, while the
 * data loads. The language is chosen as the server chooses it (the core's `Languages.choose`): `lang=`
 * in the address, else the visitor's earlier choice (kept in this browser), else the server's pick from
 * `Accept-Language` (the `<html lang>` it wrote), else English.
 */
import { Languages } from "@climate-grade/core/rules"
import { en, type SiteCatalog, type SiteKey } from "./en.js"

export type Language = Languages.Language
export type { SiteKey }

const KEPT = "climate-grade:lang"

const loaders: Readonly<Record<Exclude<Language, "en">, () => Promise<{ readonly default: SiteCatalog }>>> = {
  de: () => import("./de.js"),
  fr: () => import("./fr.js"),
  es: () => import("./es.js"),
  pt: () => import("./pt.js"),
  ja: () => import("./ja.js"),
  ar: () => import("./ar.js")
}

/** The language the server wrote into `<html lang>` (its pick from Accept-Language and `lang=`). */
const served = typeof document === "undefined" ? null : document.documentElement.getAttribute("lang")
export const servedLanguage = (): string | null => served

let current: Language = "en"
let catalog: SiteCatalog = en

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
      catalog = (await loaders[language]()).default
    } catch (error) {
      console.warn("the page's words could not be loaded; English instead", error)
      language = "en"
      catalog = en
    }
  } else catalog = en
  current = language
  const root = document.documentElement
  root.lang = language
  root.dir = Languages.dir(language)
  return language
}

/** Sets a test's or a tool's language without a browser (`Format.test.ts`). */
export const setCatalog = (language: Language, words: SiteCatalog): void => {
  current = language
  catalog = words
}

/** A sentence around one placeholder, as its text before and after it (for an element in its place). */
export const around = (key: SiteKey, name: string): readonly [string, string] => {
  const text = w(key)
  const at = text.indexOf(`{${name}}`)
  return at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at + name.length + 2)]
}

/** A word or sentence in the page's language, its `{name}` placeholders filled. */
export const w = (key: SiteKey, values: Readonly<Record<string, string | number>> = {}): string =>
  (catalog[key] ?? en[key]).replace(/\{([a-zA-Z]+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole))
