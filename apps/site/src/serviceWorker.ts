/**
 * Registers the site's service worker (sw.ts) once the page has shown what it came for, when the
 * browser is idle: installing it fetches every file of the build, which must not compete with the
 * first view. `sw.js` sits at the site's root, so its scope is `{BASE_PATH}/` whatever BASE_PATH is.
 */
import { siteBase } from "./api.js"

let registered = false

export const registerServiceWorker = () => {
  if (registered || !("serviceWorker" in navigator)) return
  registered = true
  const whenIdle = globalThis.requestIdleCallback ?? ((run: () => void) => setTimeout(run, 200))
  whenIdle(() => {
    navigator.serviceWorker.register(new URL("sw.js", siteBase)).catch((error: unknown) => {
      // The site works without it, only not offline.
      console.warn("the service worker could not be registered", error)
    })
  })
}
