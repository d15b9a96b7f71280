/**
 * The platform's Scalar docs page, made on demand: loaded only by `DocsPage` through a dynamic
 * import, so the built server keeps this module (and the ~3.4 MB Scalar bundle it inlines) in a
 * chunk of its own that is read on the first request for the page, not at start.
 */
import type { HttpApi, HttpServerResponse } from "@effect/platform"
// From the modules themselves, not the package's index: the index's namespaces are bundled with
// the code that starts the server, and this page's would bring the Scalar bundle along.
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * The page exactly as `HttpApiScalar` serves it: its router layer is given a router that only
 * keeps the handler it adds (a constant response, made once), which is then run.
 */
export const make = (
  api: HttpApi.HttpApi.Any,
  scalar: HttpApiScalar.ScalarConfig
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.suspend(() => {
    let handler: Effect.Effect<HttpServerResponse.HttpServerResponse> | undefined
    const keeper = {
      add: (_method: string, _path: string, added: Effect.Effect<HttpServerResponse.HttpServerResponse>) =>
        Effect.sync(() => {
          handler = added
        })
    } as unknown as HttpLayerRouter.HttpRouter
    return HttpApiScalar.layerHttpLayerRouter({ api, path: "/docs", scalar }).pipe(
      Layer.build,
      Effect.provideService(HttpLayerRouter.HttpRouter, keeper),
      Effect.scoped,
      Effect.flatMap(() => (handler === undefined ? Effect.dieMessage("HttpApiScalar added no handler") : handler))
    )
  })
