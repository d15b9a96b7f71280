/**
 * A PostgreSQL server that stops answering, through a proxy of our own
 * between the service and the real server: requests fail with 503, Retry-After and a detail
 * within 6 s, /health keeps its 2 s budget, and the service recovers by itself when the
 * server is back. PostgreSQL only: PGlite runs in the process and cannot go silent.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Database } from "@climate-grade/postgres"
import { backends, FaultyProxy, Skips, TestDatabase } from "@climate-grade/testing"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

class Proxy extends Context.Tag("test/Proxy")<Proxy, FaultyProxy.FaultyProxy>() {}

const postgres = backends.find((b) => b.name === "postgres")

const world = (backend: NonNullable<typeof postgres>) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      // A scratch database, migrated, kept for the suite's scope.
      const db = Context.get(yield* Layer.build(backend.layer), TestDatabase)
      const url = Option.getOrThrow(db.url)
      const target = new URL(url)
      const proxy = yield* FaultyProxy.make({ host: target.hostname, port: Number(target.port || 5432) })
      // The service's own client (Database.layer: the production bounds), through the proxy.
      const database = Database.layer({ _tag: "Server", url: Redacted.make(proxy.through(url)) }).pipe(Layer.orDie)
      return Layer.merge(testServerLayer({}, database), Layer.succeed(Proxy, proxy))
    })
  )

interface Timed {
  readonly status: number
  readonly ms: number
  readonly retryAfter: string | null
  readonly detail: unknown
}

/** A request that touches the database: a bearer token is looked up in `sessions`. */
const timed = (url: string, headers: Record<string, string> = {}) =>
  Effect.promise(async (): Promise<Timed> => {
    const start = performance.now()
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(60_000) })
    const body = (await response.json()) as { detail?: unknown }
    return { status: response.status, ms: performance.now() - start, retryAfter: response.headers.get("retry-after"), detail: body.detail }
  })

const bearer = { authorization: `Bearer ${"x".repeat(43)}` }

/** Polls `url` until it answers `status`; the time it took from the call. */
const recovery = (url: string, status: number) =>
  Effect.promise(async () => {
    const start = performance.now()
    for (;;) {
      const answer = await fetch(url, { headers: bearer, signal: AbortSignal.timeout(10_000) }).then((r) => r.status, () => 0)
      if (answer === status) return performance.now() - start
      if (performance.now() - start > 30_000) return Number.POSITIVE_INFINITY
      await new Promise((r) => setTimeout(r, 20))
    }
  })

describe.runIf(Skips.unless(postgres !== undefined, "the PostgreSQL outage test", "no PostgreSQL (DATABASE_URL or Docker)"))("a PostgreSQL server that stops answering", () => {
  layer(world(postgres!), { timeout: 120_000 })((it) => {
    it.effect("black hole: 503 with Retry-After and a detail within 6 s, /health 503 in its 2 s, recovery without restart", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const proxy = yield* Proxy
        const me = server.url("/api/v2/users/me")
        const health = server.url("/api/v2/health")
        expect((yield* timed(me, bearer)).status).toBe(401)
        expect((yield* timed(health)).status).toBe(200)

        proxy.setMode("blackhole")
        // Round one meets pooled connections that go silent; round two, opened after the pool
        // dropped them, meets connections that never finish their start-up.
        for (const round of [1, 2]) {
          const answers = yield* Effect.all([timed(me, bearer), timed(me, bearer), timed(me, bearer), timed(health)], {
            concurrency: "unbounded"
          })
          const requests = answers.slice(0, 3)
          const probe = answers[3]!
          console.log(`black hole, round ${round}: requests ${requests.map((a) => a.ms.toFixed(0)).join(", ")} ms; /health ${probe.ms.toFixed(0)} ms`)
          for (const a of requests) {
            expect(a).toMatchObject({ status: 503, retryAfter: expect.stringMatching(/^\d+$/), detail: expect.stringMatching(/database/) })
            expect(a.ms).toBeLessThan(6_000)
          }
          expect(probe.status).toBe(503)
          // The probe's own budget is 2 s; the rest is slack for a loaded machine.
          expect(probe.ms).toBeLessThan(3_500)
        }

        proxy.setMode("pass")
        const back = yield* recovery(me, 401)
        console.log(`recovery after the black hole: ${back.toFixed(0)} ms`)
        expect(back).toBeLessThan(6_000)
        expect((yield* timed(health)).status).toBe(200)
      }))

    it.effect("reset: connections refused fail at once with 503, and the service recovers", () =>
      Effect.gen(function* () {
        const server = yield* TestServer
        const proxy = yield* Proxy
        const me = server.url("/api/v2/users/me")
        expect((yield* timed(me, bearer)).status).toBe(401)
        proxy.setMode("reset")
        const answers = yield* Effect.all([timed(me, bearer), timed(me, bearer), timed(server.url("/api/v2/health"))], {
          concurrency: "unbounded"
        })
        console.log(`reset: ${answers.map((a) => `${a.status} in ${a.ms.toFixed(0)} ms`).join(", ")}`)
        expect(answers.map((a) => a.status)).toEqual([503, 503, 503])
        for (const a of answers) expect(a.ms).toBeLessThan(6_000)
        proxy.setMode("pass")
        const back = yield* recovery(me, 401)
        console.log(`recovery after the resets: ${back.toFixed(0)} ms`)
        expect(back).toBeLessThan(6_000)
      }))
  })
})
