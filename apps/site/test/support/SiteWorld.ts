/**
 * What the page tests run against: the site built into a directory of its own, served by the real
 * server over a database of `backends` (each test file runs once per backend), with fake Open-Meteo
 * and Nominatim on loopback, and one Chromium.
 */
import { execFile } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { backends, Chromium, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import { testServerLayer } from "@climate-grade/server/test/TestServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const siteRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..")

/**
 * Builds the site (esbuild, well under a second on a quiet machine) into a fresh directory, which
 * it gives back. A `stamp` makes a build of the same sources whose every asset has another name, as
 * a new release would. The build runs as a child process the test awaits, never synchronously: a test
 * worker blocked for a minute (a loaded machine) loses its line to vitest.
 */
export const buildSite = (stamp?: string): Effect.Effect<string> =>
  Effect.async<string>((resume) => {
    const out = mkdtempSync(join(tmpdir(), "site-build-"))
    const args = [join(siteRoot, "scripts", "build.mjs"), out, ...(stamp === undefined ? [] : [`--stamp=${stamp}`])]
    const child = execFile(process.execPath, args, (error, _stdout, stderr) =>
      resume(error === null ? Effect.succeed(out) : Effect.die(new Error(`the site's build failed: ${error.message}\n${stderr}`)))
    )
    return Effect.sync(() => child.kill())
  })

export class Upstreams extends Context.Tag("site-test/Upstreams")<
  Upstreams,
  { readonly weather: FakeOpenMeteo.FakeOpenMeteo; readonly geocoder: FakeNominatim.FakeNominatim }
>() {}

/**
 * `logs`: every log line of the server (the access log among them), for tests that look at the wire;
 * `backend`: the database (default PGlite; the test files run on each of `backends`).
 */
export const siteWorld = (
  extraEnv: Readonly<Record<string, string>> = {},
  options: { readonly logs?: Array<string>; readonly backend?: (typeof backends)[number] } = {}
) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      const env: Record<string, string> = {
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: "1980-01-01",
        ...extraEnv
      }
      const siteDirectory = yield* buildSite()
      return Layer.mergeAll(
        testServerLayer(env, (options.backend ?? backends[0]!).layer, {
          siteDirectory,
          ...(options.logs === undefined ? {} : { logs: options.logs })
        }),
        Layer.succeed(Upstreams, { weather, geocoder }),
        Chromium.layer
      )
    })
  )
