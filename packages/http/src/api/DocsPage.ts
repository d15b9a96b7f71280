/**
 * The API reference page at `{API_PREFIX}/docs`: HTML written from the OpenAPI document
 * (`ReferencePage`), made on the first request and kept for the requests after it. It replaced
 * the platform's Scalar page, whose inlined script made it 3.4 MB (909 KB gzip) and held ~16 MB
 * of heap once built; this one is ~105 KB (~10 KB gzip), its one script a filter of a few lines.
 */
import { HttpApi, HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as ReferencePage from "./ReferencePage.js"

export const layer = (options: { readonly path: `/${string}` }): Layer.Layer<never, never, HttpApi.Api> =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const { api } = yield* HttpApi.Api
      const page = yield* Effect.cached(
        Effect.sync(() =>
          HttpServerResponse.uint8Array(new TextEncoder().encode(ReferencePage.render(OpenApi.fromApi(api))), {
            contentType: "text/html; charset=utf-8"
          })
        )
      )
      yield* router.get(options.path, page)
    })
  )
