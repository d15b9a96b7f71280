/**
 * Registers the site's service worker (sw.ts) once the page has shown what it came for and then gone
 * quiet: installing it fetches every file of the build, which takes a core from the browser (the
 * worker's thread, the network, the browser process) and must not compete with the first view nor
 * with the drawing of the sections that come just after the grades. `sw.js` sits at the site's root,
 * so its scope is `{BASE_PATH}/` whatever BASE_PATH is.
 */
import { siteBase } from "./api.js"

let registered = false

/** Idle periods in a row the page must leave before the worker is registered. */
const QUIET_PERIODS = 3
/** A long idle period: the browser has no frame to draw (it gives up to 50 ms when nothing is due). */
const LONG_IDLE_MS = 40
/** Between two looks at the page: a busy page is not asked again at every idle moment it has. */
const LOOK_EVERY_MS = 250
/** Registered by then whatever the page is doing (a page that never stops animating still gets it). */
const AT_MOST_MS = 5_000

/**
 * Runs `run` once the page has been idle for a few long idle periods in a row, a look every
 * `LOOK_EVERY_MS` (nothing drawn, no script, no chunk arriving each time), or after `AT_MOST_MS` at
 * the latest. At most twenty looks: a page kept busy pays for twenty idle callbacks, not one at
 * every gap between its tasks.
 */
const whenQuiet = (run: () => void) => {
  if (typeof requestIdleCallback !== "function") {
    setTimeout(run, 1_000)
    return
  }
  const latest = performance.now() + AT_MOST_MS
  let quiet = 0
  const look = () => requestIdleCallback(check, { timeout: Math.max(1, latest - performance.now()) })
  const check = (deadline: IdleDeadline) => {
    quiet = deadline.timeRemaining() >= LONG_IDLE_MS ? quiet + 1 : 0
    if (quiet >= QUIET_PERIODS || performance.now() >= latest) run()
    else setTimeout(look, LOOK_EVERY_MS)
  }
  look()
}

export const registerServiceWorker = () => {
  if (registered || !("serviceWorker" in navigator)) return
  registered = true
  whenQuiet(() => {
    navigator.serviceWorker.register(new URL("sw.js", siteBase)).catch((error: unknown) => {
      // The site works without it, only not offline.
      console.warn("the service worker could not be registered", error)
    })
  })
}

/** How long sign-out waits for the worker to say its pages are dropped. */
const FORGET_WITHIN_MS = 2_000

/**
 * Asks the worker that controls this page to drop the pages it keeps (sw.ts), and waits for it (at
 * most `FORGET_WITHIN_MS`); nothing to do without one.
 */
export const forgetStoredPages = (): Promise<void> => {
  const worker = "serviceWorker" in navigator ? navigator.serviceWorker.controller : null
  if (worker === null) return Promise.resolve()
  return new Promise((resolve) => {
    const channel = new MessageChannel()
    const timer = setTimeout(resolve, FORGET_WITHIN_MS)
    channel.port1.onmessage = () => {
      clearTimeout(timer)
      resolve()
    }
    worker.postMessage("forget-pages", [channel.port2])
  })
}
