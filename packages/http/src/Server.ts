import { HttpApiBuilder, HttpServer } from "@effect/platform"
import type * as AccessLog from "./edge/AccessLog.js"
import type { ProviderName } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as AccountHttp from "./api/AccountHttp.js"
import * as AlertsHttp from "./api/AlertsHttp.js"
import { API_PREFIX, Api } from "./api/Api.js"
import { mountAt, normalizeErrors } from "./edge/AppMiddleware.js"
import * as AuthenticationLive from "./api/AuthenticationLive.js"
import * as CardHttp from "./api/CardHttp.js"
import * as Compression from "./protocol/Compression.js"
import * as CrossSite from "./edge/CrossSite.js"
import * as DataHttp from "./api/DataHttp.js"
import * as DecodeErrors from "./api/DecodeErrors.js"
import * as DocsPage from "./api/DocsPage.js"
import * as Drain from "./edge/Drain.js"
import * as FrontDoor from "./edge/FrontDoor.js"
import { HttpSettings, type ProviderPage } from "./api/HttpSettings.js"
import * as MetricsRoute from "./edge/MetricsRoute.js"
import * as OAuthHttp from "./api/OAuthHttp.js"
import * as PlacePage from "./edge/PlacePage.js"
import * as PlacesHttp from "./api/PlacesHttp.js"
import * as Pages from "./edge/Pages.js"
import * as RequestBody from "./edge/RequestBody.js"
import { httpsOrigin } from "./protocol/RequestInfo.js"
import * as ResponseIndex from "./edge/ResponseIndex.js"
import * as Site from "./edge/Site.js"
import * as StorableInput from "./api/StorableInput.js"
import * as SystemHttp from "./api/SystemHttp.js"

export const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([SystemHttp.layer, AccountHttp.layer, OAuthHttp.layer, DataHttp.layer, PlacesHttp.layer, AlertsHttp.layer, CardHttp.layer]),
  Layer.provide(AuthenticationLive.layer)
)

export interface ServeOptions {
  readonly basePath: string
  readonly publicOrigin: Option.Option<string>
  readonly trustedProxyHops: number
  /** Each sign-in provider's authorize endpoint and label. */
  readonly providers: Readonly<Record<ProviderName, ProviderPage>>
  /** Shared with the front door, which answers from it first. */
  readonly responses: ResponseIndex.Index
  /** The built site, served under `{basePath}/`; its absence is answered on site paths. */
  readonly site: Site.Site | Site.MissingSite
  readonly port: number
  readonly host: string
  /** The bearer token that opens `{basePath}/metrics` on this listener; without one it is never served here. */
  readonly metricsToken?: Option.Option<Redacted.Redacted<string>>
  readonly timeouts?: FrontDoor.Timeouts
  /** The access log's format, instance name and line sink; none without it. */
  readonly accessLog?: AccessLog.Options
  /** After SIGTERM, how long the server keeps serving (`/health` at 503) before its listener closes; 0 by default. */
  readonly shutdownPauseMs?: number
}

/**
 * The whole HTTP application — the API at `{basePath}{API_PREFIX}`, the site at `{basePath}/` —
 * behind the front door; provides the `HttpServer` (listening, with the app attached) and needs the ports.
 * (`HttpApiBuilder.serve`'s middleware runs after the response is written, so it can watch but not
 * rewrite; the app is wrapped here instead.)
 */
export const serve = (options: ServeOptions) =>
  Layer.scoped(
    HttpServer.HttpServer,
    Effect.flatMap(
      Effect.all([HttpApiBuilder.httpApp, Drain.Draining, PlacePage.make({
        basePath: options.basePath,
        publicOrigin: options.publicOrigin,
        trustedProxyHops: options.trustedProxyHops
      })]),
      ([app, draining, placePage]) =>
      FrontDoor.make(
        app.pipe(
          normalizeErrors,
          CrossSite.guard(options.publicOrigin),
          Pages.middleware,
          Compression.middleware,
          StorableInput.middleware,
          RequestBody.middleware,
          mountAt(options.basePath),
          Site.middleware(options.basePath, options.site, placePage)
        ),
        {
          basePath: options.basePath,
          publicOriginHttps: httpsOrigin(options.publicOrigin),
          responses: options.responses,
          trustedProxyHops: options.trustedProxyHops,
          ...(options.accessLog === undefined ? {} : { accessLog: options.accessLog }),
          port: options.port,
          host: options.host,
          ...(options.timeouts === undefined ? {} : { timeouts: options.timeouts }),
          shutdown: { draining, pauseMs: options.shutdownPauseMs ?? 0 }
        }
      )
    )
  ).pipe(
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
    Layer.provide(DecodeErrors.layer),
    Layer.provide(MetricsRoute.layer({ token: options.metricsToken ?? Option.none() })),
    Layer.provide(DocsPage.layer({ path: `${API_PREFIX}/docs` })),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: `${API_PREFIX}/openapi.json` })),
    Layer.provide(ApiLive),
    Layer.provide(
      Layer.succeed(HttpSettings, {
        basePath: options.basePath,
        publicOrigin: options.publicOrigin,
        trustedProxyHops: options.trustedProxyHops,
        providers: options.providers
      })
    ),
    Layer.provide(Layer.succeed(ResponseIndex.ResponseIndex, options.responses)),
    // One flag for the front door's drain and `/health`.
    Layer.provide(Drain.layer),
    Layer.provide(FrontDoor.platformLayer)
  )
