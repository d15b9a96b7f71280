/**
 * The languages the pages, shared heads, cards and direct messages speak, and how one is chosen:
 * a `lang` query parameter, else the visitor's earlier choice (kept in the browser, so only the page
 * reads it), else `Accept-Language`'s best-quality supported language (a region such as `pt-BR`
 * matches its language), else English. Browser-safe: no IO, no `effect`, no Node built-in.
 */
export const LANGUAGES = ["en", "de", "fr", "es", "pt", "ja", "ar"] as const
export type Language = (typeof LANGUAGES)[number]

export const FALLBACK: Language = "en"

export const isLanguage = (s: unknown): s is Language => typeof s === "string" && (LANGUAGES as ReadonlyArray<string>).includes(s)

/** `rtl` for Arabic, else `ltr`. */
export const dir = (lang: Language): "ltr" | "rtl" => (lang === "ar" ? "rtl" : "ltr")

/** Open Graph's `og:locale` (language_TERRITORY), each language's most common reading. */
export const OG_LOCALE: Readonly<Record<Language, string>> = {
  en: "en_US",
  de: "de_DE",
  fr: "fr_FR",
  es: "es_ES",
  pt: "pt_PT",
  ja: "ja_JP",
  ar: "ar_AR"
}

/** The language's own name, as a picker shows it. */
export const NATIVE_NAME: Readonly<Record<Language, string>> = {
  en: "English",
  de: "Deutsch",
  fr: "Français",
  es: "Español",
  pt: "Português",
  ja: "日本語",
  ar: "العربية"
}

/**
 * `Accept-Language`'s best-quality supported language, or undefined. Ties keep the header's order;
 * `q=0` refuses; `*` names no language of its own.
 */
export const fromAcceptLanguage = (header: string | undefined | null): Language | undefined => {
  if (header === undefined || header === null || header.length > 4096) return undefined
  let best: Language | undefined
  let bestQ = 0
  for (const part of header.split(",")) {
    const [range, ...params] = part.trim().split(";")
    const tag = range?.trim().toLowerCase() ?? ""
    let q = 1
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p)
      if (m !== null) q = Number(m[1])
    }
    if (!Number.isFinite(q) || q <= 0 || q > 1) continue
    const primary = tag.split("-")[0]
    if (!isLanguage(primary)) continue
    if (q > bestQ) {
      best = primary
      bestQ = q
    }
  }
  return best
}

/** The first match wins: `lang=` (when one of ours), the kept choice, `Accept-Language`, English. */
export const choose = (options: {
  readonly query?: string | null | undefined
  readonly kept?: string | null | undefined
  readonly acceptLanguage?: string | null | undefined
}): Language => {
  if (isLanguage(options.query)) return options.query
  if (isLanguage(options.kept)) return options.kept
  return fromAcceptLanguage(options.acceptLanguage) ?? FALLBACK
}
