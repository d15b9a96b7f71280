/**
 * The real server with the site built and fake upstreams (Open-Meteo, Nominatim) on loopback, over an
 * in-memory database: a way to look at the pages with no network. `pnpm --filter @climate-grade/site
 * preview [port]`, then open the printed address. Ctrl-C stops it.
 */
import { NodeRuntime } from "@effect/platform-node"
import { backends, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import * as Effect from "effect/Effect"

const port = process.argv[2] ?? "8090"

const program = Effect.gen(function* () {
  const weather = yield* FakeOpenMeteo.make
  const geocoder = yield* FakeNominatim.make
  const env: Record<string, string> = {
    PORT: port,
    ...FakeEnv.upstreams(weather, geocoder),
    ...(process.env.BASE_PATH === undefined ? {} : { BASE_PATH: process.env.BASE_PATH })
  }
  const server = testServerLayer(env, backends[0]!.layer)
  yield* Effect.gen(function* () {
    const { origin, config } = yield* TestServer
    console.log(`preview: ${origin}${config.basePath}/`)
    yield* Effect.never
  }).pipe(Effect.provide(server))
})

NodeRuntime.runMain(Effect.scoped(program))
