/**
 * A tiny in-process stand-in for the data API's `/grade`, for the client tests that are about the
 * store rather than the server (IndexedDB, quota, versions): real payload shapes, ETags and 304s.
 */
import type { GradePayload } from "@climate-grade/core/data/Payloads"

export const gradePayload = (lat: number, lon: number, padding = 0): GradePayload => {
  const grade = { value: 20, unit: "°C" as const, percentile: 50, label: "near-normal" as const, n: 150 }
  return {
    view: "grade",
    v: 1,
    cell: { lat, lon, label: `${"x".repeat(padding)}Testville`, timezone: "Europe/Berlin" },
    date: "2026-11-23",
    issued: "2026-11-23T06:00:00.000Z",
    variables: { tmax: grade, tmin: { ...grade, value: 10 }, precip: { ...grade, unit: "mm" } }
  }
}

export interface FakeApi {
  readonly fetch: typeof fetch
  readonly requests: Array<{ readonly url: URL; readonly ifNoneMatch: string | null }>
  /** Bumped to change every payload's ETag. */
  revision: number
  padding: number
  /** When set, every request is answered with this status and a `{detail}` body. */
  status: number | null
  /** Sent as Retry-After with those answers, when set. */
  retryAfter: string | null
  /** The refusal's `code` and `retry_at` in those bodies, when set. */
  code: string | null
  retryAt: string | null
}

export const fakeApi = (): FakeApi => {
  const api: FakeApi = {
    requests: [],
    revision: 1,
    padding: 0,
    status: null,
    retryAfter: null,
    code: null,
    retryAt: null,
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input))
      const ifNoneMatch = new Headers(init?.headers).get("if-none-match")
      api.requests.push({ url, ifNoneMatch })
      const lat = Number(url.searchParams.get("lat"))
      const lon = Number(url.searchParams.get("lon"))
      if (api.status !== null) {
        const headers: Record<string, string> = { "content-type": "application/json" }
        if (api.retryAfter !== null) headers["retry-after"] = api.retryAfter
        const body = {
          detail: "refused",
          ...(api.code === null ? {} : { code: api.code }),
          ...(api.retryAt === null ? {} : { retry_at: api.retryAt })
        }
        return new Response(JSON.stringify(body), { status: api.status, headers })
      }
      const etag = `W/"${url.pathname}-${lat}-${lon}-${api.revision}"`
      if (ifNoneMatch === etag) return new Response(null, { status: 304, headers: { etag } })
      return new Response(JSON.stringify(gradePayload(lat, lon, api.padding)), {
        status: 200,
        headers: { etag, "content-type": "application/json" }
      })
    }) as typeof fetch
  }
  return api
}
