/**
 * The API docs page at `{API_PREFIX}/docs`: the platform's Scalar page, whose script (~3.4 MB)
 * is inlined. `HttpApiScalar.layer` builds the whole page when the server starts and holds it
 * (with the bundle's source and the string it was made from: ~16 MB of an idle server's heap);
 * here it is made on the first request, from a module loaded then (`ScalarPage`, a chunk of its
 * own in the built server), and kept for the requests after it: the same bytes, the same response.
 */
import { HttpApi, HttpApiBuilder, type HttpApiScalar, type HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"

export const layer = (options: {
  readonly path: `/${string}`
  readonly scalar?: HttpApiScalar.ScalarConfig
}): Layer.Layer<never, never, HttpApi.Api> =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const { api } = yield* HttpApi.Api
      const page: Effect.Effect<HttpServerResponse.HttpServerResponse> = yield* Effect.cached(
        Effect.flatMap(
          Effect.promise(() => import("./ScalarPage.js")),
          (ScalarPage) => ScalarPage.make(api, options.scalar ?? {})
        )
      )
      yield* router.get(options.path, page)
    })
  )
