/**
 * A minimal browser for end-to-end sign-in tests: follows redirects by hand across hosts, keeps
 * cookies per origin (enough of RFC 6265 for loopback tests: name, value, path prefix, Max-Age=0
 * deletes), and records every hop so a test can assert on each redirect.
 */
export interface Hop {
  readonly url: string
  readonly status: number
  readonly location: string | null
}

interface StoredCookie {
  readonly value: string
  readonly path: string
}

export class Browser {
  private readonly jar = new Map<string, Map<string, StoredCookie>>()

  cookie(origin: string, name: string): string | undefined {
    return this.jar.get(origin)?.get(name)?.value
  }

  setCookie(origin: string, name: string, value: string, path = "/"): void {
    const cookies = this.jar.get(origin) ?? new Map<string, StoredCookie>()
    cookies.set(name, { value, path })
    this.jar.set(origin, cookies)
  }

  private cookieHeader(url: URL): string | undefined {
    const cookies = this.jar.get(url.origin)
    if (cookies === undefined) return undefined
    const pairs = [...cookies].filter(([, c]) => url.pathname.startsWith(c.path)).map(([n, c]) => `${n}=${c.value}`)
    return pairs.length === 0 ? undefined : pairs.join("; ")
  }

  private store(url: URL, response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";").map((s) => s.trim())
      const eq = pair!.indexOf("=")
      const name = pair!.slice(0, eq)
      const value = pair!.slice(eq + 1)
      const attr = (key: string) =>
        attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1)
      const cookies = this.jar.get(url.origin) ?? new Map<string, StoredCookie>()
      if (attr("max-age") === "0" || (attr("expires") !== undefined && Date.parse(attr("expires")!) < Date.now())) {
        cookies.delete(name)
      } else {
        cookies.set(name, { value, path: attr("path") ?? "/" })
      }
      this.jar.set(url.origin, cookies)
    }
  }

  /** One request, cookies attached and stored, no redirect followed. */
  async fetch(input: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(input)
    const headers = new Headers(init.headers)
    const cookie = this.cookieHeader(url)
    if (cookie !== undefined && !headers.has("cookie")) headers.set("cookie", cookie)
    const response = await fetch(url, { ...init, headers, redirect: "manual" })
    this.store(url, response)
    return response
  }

  /**
   * Follows redirects from `input` until a response is not a redirect or `stop(url)` says so
   * (e.g. on reaching the service's own callback). Returns every hop and the last response.
   */
  async follow(
    input: string,
    options: { readonly init?: RequestInit; readonly stop?: (url: URL) => boolean; readonly maxHops?: number } = {}
  ): Promise<{ readonly hops: ReadonlyArray<Hop>; readonly response: Response; readonly url: string }> {
    const hops: Array<Hop> = []
    let url = input
    let response = await this.fetch(url, options.init)
    for (let i = 0; i < (options.maxHops ?? 20); i++) {
      const location = response.headers.get("location")
      hops.push({ url, status: response.status, location })
      if (location === null || response.status < 300 || response.status >= 400) break
      const next = new URL(location, url)
      if (options.stop?.(next) === true) return { hops, response, url: next.href }
      url = next.href
      response = await this.fetch(url)
    }
    return { hops, response, url }
  }
}
