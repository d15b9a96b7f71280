import * as Context from "effect/Context"
import type * as Option from "effect/Option"

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
    /** New cells one client may have loading at once (`ColdCells`). */
    readonly coldCellsPerClient: number
  }
>() {}
