/**
 * The site (docs/api.md "The site"), served from memory: the built pages and assets are read once at
 * start-up, each with its gzip (when worth it) and a weak ETag of its bytes, so a request costs a
 * map lookup. Under `{BASE_PATH}/`: `/` is the main page, `/alerts` the account page,
 * `/assets/…` the assets; any other path there is a small HTML 404, while the API under
 * `/api/` (v2, and any version that does not exist) keeps its JSON errors. Only names read from the build directory can ever be served,
 * so no request path reaches the file system (no traversal by construction).
 */
import { readdir, readFile, stat } from "node:fs/promises"
import { join, relative, sep } from "node:path"
import { gzipSync } from "node:zlib"
import { Crypto, Refusal } from "@climate-grade/core"
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"
import { API_PREFIX } from "../api/ApiPrefix.js"
import { CACHE_CONTROL, ifNoneMatchMatches, VARY, weakEtag } from "../protocol/ConditionalGet.js"
import { THRESHOLD } from "../protocol/Compression.js"
import { acceptsGzip } from "../protocol/ContentNegotiation.js"
import { PATH as METRICS_PATH } from "./MetricsRoute.js"
import { HEADERS as SECURITY_HEADERS } from "./SecurityHeaders.js"

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".webmanifest": "application/manifest+json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".txt": "text/plain; charset=utf-8"
}

/** Already-compressed formats gain nothing from gzip. */
const COMPRESSIBLE = /^(text\/|application\/(json|manifest\+json)|image\/svg\+xml)/

export const contentTypeOf = (name: string): string => {
  const dot = name.lastIndexOf(".")
  return (dot < 0 ? undefined : TYPES[name.slice(dot).toLowerCase()]) ?? "application/octet-stream"
}

/** One file as served: its bytes, its gzip when that is worth sending, its ETag. */
export interface SiteFile {
  readonly contentType: string
  readonly body: Uint8Array
  readonly gzip: Uint8Array | undefined
  readonly etag: string
}

export const fileOf = (name: string, body: Uint8Array): SiteFile => {
  const contentType = contentTypeOf(name)
  const gzip =
    body.byteLength >= THRESHOLD && COMPRESSIBLE.test(contentType) ? new Uint8Array(gzipSync(body, { level: 9 })) : undefined
  return {
    contentType,
    body,
    // Only when it is smaller: a tiny or incompressible file is sent as it is.
    gzip: gzip !== undefined && gzip.byteLength < body.byteLength ? gzip : undefined,
    etag: weakEtag(Crypto.contentToken(body))
  }
}

/** The site as loaded: files by their path below the site root (`/`, `/alerts`, `/assets/app.js`). */
export interface Site {
  readonly _tag: "Site"
  readonly directory: string
  readonly files: ReadonlyMap<string, SiteFile>
}

/** No build where one was looked for: the API still runs, site paths explain. */
export interface MissingSite {
  readonly _tag: "MissingSite"
  readonly directory: string
  readonly reason: string
}

const PAGES = [
  ["/", "index.html"],
  ["/alerts", "alerts.html"]
] as const

/**
 * Files the build may put beside the pages: the service worker (served from the site's root, its
 * scope is all of `{BASE_PATH}/`) and the web app manifest. A build without them is still a site.
 */
const ROOT_FILES = ["sw.js", "manifest.webmanifest"] as const

const walk = async (root: string, dir: string, out: Array<string>): Promise<void> => {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) await walk(root, full, out)
    else if (entry.isFile()) out.push(relative(root, full).split(sep).join("/"))
  }
}

/**
 * Reads the built site from `directory` (which holds `index.html`, `alerts.html`, `assets/`).
 * A missing or incomplete build is a value, not a failure: the caller logs it once.
 */
export const load = (directory: string): Effect.Effect<Site | MissingSite> =>
  Effect.promise(async (): Promise<Site | MissingSite> => {
    const missing = (reason: string): MissingSite => ({ _tag: "MissingSite", directory, reason })
    const isDir = await stat(directory).then((s) => s.isDirectory(), () => false)
    if (!isDir) return missing(`${directory} does not exist`)
    const files = new Map<string, SiteFile>()
    for (const [path, name] of PAGES) {
      const bytes = await readFile(join(directory, name)).catch(() => undefined)
      if (bytes === undefined) return missing(`${join(directory, name)} does not exist`)
      files.set(path, fileOf(name, new Uint8Array(bytes)))
    }
    for (const name of ROOT_FILES) {
      const bytes = await readFile(join(directory, name)).catch(() => undefined)
      if (bytes !== undefined) files.set(`/${name}`, fileOf(name, new Uint8Array(bytes)))
    }
    const assets: Array<string> = []
    const assetDir = join(directory, "assets")
    if (await stat(assetDir).then((s) => s.isDirectory(), () => false)) await walk(assetDir, assetDir, assets)
    for (const name of assets) {
      files.set(`/assets/${name}`, fileOf(name, new Uint8Array(await readFile(join(assetDir, name)))))
    }
    return { _tag: "Site", directory, files }
  })

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** A small page of our own for 404 and a missing build: no script, no style, a way back home. */
export const messagePage = (basePath: string, title: string, text: string): Uint8Array =>
  new TextEncoder().encode(
    `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · climate-grade</title></head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(text)}</p>
<p><a href="${escapeHtml(basePath)}/">Go to the main page</a></p>
</main>
</body>
</html>
`
  )

const html = (status: number, body: Uint8Array) =>
  HttpServerResponse.uint8Array(body, {
    status,
    contentType: "text/html; charset=utf-8",
    headers: { ...SECURITY_HEADERS, "cache-control": CACHE_CONTROL }
  })

export const serveFile = (request: HttpServerRequest.HttpServerRequest, file: SiteFile, vary: string = VARY) => {
  const headers = { ...SECURITY_HEADERS, etag: file.etag, "cache-control": CACHE_CONTROL, vary }
  if (ifNoneMatchMatches(request.headers["if-none-match"], file.etag)) {
    return HttpServerResponse.empty({ status: 304, headers })
  }
  const compress = file.gzip !== undefined && acceptsGzip(request.headers["accept-encoding"])
  return HttpServerResponse.uint8Array(compress ? file.gzip! : file.body, {
    status: 200,
    contentType: file.contentType,
    headers: compress ? { ...headers, "content-encoding": "gzip" } : headers
  })
}

/**
 * Wraps the (mounted) application: requests for the site are answered here, the API and
 * anything outside `basePath` go on to `app`.
 */
export const middleware =
  (
    basePath: string,
    site: Site | MissingSite,
    /**
     * The main page, with a head of its own for a place's address (`/?lat=..`), and the account page, both
     * in the asker's language (PlacePage).
     */
    placePage?: (
      request: HttpServerRequest.HttpServerRequest,
      file: SiteFile,
      page?: "main" | "account"
    ) => Effect.Effect<HttpServerResponse.HttpServerResponse>
  ) =>
  <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> => {
    const notFound = messagePage(basePath, "Page not found", "There is no page at this address.")
    const notBuilt = messagePage(
      basePath,
      "The site is not built",
      "This server was started without the site's files; the API still answers."
    )
    // The API's own paths, and any other version's, keep JSON answers.
    const apiRoot = `${basePath}${API_PREFIX.slice(0, API_PREFIX.lastIndexOf("/"))}`
    return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const query = request.url.indexOf("?")
      const path = query < 0 ? request.url : request.url.slice(0, query)
      // `{BASE_PATH}` alone: the pages' relative asset URLs need the trailing slash.
      if (basePath !== "" && path === basePath) {
        return Effect.succeed(
          HttpServerResponse.empty({
            status: 308,
            headers: { ...SECURITY_HEADERS, location: `${basePath}/${query < 0 ? "" : request.url.slice(query)}` }
          })
        )
      }
      if (!path.startsWith(`${basePath}/`) || path === apiRoot || path.startsWith(`${apiRoot}/`)) return app
      // The Prometheus endpoint sits beside the site, at its conventional path.
      if (path === `${basePath}${METRICS_PATH}`) return app
      if (request.method !== "GET" && request.method !== "HEAD") {
        return Effect.succeed(
          HttpServerResponse.unsafeJson(
            Refusal.body("method-not-allowed", `Method ${request.method} is not allowed here; the site answers GET and HEAD.`),
            { status: 405, headers: { ...SECURITY_HEADERS, allow: "GET, HEAD" } }
          )
        )
      }
      if (site._tag === "MissingSite") return Effect.succeed(html(503, notBuilt))
      const file = site.files.get(path.slice(basePath.length))
      // The main page's head depends on the address and on Accept-Language.
      if (file !== undefined && placePage !== undefined && path === `${basePath}/`) return placePage(request, file)
      if (file !== undefined && placePage !== undefined && path === `${basePath}/alerts`) return placePage(request, file, "account")
      return Effect.succeed(file === undefined ? html(404, notFound) : serveFile(request, file))
    })
  }
