import { HttpApiBuilder, HttpApiScalar, HttpServer } from "@effect/platform"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import * as AccountHttp from "./AccountHttp.js"
import { API_PREFIX, Api } from "./Api.js"
import { mountAt, normalizeErrors } from "./AppMiddleware.js"
import * as AuthenticationLive from "./AuthenticationLive.js"
import * as Compression from "./Compression.js"
import * as CrossSite from "./CrossSite.js"
import * as DataHttp from "./DataHttp.js"
import { HttpSettings } from "./HttpSettings.js"
import * as ResponseIndex from "./ResponseIndex.js"
import * as OAuthHttp from "./OAuthHttp.js"
import * as PlacesHttp from "./PlacesHttp.js"
import * as Pages from "./Pages.js"
import * as Site from "./Site.js"
import * as SystemHttp from "./SystemHttp.js"

export const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide([SystemHttp.layer, AccountHttp.layer, OAuthHttp.layer, DataHttp.layer, PlacesHttp.layer]),
  Layer.provide(AuthenticationLive.layer)
)

export interface ServeOptions {
  readonly basePath: string
  readonly publicOrigin: Option.Option<string>
  readonly trustedProxyHops: number
  /** Shared with the node-level request listener, which answers from it first. */
  readonly responses: ResponseIndex.Index
  /** The built site, served under `{basePath}/` (CONTRACT.md §8); its absence is answered on site paths. */
  readonly site: Site.Site | Site.MissingSite
}

/**
 * The whole HTTP application: the API mounted at `{basePath}{API_PREFIX}`, the site at `{basePath}/`;
 * needs an `HttpServer` and the ports.
 * (`HttpApiBuilder.serve`'s middleware runs after the response is written, so it can watch but not
 * rewrite; the app is wrapped here instead, before it is served.)
 */
export const serve = (options: ServeOptions) =>
  HttpApiBuilder.httpApp.pipe(
    Effect.map((app) =>
      HttpServer.serve(
        app.pipe(
          normalizeErrors,
          CrossSite.guard(options.publicOrigin),
          Pages.middleware,
          Compression.middleware,
          mountAt(options.basePath),
          Site.middleware(options.basePath, options.site)
        )
      )
    ),
    Layer.unwrapEffect,
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
    Layer.provide(HttpApiScalar.layer({ path: `${API_PREFIX}/docs`, scalar: { withDefaultFonts: false } })),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: `${API_PREFIX}/openapi.json` })),
    Layer.provide(ApiLive),
    Layer.provide(Layer.succeed(HttpSettings, options)),
    Layer.provide(Layer.succeed(ResponseIndex.ResponseIndex, options.responses))
  )
