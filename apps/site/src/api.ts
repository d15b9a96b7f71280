import { Refusal, RetryAfter } from "@climate-grade/core/rules"

/**
 * Where the site finds the API. The bundle lives at `{BASE_PATH}/assets/…`, so "../" from this module
 * is `{origin}{BASE_PATH}/` whatever BASE_PATH the server was started with. Only routes that are not
 * cached data views (place search, account) are called here directly.
 */
export const siteBase = new URL("../", import.meta.url)
export const apiBase = new URL("api/v2/", siteBase)

/** `{api}/path`, e.g. api("places?q=Berlin"). */
export const api = (path: string): string => new URL(path, apiBase).href

/**
 * A sign-in start's address, carrying the page's language (`<html lang>`) and the units in use:
 * the account keeps both, and its direct messages are written in them.
 */
export const signInStart = (path: string, units: string): string => {
  const url = new URL(path, apiBase)
  const lang = document.documentElement.lang
  if (lang !== "") url.searchParams.set("lang", lang)
  url.searchParams.set("units", units)
  return url.href
}

/**
 * A sign-in link's click: to the start with the page's language and units (`signInStart`). The
 * link's own address stays the plain route, so a link opened in a new tab (a modified or middle
 * click, left to the browser) still signs in, in the browser's language.
 */
export const goSignIn = (path: string, units: () => string) => (event: MouseEvent) => {
  if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return
  event.preventDefault()
  location.assign(signInStart(path, units()))
}


/** JSON from a plain API route (places, account), with the `{detail, code, retry_at}` and `Retry-After` of an error response. */
export const getJson = async <A>(
  path: string,
  init: RequestInit = {}
): Promise<{
  status: number
  body: A | null
  detail: string | null
  code: Refusal.Code | null
  retryAt: number | null
  retryAfter: number | null
}> => {
  const response = await fetch(api(path), { credentials: "same-origin", ...init })
  const text = await response.text()
  let body: unknown = null
  try {
    body = text.length > 0 ? JSON.parse(text) : null
  } catch {
    body = null
  }
  const detail =
    response.ok || body === null || typeof body !== "object" || typeof (body as { detail?: unknown }).detail !== "string"
      ? null
      : (body as { detail: string }).detail
  const refusal = response.ok ? null : Refusal.read(text)
  return {
    status: response.status,
    body: response.ok ? (body as A) : null,
    detail,
    code: refusal?.code ?? null,
    retryAt: refusal?.retryAt ?? null,
    retryAfter: RetryAfter.seconds(response.headers.get("retry-after"), Date.now())
  }
}
