/**
 * The Prometheus exposition of every Effect metric of the process, behind a door of its own. The
 * counts say how the service is used and what upstream budget is left, which is no one's business
 * outside the deployment, and no header can say who is asking through a proxy (a plain TCP
 * forwarder or an nginx without `X-Forwarded-For` made everyone a loopback client). So:
 *
 * - **Its own listener** (`METRICS_PORT`, on `METRICS_HOST`, loopback by default): `GET /metrics`
 *   and nothing else, on a port the public proxy does not forward to.
 * - **A bearer token** (`METRICS_TOKEN`, Prometheus' scrape `authorization`): required on that
 *   listener when set, and the only way to `{BASE_PATH}/metrics` on the public one. Without a
 *   token the public listener never serves metrics, whoever seems to ask.
 */
import { createServer, type IncomingMessage, type Server } from "node:http"
import { createHash, timingSafeEqual } from "node:crypto"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Refusal } from "@climate-grade/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import * as HttpMetrics from "./HttpMetrics.js"
import * as PrometheusText from "./PrometheusText.js"

export const PATH = "/metrics"

/** The exposition: every Effect metric, then the edge's own counters. */
export const exposition: Effect.Effect<string> = Effect.map(PrometheusText.exposition, (text) => `${text}${HttpMetrics.render()}`)

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Whether an `Authorization` header carries the token, compared in constant time (of hashes, so of equal length). */
export const bearerMatches = (header: string | undefined, token: Redacted.Redacted<string>): boolean => {
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1]
  return presented !== undefined && timingSafeEqual(digest(presented), digest(Redacted.value(token)))
}

type Decision = { readonly _tag: "Serve" } | { readonly _tag: "Refuse"; readonly status: 401 | 403; readonly detail: string }

/** Who may read the metrics on the public listener: only a bearer of the configured token. */
export const publicDecision = (authorization: string | undefined, token: Option.Option<Redacted.Redacted<string>>): Decision =>
  Option.match(token, {
    onNone: () => ({
      _tag: "Refuse",
      status: 403,
      detail:
        "Metrics are not served on this listener: set METRICS_PORT to serve them on a listener of their own, or METRICS_TOKEN to require a bearer token here."
    }),
    onSome: (t) =>
      bearerMatches(authorization, t)
        ? { _tag: "Serve" }
        : { _tag: "Refuse", status: 401, detail: "Metrics need Authorization: Bearer with the METRICS_TOKEN." }
  })

const refuse = (status: 401 | 403, detail: string) =>
  HttpServerResponse.unsafeJson(
    Refusal.body(status === 401 ? "unauthorized" : "forbidden", detail),
    { status, headers: status === 401 ? { "www-authenticate": 'Bearer realm="metrics"' } : {} }
  )

const serve = (text: string) =>
  HttpServerResponse.text(text, { contentType: PrometheusText.CONTENT_TYPE, headers: { "cache-control": "no-store" } })

/** `{BASE_PATH}/metrics` on the public listener. */
export const layer = (options: { readonly token: Option.Option<Redacted.Redacted<string>> }) =>
  HttpApiBuilder.Router.use((router) =>
    router.get(
      PATH,
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const decision = publicDecision(request.headers.authorization, options.token)
        return decision._tag === "Serve" ? Effect.map(exposition, serve) : Effect.succeed(refuse(decision.status, decision.detail))
      })
    )
  )

export interface ListenerOptions {
  readonly host: string
  /** 0 asks the system for a free port. */
  readonly port: number
  readonly token: Option.Option<Redacted.Redacted<string>>
}

/** Where the metrics listener listens. */
export class MetricsListener extends Context.Tag("@climate-grade/http/MetricsListener")<
  MetricsListener,
  { readonly host: string; readonly port: number }
>() {}

const plain = (
  res: import("node:http").ServerResponse,
  status: number,
  code: Refusal.Code,
  detail: string,
  extra: Record<string, string> = {}
) => {
  const body = Refusal.json(code, detail)
  res.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), ...extra })
  res.end(body)
}

/**
 * A listener of its own for `GET /metrics` (HEAD too), for the scope; everything else on it is 404.
 * Plain `node:http`: nothing of the app (sessions, the database) is reachable through it.
 */
export const listener = (options: ListenerOptions): Layer.Layer<MetricsListener, Error> =>
  Layer.scoped(
    MetricsListener,
    Effect.gen(function* () {
      const runtime = yield* Effect.runtime<never>()
      const handle = (req: IncomingMessage, res: import("node:http").ServerResponse) => {
        const path = (req.url ?? "/").split("?", 1)[0]
        if (path !== PATH) return plain(res, 404, "not-found", "Only GET /metrics is served here.")
        if (req.method !== "GET" && req.method !== "HEAD") return plain(res, 405, "method-not-allowed", "Only GET /metrics is served here.", { allow: "GET, HEAD" })
        if (Option.isSome(options.token) && !bearerMatches(req.headers.authorization, options.token.value)) {
          return plain(res, 401, "unauthorized", "Metrics need Authorization: Bearer with the METRICS_TOKEN.", { "www-authenticate": 'Bearer realm="metrics"' })
        }
        Runtime.runCallback(runtime)(exposition, {
          onExit: (exit) => {
            if (exit._tag === "Failure") return plain(res, 500, "internal-error", "The metrics could not be rendered.")
            res.writeHead(200, { "content-type": PrometheusText.CONTENT_TYPE, "cache-control": "no-store" })
            res.end(req.method === "HEAD" ? undefined : exit.value)
          }
        })
      }
      const server: Server = createServer(handle)
      const address = yield* Effect.acquireRelease(
        Effect.async<{ host: string; port: number }, Error>((resume) => {
          server.once("error", (e) => resume(Effect.fail(new Error(`Cannot listen for metrics on ${options.host}:${options.port}: ${e.message}`))))
          server.listen(options.port, options.host, () => {
            const bound = server.address()
            resume(Effect.succeed({ host: options.host, port: typeof bound === "object" && bound !== null ? bound.port : options.port }))
          })
        }),
        () =>
          Effect.async<void>((resume) => {
            server.close(() => resume(Effect.void))
            server.closeAllConnections()
          })
      )
      yield* Effect.logInfo(`metrics on http://${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}${PATH}`)
      return address
    })
  )
