/**
 * `GET {BASE_PATH}/metrics`: every Effect metric of the process in Prometheus text format, at the
 * path Prometheus scrapes by default (outside the versioned API, like `/docs` is a page, not data).
 * The counts say how the service is used and what upstream budget is left, which is no one's
 * business outside the deployment: they are served to clients on the loopback interface that
 * come directly (no `Forwarded`/`X-Forwarded-For`, which a reverse proxy on the same host adds),
 * and to everyone only with `METRICS_PUBLIC=1`.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as HttpMetrics from "./HttpMetrics.js"
import * as PrometheusText from "./PrometheusText.js"

export const PATH = "/metrics"

const isLoopback = (address: string) =>
  address === "::1" || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address)

export const allowed = (request: HttpServerRequest.HttpServerRequest, metricsPublic: boolean): boolean => {
  if (metricsPublic) return true
  if (request.headers["x-forwarded-for"] !== undefined || request.headers.forwarded !== undefined) return false
  return Option.match(request.remoteAddress, { onNone: () => false, onSome: isLoopback })
}

const forbidden = HttpServerResponse.unsafeJson(
  { detail: "Metrics are served to loopback clients only; set METRICS_PUBLIC=1 to serve them to everyone." },
  { status: 403 }
)

export const layer = (options: { readonly metricsPublic: boolean }) =>
  HttpApiBuilder.Router.use((router) =>
    router.get(
      PATH,
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        allowed(request, options.metricsPublic)
          ? Effect.map(PrometheusText.exposition, (text) =>
              HttpServerResponse.text(`${text}${HttpMetrics.render()}`, {
                contentType: PrometheusText.CONTENT_TYPE,
                headers: { "cache-control": "no-store" }
              })
            )
          : Effect.succeed(forbidden)
      )
    )
  )
