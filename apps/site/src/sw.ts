/**
 * The site's service worker, at `{BASE_PATH}/sw.js` with the scope `{BASE_PATH}/`. It keeps the pages,
 * the manifest and every asset of its build in a cache named for its scope and build, so the site
 * opens with no network at all; the data is the client library's (IndexedDB), so API requests pass
 * through untouched.
 *
 * Online nothing changes: every page and asset is fetched from the network first (through the HTTP
 * cache, so `no-cache`, ETags and 304s work as without a worker) and the cache is only the fallback
 * when the network fails. A new build is therefore in use at the next load even while an old worker
 * runs; the new worker itself installs at once (`skipWaiting`), takes over open pages
 * (`clients.claim`) and deletes the caches of older builds of its scope.
 *
 * Written by hand: four listeners are less to read than a Workbox configuration and its runtime.
 * The build (scripts/build.mjs) bundles it with the list of the build's files and their version.
 */

/** Paths below the scope: the build's assets. */
declare const __ASSETS__: ReadonlyArray<string>
/** A hash of everything the build wrote, so a new build is a new worker (and a new cache). */
declare const __VERSION__: string

// The worker's own types (lib "webworker"), as far as they are used here; the site's code is typed
// against the DOM.
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void
}
interface FetchEvent extends ExtendableEvent {
  readonly request: Request
  respondWith(response: Promise<Response>): void
}
interface ExtendableMessageEvent extends ExtendableEvent {
  readonly data: unknown
  readonly ports: ReadonlyArray<MessagePort>
}
interface WorkerScope {
  readonly registration: { readonly scope: string }
  readonly clients: { claim(): Promise<void> }
  skipWaiting(): Promise<void>
  addEventListener(type: "install" | "activate", listener: (event: ExtendableEvent) => void): void
  addEventListener(type: "fetch", listener: (event: FetchEvent) => void): void
  addEventListener(type: "message", listener: (event: ExtendableMessageEvent) => void): void
}

const worker = self as unknown as WorkerScope
const scope = new URL(worker.registration.scope)

/** The pages and the manifest: not hashed, kept under their address without the query. */
const PAGES = ["", "alerts", "manifest.webmanifest"]

// Several deployments may share an origin under different BASE_PATHs: each keeps to its own caches.
const PREFIX = `climate-grade ${scope.pathname} `
const CACHE = `${PREFIX}${__VERSION__}`

const at = (path: string) => new URL(path, scope).href

worker.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll([...PAGES, ...__ASSETS__].map(at)))
      .then(() => worker.skipWaiting())
  )
})

worker.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => worker.clients.claim())
  )
})

/**
 * At sign-out the site asks (`FORGET_PAGES`) that the pages kept by every build of this scope be
 * dropped: a kept page carries the last place shown. The assets stay (they are the same for
 * everyone); the answer, on the port sent with the message, says it is done.
 */
const FORGET_PAGES = "forget-pages"

worker.addEventListener("message", (event) => {
  if (event.data !== FORGET_PAGES) return
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(
          keys
            .filter((k) => k.startsWith(PREFIX))
            .map((k) => caches.open(k).then((cache) => Promise.all(PAGES.map((page) => cache.delete(at(page))))))
        )
      )
      .then(() => event.ports[0]?.postMessage(FORGET_PAGES))
  )
})

/** What a request is kept as: a page or the manifest by its path, an asset by its address; else null. */
const keyOf = (url: URL): { readonly key: string; readonly immutable: boolean } | null => {
  if (url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return null
  const path = url.pathname.slice(scope.pathname.length)
  if (PAGES.includes(path)) return { key: at(path), immutable: false }
  // Asset names carry their content's hash: one kept copy is always right.
  if (path.startsWith("assets/") && !path.includes("/", 7)) return { key: at(path), immutable: true }
  return null
}

worker.addEventListener("fetch", (event) => {
  const request = event.request
  if (request.method !== "GET") return
  const kept = keyOf(new URL(request.url))
  // The API (the client library keeps the data) and anything else: the network, as without a worker.
  if (kept === null) return
  event.respondWith(
    fetch(request).then(
      (response) => {
        if (response.ok && response.type === "basic") {
          const copy = response.clone()
          // Only into a cache that still exists: a worker that a newer build has replaced must not
          // bring back the cache the newer one deleted (caches.open would create it anew).
          event.waitUntil(
            caches.has(CACHE).then(async (exists) => {
              if (!exists) return
              const cache = await caches.open(CACHE)
              if (!kept.immutable || (await cache.match(kept.key)) === undefined) await cache.put(kept.key, copy)
            })
          )
        }
        return response
      },
      // No network: the copy kept by this build, else by any build of this scope still cached. A page
      // says it came from here (Server-Timing "offline", which the page reads from its navigation
      // timing), so that the site's root alone can reopen the last place shown.
      async (error: unknown) => {
        const stored = await caches.match(kept.key)
        if (stored === undefined) throw error
        if (kept.immutable) return stored
        const headers = new Headers(stored.headers)
        headers.append("server-timing", "offline")
        return new Response(stored.body, { status: stored.status, statusText: stored.statusText, headers })
      }
    )
  )
})
