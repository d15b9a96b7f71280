/**
 * The real server on loopback over a database of `backends` (PGlite unless told), with fake
 * Open-Meteo and Nominatim, for the client's end-to-end tests; and a `fetch` that records every
 * request the client makes.
 */
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { type Backend, backends, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"

export interface World {
  /** `{origin}/api/v2` */
  readonly baseUrl: string
  readonly weather: FakeOpenMeteo.FakeOpenMeteo
  readonly geocoder: FakeNominatim.FakeNominatim
  /** Stops the server (and its fakes): later requests to `baseUrl` are refused. */
  readonly stop: () => Promise<void>
}

const pglite = backends.find((b) => b.name === "pglite")!

export const startWorld = async (backend: Backend = pglite): Promise<World> => {
  const scope = Effect.runSync(Scope.make())
  const built = await Effect.runPromise(
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      const env = {
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: "1980-01-01"
      }
      const context = yield* Layer.buildWithScope(testServerLayer(env, backend.layer), scope)
      const server = yield* Effect.provide(TestServer, context)
      return { baseUrl: server.url("/api/v2"), weather, geocoder }
    }).pipe(Scope.extend(scope))
  )
  let stopped = false
  return {
    ...built,
    stop: async () => {
      if (stopped) return
      stopped = true
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}

export interface Recorded {
  readonly url: URL
  readonly headers: Headers
  readonly init: RequestInit | undefined
  /** performance.now() when the request was made. */
  readonly start: number
  status: number | null
  /** performance.now() when the answer's headers arrived. */
  end: number | null
  aborted: boolean
}

export interface Recorder {
  readonly calls: Array<Recorded>
  readonly fetch: typeof fetch
  /** Calls whose path is `path` (e.g. "/api/v2/cell"). */
  readonly to: (path: string) => Array<Recorded>
}

/**
 * Records each request, then passes it to `through` (default the real fetch). `through` can answer
 * for the server, or hold a request until it is aborted.
 */
export const recorder = (through: (input: string, init: RequestInit | undefined, real: typeof fetch) => Promise<Response> = (i, n, real) => real(i, n)): Recorder => {
  const calls: Array<Recorded> = []
  const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input))
    const record: Recorded = {
      url,
      headers: new Headers(init?.headers),
      init,
      start: performance.now(),
      status: null,
      end: null,
      aborted: false
    }
    calls.push(record)
    init?.signal?.addEventListener("abort", () => {
      record.aborted = true
    })
    const response = await through(url.href, init, globalThis.fetch)
    record.status = response.status
    record.end = performance.now()
    return response
  }) as typeof fetch
  return { calls, fetch: fetchFn, to: (path) => calls.filter((c) => c.url.pathname === path) }
}

/** A request that never answers until it is aborted (then it rejects, as fetch does). */
export const hang = (init: RequestInit | undefined): Promise<Response> =>
  new Promise((_, reject) => {
    init?.signal?.addEventListener("abort", () => reject(new DOMException("The operation was aborted.", "AbortError")))
  })

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits (bounded) until `done()` holds. */
export const until = async (done: () => boolean, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await sleep(10)
  }
}
