/**
 * The headers every answer carries (docs/api.md "Common rules", security headers): set on the node response
 * before anything answers, so the response index's fast path, the Effect app, the site and the
 * node-level refusals all carry them. A header the app sets itself (the docs page's own CSP, a
 * data route's Cache-Control) replaces the default.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { HttpApi } from "@effect/platform"
import { Api } from "../api/Api.js"
import { API_PREFIX } from "../api/ApiPrefix.js"
import { Authentication } from "../api/Authentication.js"
import * as RequestInfo from "../protocol/RequestInfo.js"

/**
 * The policy of every answer (the docs page widens it for its own inline script and style by their
 * hashes, Pages.docsPolicy). Scripts only from our own files: no inline script, `on…=` attribute or
 * `javascript:` URL runs, and nothing (no 'unsafe-inline', nonce or hash) re-admits one. Styles
 * likewise from files; the map and charts are SVG drawn from script. The manifest and the service
 * worker are the site's own files too (`default-src` would say so; named, they say it plainly).
 * No framing (`frame-ancestors 'none'`), no `<base>`, no plugins.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

export const REFERRER_POLICY = "same-origin"

/** One year; sent only when the answer travels over https, where browsers heed it. */
export const HSTS = "max-age=31536000"

/**
 * The one table of the headers every answer carries, 304s of pages and 404s included, whatever
 * writes it: `apply` (node responses), the site's own answers (Site), and the raw shapes below.
 */
export const HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": REFERRER_POLICY,
  "content-security-policy": CONTENT_SECURITY_POLICY
}

/**
 * Every route behind the session middleware, read from the API itself so that a new one is never
 * forgotten: its answer depends on who is signed in. A path with a parameter (`/alerts/watches/:id`)
 * stands for everything below its last fixed segment.
 */
const authenticatedRoutes = (): { readonly paths: Array<string>; readonly prefixes: Array<string> } => {
  const paths: Array<string> = []
  const prefixes: Array<string> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, middleware }) => {
      if (![...middleware].some((tag) => tag.key === Authentication.key)) return
      const parameter = endpoint.path.search(/[:*]/)
      if (parameter < 0) paths.push(endpoint.path)
      else prefixes.push(endpoint.path.slice(0, parameter))
    }
  })
  return { paths, prefixes }
}

const authenticated = authenticatedRoutes()

/** Answers that carry or end a session, or depend on who is signed in: never kept by any cache. */
const NO_STORE_PREFIXES = [
  `${API_PREFIX}/auth/`,
  `${API_PREFIX}/oauth/`,
  `${API_PREFIX}/chat/`,
  ...authenticated.prefixes
] as const
const NO_STORE_PATHS: ReadonlySet<string> = new Set(authenticated.paths)

export const noStore = (path: string): boolean =>
  NO_STORE_PATHS.has(path) || NO_STORE_PREFIXES.some((prefix) => path.startsWith(prefix))

/** The request's path below `BASE_PATH` (undefined when outside it), without the query. */
export const innerPath = (basePath: string, url: string): string | undefined => {
  const path = url.split("?", 1)[0]!
  if (basePath === "") return path
  if (path === basePath) return "/"
  return path.startsWith(`${basePath}/`) ? path.slice(basePath.length) : undefined
}

/** Over https when the deployment says so (`PUBLIC_ORIGIN`), else when a trusted proxy does (`RequestInfo.forwardedScheme`). */
export const isHttps = (trust: SchemeTrust, req: IncomingMessage): boolean =>
  RequestInfo.isHttps(trust, req.headers["x-forwarded-proto"])

export interface SchemeTrust {
  readonly publicOriginHttps: boolean
  /** `TRUSTED_PROXY_HOPS`; none when absent. */
  readonly trustedProxyHops?: number
}

/**
 * Sets the headers every answer carries; true when the request is for the API's answers (not its
 * docs page), whose 304s carry none of them (`stripFromNotModified`).
 */
export const apply = (
  options: SchemeTrust & { readonly basePath: string },
  req: IncomingMessage,
  res: ServerResponse,
  https: boolean = isHttps(options, req)
): boolean => {
  for (const name in HEADERS) res.setHeader(name, HEADERS[name]!)
  if (https) res.setHeader("strict-transport-security", HSTS)
  const path = innerPath(options.basePath, req.url ?? "/")
  if (path !== undefined && noStore(path)) res.setHeader("cache-control", "no-store")
  return path?.startsWith(`${API_PREFIX}/`) === true && path !== DOCS_PAGE
}

/** The one page under the API: its 304 keeps the policy, as the site's pages' do. */
const DOCS_PAGE = `${API_PREFIX}/docs`

/** The headers `apply` sets that say nothing about a representation. */
const SECURITY_NAMES: ReadonlyArray<string> = [...Object.keys(HEADERS), "strict-transport-security"]

/**
 * A 304 of a data answer says only that the stored answer is still good (RFC 9110 §15.4.5): its
 * ETag, Cache-Control, Vary (and the request id). The security headers stay on the 200s, which a
 * browser keeps; a page's 304 keeps its policy, which a browser updates the stored page's from.
 */
export const stripFromNotModified = (res: ServerResponse): void => {
  for (const name of SECURITY_NAMES) res.removeHeader(name)
}

/** The headers every answer carries, as flat name/value pairs for a `writeHead` made whole (the response index's). */
export const RAW_PAIRS: ReadonlyArray<string> = Object.entries(HEADERS).flat()

/** The same headers as raw lines, for answers written straight to a socket (parser errors, CONNECT). */
export const RAW_LINES: ReadonlyArray<string> = Object.entries(HEADERS).map(([name, value]) => `${name}: ${value}`)
