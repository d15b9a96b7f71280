/**
 * `/metrics` behind a door (on PGlite and PostgreSQL): a same-host proxy that adds no
 * `X-Forwarded-For` (here a plain TCP forwarder, as an nginx `stream` block or a port forward
 * would be) makes every client look like a loopback one, so the public listener serves the
 * metrics only to a bearer of METRICS_TOKEN, and never without one; METRICS_PORT serves them on a
 * listener of its own (loopback by default) that answers nothing else.
 */
import { describe, expect, layer } from "@effect/vitest"
import { MetricsRoute } from "@climate-grade/http"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { backends, FaultyProxy } from "@climate-grade/testing"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

class Proxy extends Context.Tag("test/Proxy")<Proxy, FaultyProxy.FaultyProxy>() {}
/** Where the metrics listener listens, when METRICS_PORT is set. */
class Listener extends Context.Tag("test/Listener")<Listener, { readonly host: string; readonly port: number }>() {}

const TOKEN = "a-metrics-token-of-some-length"

/** The server with `env`, and a TCP proxy on loopback in front of its public listener. */
const world = (backend: (typeof backends)[number], env: Record<string, string>) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const context = yield* Layer.build(testServerLayer(env, backend.layer))
      const server = Context.get(context, TestServer)
      const proxy = yield* FaultyProxy.make({ host: "127.0.0.1", port: Number(new URL(server.origin).port) })
      const listener = Context.getOption(context as Context.Context<never>, MetricsRoute.MetricsListener)
      return Layer.mergeAll(
        Layer.succeedContext(context),
        Layer.succeed(Proxy, proxy),
        Layer.succeed(Listener, listener._tag === "Some" ? listener.value : { host: "", port: 0 })
      )
    })
  )

const get = (url: string, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, { headers })
    const text = await response.text()
    return {
      status: response.status,
      type: response.headers.get("content-type"),
      text,
      detail: text.startsWith("{") ? (JSON.parse(text) as { detail?: string }).detail : undefined
    }
  })

const through = (proxy: FaultyProxy.FaultyProxy, path: string) => `http://127.0.0.1:${proxy.port}${path}`

for (const backend of backends) {
  describe(`/metrics behind a door, on ${backend.name}`, () => {
    layer(world(backend, { METRICS_TOKEN: "" }), { timeout: 120_000 })((it) => {
      it.effect("by default the public listener never serves them: not directly from loopback, not through a proxy", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const proxy = yield* Proxy
          for (const url of [through(proxy, "/metrics"), server.url("/metrics")]) {
            const answer = yield* get(url)
            expect([url, answer.status]).toEqual([url, 403])
            expect(answer.detail).toMatch(/set METRICS_PORT .* or METRICS_TOKEN/)
          }
          // Not even with a bearer: there is no token to match.
          expect((yield* get(through(proxy, "/metrics"), { authorization: "Bearer anything at all here" })).status).toBe(403)
          expect(proxy.accepted()).toBeGreaterThan(0)
        }))
    })

    layer(world(backend, { METRICS_TOKEN: TOKEN, METRICS_PORT: "0" }), { timeout: 120_000 })((it) => {
      it.effect("with METRICS_TOKEN, only its bearer reads them, through the proxy too; METRICS_PORT serves them beside", () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const proxy = yield* Proxy
          const listener = yield* Listener
          expect(listener.host).toBe("127.0.0.1")
          for (const headers of [{}, { authorization: "Bearer wrong-token-of-some-length" }, { authorization: TOKEN }]) {
            const answer = yield* get(through(proxy, "/metrics"), headers)
            expect(answer.status).toBe(401)
            expect(answer.detail).toMatch(/METRICS_TOKEN/)
          }
          const opened = yield* get(through(proxy, "/metrics"), { authorization: `Bearer ${TOKEN}` })
          expect(opened.status).toBe(200)
          expect(opened.type).toMatch(/^text\/plain; version=0\.0\.4/)
          expect(opened.text).toContain("# TYPE http_requests_total counter")

          // The listener of their own: the same text, the token asked for there too, nothing else served.
          const own = `http://127.0.0.1:${listener.port}`
          expect((yield* get(`${own}/metrics`)).status).toBe(401)
          const scraped = yield* get(`${own}/metrics`, { authorization: `Bearer ${TOKEN}` })
          expect(scraped.status).toBe(200)
          expect(scraped.text).toContain("# TYPE http_requests_total counter")
          for (const path of ["/api/v2/health", "/", "/metrics/x"]) {
            expect((yield* get(`${own}${path}`, { authorization: `Bearer ${TOKEN}` })).status).toBe(404)
          }
          expect(server.config.metrics.port._tag).toBe("Some")
        }))
    })

    layer(world(backend, { METRICS_TOKEN: "", METRICS_PORT: "0" }), { timeout: 120_000 })((it) => {
      it.effect("METRICS_PORT alone: the listener on loopback serves them, the public one (and any proxy to it) does not", () =>
        Effect.gen(function* () {
          const proxy = yield* Proxy
          const listener = yield* Listener
          const scraped = yield* get(`http://127.0.0.1:${listener.port}/metrics`)
          expect(scraped.status).toBe(200)
          expect(scraped.text).toContain("http_request_duration_seconds")
          expect((yield* get(through(proxy, "/metrics"))).status).toBe(403)
        }))
    })
  })
}
