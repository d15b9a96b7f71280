import type { ProviderName } from "@climate-grade/core"
import * as Context from "effect/Context"
import type * as Option from "effect/Option"

/** A sign-in provider as this adapter shows it: where the browser is sent, and its name on the pages. */
export interface ProviderPage {
  /** The provider's authorize endpoint; the core decides the query parameters added to it. */
  readonly authorizeUrl: string
  readonly label: string
}

/** Deployment settings the HTTP adapter needs. */
export class HttpSettings extends Context.Tag("@climate-grade/http/HttpSettings")<
  HttpSettings,
  {
    /** The site path prefix, no trailing slash; used in redirects to the site's pages. */
    readonly basePath: string
    /** When set, `redirect_uri`s are built from it instead of the request's headers. */
    readonly publicOrigin: Option.Option<string>
    /** How many reverse proxies in front of the server append to `x-forwarded-for` and are trusted (0: none). */
    readonly trustedProxyHops: number
    readonly providers: Readonly<Record<ProviderName, ProviderPage>>
  }
>() {}
