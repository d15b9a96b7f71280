/**
 * The main page for a place's address (`{BASE_PATH}/?lat=..&lon=..`) with a head of its own, so a
 * link pasted into a chat previews as the place and its grades (docs/api.md "Shared links"):
 * `<title>`, `<meta name="description">`, Open Graph and Twitter tags, made from the
 * grade the server already holds for the cell (the core's `heldGrade`: never an upstream or
 * geocoder call). A cell not held gets the page's own generic title and description, and no
 * image. The body is the built page unchanged: no inline script, so the CSP stays strict.
 *
 * Every value placed in the HTML is escaped; `name=` (the place name the user picked) is user
 * input and goes through `PlaceName.parse` first. A request costs lookups: the record is in
 * memory once the cell was loaded, the grade payload is kept by its token and the page (with its
 * gzip and ETag, a hash of its bytes, so the ETag changes whenever the head does) by its head.
 */
import type { HttpServerRequest } from "@effect/platform"
import { CardSvg, ShareText } from "@climate-grade/card"
import type { Words } from "@climate-grade/core/rules"
import { type Cell, CivilDate, DataViews, HeldSpell, Languages, Lru, Messages, PageWords, type Payloads, PlaceName } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { API_PREFIX } from "../api/ApiPrefix.js"
import * as DataQuery from "../api/DataQuery.js"
import { host, scheme } from "../protocol/RequestInfo.js"
import { VARY } from "../protocol/ConditionalGet.js"
import { DemoData, SHORT } from "./Demo.js"
import { escapeHtml, fileOf, type SiteFile, serveFile } from "./Site.js"

/** The page's words follow Accept-Language (when no `lang=` names one), so caches must key on it. */
export const PAGE_VARY = `${VARY}, Accept-Language`

export interface PlacePageOptions {
  readonly basePath: string
  /** When set, absolute addresses (og:url, og:image) are made from it, as `redirect_uri`s are. */
  readonly publicOrigin: Option.Option<string>
  /** Else the request's scheme is read as `TRUSTED_PROXY_HOPS` allows (`RequestInfo.scheme`). */
  readonly trustedProxyHops: number
}

/** The built page split around its `<title>` and description, and their generic text. */
interface Template {
  readonly before: string
  readonly after: string
  readonly title: string
  readonly description: string
}

const TITLE = /<title>([\s\S]*?)<\/title>\s*/i
const DESCRIPTION = /<meta\s+name="description"\s+content="([^"]*)"\s*\/?>\s*/i

const unescapeHtml = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!)

const templateOf = (file: SiteFile): Template => {
  let html = new TextDecoder().decode(file.body)
  const title = TITLE.exec(html)
  const description = DESCRIPTION.exec(html)
  if (description !== null) html = html.replace(DESCRIPTION, "")
  const at = TITLE.exec(html)
  // Where the head goes: the page's own title, else just before </head>.
  const cut = at?.index ?? Math.max(0, html.search(/<\/head>/i))
  return {
    before: html.slice(0, cut),
    after: at === null ? html.slice(cut) : html.slice(cut + at[0].length),
    title: unescapeHtml(title?.[1]?.trim() ?? ShareText.SITE_NAME),
    description: unescapeHtml(description?.[1] ?? "")
  }
}

/** What the address asks for, each value checked; `cell` is None when the coordinates are not a place. */
export interface Address {
  /** The coordinates as written (checked numbers in range) and their cell. */
  readonly place: Option.Option<{ readonly lat: number; readonly lon: number; readonly cell: Cell.Cell }>
  readonly name: string | null
  readonly date: string | null
  readonly units: Words.Units | null
  /** `lang=`, when one of the languages. */
  readonly lang: Languages.Language | null
}

const one = (params: URLSearchParams, key: string) => {
  const all = params.getAll(key)
  return all.length === 1 ? all[0]! : undefined
}

export const addressOf = (params: URLSearchParams): Address => {
  const query = { lat: one(params, "lat"), lon: one(params, "lon") }
  const cell = Effect.runSync(Effect.option(DataQuery.cell(query)))
  const date = one(params, "date")
  const units = one(params, "units")
  const lang = one(params, "lang")
  return {
    lang: Languages.isLanguage(lang) ? lang : null,
    place: Option.map(cell, (c) => ({ lat: Number(query.lat), lon: Number(query.lon), cell: c })),
    name: PlaceName.parse(one(params, "name")),
    date: date !== undefined && CivilDate.parse(date) !== undefined ? date : null,
    units: units === "metric" || units === "imperial" ? units : null
  }
}

/** The address again, from the checked values only (nothing the client wrote goes back unchecked). */
const pageQuery = (address: Address, coordinates: { readonly lat: number; readonly lon: number }) => {
  const params = new URLSearchParams({ lat: String(coordinates.lat), lon: String(coordinates.lon) })
  if (address.name !== null) params.set("name", address.name)
  if (address.date !== null) params.set("date", address.date)
  if (address.units !== null) params.set("units", address.units)
  if (address.lang !== null) params.set("lang", address.lang)
  return params.toString()
}

const meta = (attribute: "name" | "property", key: string, value: string) =>
  `<meta ${attribute}="${key}" content="${escapeHtml(value)}">`

export interface Head {
  readonly lang: Languages.Language
  /** The address of this page in each language (a place's page only). */
  readonly alternates: ReadonlyArray<{ readonly lang: Languages.Language; readonly url: string }>
  readonly title: string
  readonly description: string
  readonly ogTitle: string
  readonly url: string
  readonly image: { readonly url: string; readonly alt: string } | null
}

/** The head's HTML: every value escaped. */
export const renderHead = (head: Head): string =>
  [
    `<title>${escapeHtml(head.title)}</title>`,
    ...(head.description === "" ? [] : [meta("name", "description", head.description)]),
    meta("property", "og:type", "website"),
    meta("property", "og:site_name", ShareText.SITE_NAME),
    meta("property", "og:title", head.ogTitle),
    ...(head.description === "" ? [] : [meta("property", "og:description", head.description)]),
    meta("property", "og:url", head.url),
    meta("property", "og:locale", Languages.OG_LOCALE[head.lang]),
    ...Languages.LANGUAGES.filter((l) => l !== head.lang).map((l) => meta("property", "og:locale:alternate", Languages.OG_LOCALE[l])),
    ...head.alternates.map((a) => `<link rel="alternate" hreflang="${a.lang}" href="${escapeHtml(a.url)}">`),
    ...(head.image === null
      ? [meta("name", "twitter:card", "summary")]
      : [
          meta("property", "og:image", head.image.url),
          meta("property", "og:image:type", "image/png"),
          meta("property", "og:image:width", String(CardSvg.WIDTH)),
          meta("property", "og:image:height", String(CardSvg.HEIGHT)),
          meta("property", "og:image:alt", head.image.alt),
          meta("name", "twitter:card", "summary_large_image")
        ])
  ].join("\n") + "\n"

const NOSCRIPT = /(<p class="noscript">)[^<]*(<\/p>)/
/** The built page's list of its languages' word chunks (scripts/build.mjs): `<!-- languages {"de":"assets/…js",…} -->`. */
const LANGUAGE_CHUNKS = /<!-- languages (\{[^<>]*\}) -->\n?/
const CHUNK = /^assets\/[\w.-]+\.js$/

/**
 * A built page in `lang`: `<html lang dir>` (replacing the built page's own, keeping any other
 * attribute, such as the demo's data-demo), the text shown without JavaScript, and, in place of the
 * built page's list of word chunks, a modulepreload of this language's (none for English, whose words
 * are in the entry script), so the words load beside the page's script rather than after it.
 */
export const localize = (html: string, lang: Languages.Language): string =>
  html
    .replace(
      /<html\b([^>]*)>/i,
      (_, attributes: string) => `<html lang="${lang}" dir="${Languages.dir(lang)}"${attributes.replace(/\s(lang|dir)="[^"]*"/gi, "")}>`
    )
    .replace(NOSCRIPT, (_, open: string, close: string) => `${open}${escapeHtml(PageWords.NOSCRIPT[lang])}${close}`)
    .replace(LANGUAGE_CHUNKS, (_, list: string) => {
      let href: unknown
      try {
        href = (JSON.parse(list) as Record<string, unknown>)[lang]
      } catch {
        href = undefined
      }
      return typeof href === "string" && CHUNK.test(href) ? `<link rel="modulepreload" href="${href}">\n` : ""
    })

/** Pages kept (with their gzip), by head, at most this many bytes. */
const PAGE_BYTES = 4 * 1024 * 1024

export const make = (options: PlacePageOptions) =>
  Effect.gen(function* () {
    const views = yield* DataViews.DataViews
    const heldSpell = yield* HeldSpell.make
    const demo = yield* DemoData
    const templates = new WeakMap<SiteFile, Template>()
    // A grade payload is a few hundred bytes of numbers and words: weighed as its JSON would be.
    const grades = Lru.make<string, Payloads.GradePayload>({
      name: "place-grades",
      capacity: 2_000,
      maxWeight: 2 * 1024 * 1024,
      weigh: (grade) => 2 * JSON.stringify(grade).length
    })
    const pages = Lru.make<string, SiteFile>({
      name: "place-pages",
      capacity: 2_000,
      maxWeight: PAGE_BYTES,
      weigh: (page) => page.body.byteLength + (page.gzip?.byteLength ?? 0)
    })

    /** Today's grade payload as held, kept by its token (built once: three values graded). */
    const heldPayload = (cell: Cell.Cell) =>
      Effect.flatMap(views.heldGrade(cell), (plan) =>
        Option.match(plan, {
          onNone: () => Effect.succeed(Option.none<Payloads.GradePayload>()),
          onSome: (p) => {
            const kept = grades.get(p.token)
            if (kept !== undefined) return Effect.succeedSome(kept)
            return Effect.map(p.build, (payload) => {
              grades.set(p.token, payload)
              return Option.some(payload)
            })
          }
        })
      ).pipe(
        // The page never fails for its head: with the database down it says what any page says.
        Effect.catchAllCause((cause) =>
          Effect.as(Effect.logWarning("a place page's head fell back to the generic text", cause), Option.none())
        )
      )

    /** The account page in the asker's language: its words are drawn by its script; its HTML says which language. */
    const accountPage = (request: HttpServerRequest.HttpServerRequest, file: SiteFile) => {
      const params = new URL(request.url, "http://site").searchParams
      const lang = Languages.choose({ query: one(params, "lang") ?? null, acceptLanguage: request.headers["accept-language"] })
      const key = `${file.etag}\n${lang}\naccount`
      let page = pages.get(key)
      if (page === undefined) {
        page = fileOf("alerts.html", new TextEncoder().encode(localize(new TextDecoder().decode(file.body), lang)))
        pages.set(key, page)
      }
      return serveFile(request, page, PAGE_VARY)
    }

    return (request: HttpServerRequest.HttpServerRequest, file: SiteFile, kind: "main" | "account" = "main") =>
      Effect.gen(function* () {
        if (kind === "account") return accountPage(request, file)
        let template = templates.get(file)
        if (template === undefined) {
          template = templateOf(file)
          templates.set(file, template)
        }
        const lang0 = Languages.choose({ query: null, acceptLanguage: request.headers["accept-language"] })
        // The plain main page in English is the built page as it is (only its Vary says it could differ).
        if (!request.url.includes("?") && lang0 === "en") return serveFile(request, file, PAGE_VARY)
        const origin = Option.getOrElse(options.publicOrigin, () => `${scheme(request, options)}://${host(request)}`)
        const site = `${origin}${options.basePath}/`
        const address = addressOf(new URL(request.url, "http://site").searchParams)
        const lang = Languages.choose({ query: address.lang, acceptLanguage: request.headers["accept-language"] })
        const title = lang === "en" ? template.title : Messages.t(lang, "site.title")
        const alternatesOf = (place: { readonly lat: number; readonly lon: number }) =>
          Languages.LANGUAGES.map((l) => ({ lang: l, url: `${site}?${pageQuery({ ...address, lang: l }, place)}` }))
        const generic = (url: string, alternates: Head["alternates"] = []): Head => ({
          lang,
          alternates,
          title,
          description: lang === "en" ? template.description : Messages.t(lang, "site.description"),
          ogTitle: title,
          url,
          image: null
        })
        const head = yield* Option.match(address.place, {
          onNone: () => Effect.succeed(generic(site)),
          onSome: (place) =>
            Effect.map(Effect.zip(heldPayload(place.cell), heldSpell(place.cell)), ([payload, spell]): Head => {
              const url = `${site}?${pageQuery(address, place)}`
              const alternates = alternatesOf(place)
              if (Option.isNone(payload)) return generic(url, alternates)
              const grade = payload.value
              const units = address.units ?? "metric"
              const text = ShareText.forGrade(grade, address.name, units, Option.getOrNull(spell), lang)
              const image = new URLSearchParams({ lat: grade.cell.lat.toFixed(2), lon: grade.cell.lon.toFixed(2) })
              if (units === "imperial") image.set("units", units)
              // The card in the head's language, named so a preview never shows another language's card.
              image.set("lang", lang)
              return {
                lang,
                alternates,
                title: text.title,
                description: text.description,
                ogTitle: text.headline,
                url,
                image: { url: `${origin}${options.basePath}${API_PREFIX}/card.png?${image}`, alt: text.imageAlt }
              }
            })
        })
        // Made-up weather says so before anyone opens the link.
        const html = renderHead(
          demo
            ? { ...head, title: `${SHORT} — ${head.title}`, ogTitle: `${SHORT} — ${head.ogTitle}`, description: `${SHORT}. ${head.description}`.trim() }
            : head
        )
        const key = `${file.etag}\n${lang}\n${html}`
        let page = pages.get(key)
        if (page === undefined) {
          // The ETag is a hash of these bytes, which name the language: one ETag per language.
          page = fileOf("index.html", new TextEncoder().encode(localize(`${template.before}${html}${template.after}`, lang)))
          pages.set(key, page)
        }
        return serveFile(request, page, PAGE_VARY)
      })
  })

export type PlacePage = Effect.Effect.Success<ReturnType<typeof make>>
