/**
 * The front door alone (bench/support/FrontDoorAlone.ts) as bench:http front-door and
 * bench:http-instructions front-door run it: bundled into one file with esbuild, for a plain
 * `node` or one under valgrind, started holding one answer, and that answer's revalidation checked
 * before anything is counted.
 */
import { join } from "node:path"
import * as esbuild from "esbuild"
import { fetchRaw, headersAsSent } from "./Bare.js"

const PATH = "/api/v2/cell?lat=52.52&lon=13.41"
const ETAG = 'W/"front-door-alone"'

/** The revalidation both benches send, to the front door alone and to the bare server. */
export const REVALIDATION: Record<string, string> = { "if-none-match": ETAG, "accept-encoding": "gzip" }

/** BENCH_SERVICE_ENV (JSON): what the service, or the front door alone, gets beside its own environment. */
export const serviceEnv = (): Record<string, string> => JSON.parse(process.env.BENCH_SERVICE_ENV ?? "{}") as Record<string, string>

/** The front door alone's environment: the answer it holds, and BENCH_SERVICE_ENV. */
export const frontDoorEnv = (): Record<string, string> => ({ BENCH_URL: PATH, BENCH_ETAG: ETAG, ...serviceEnv() })

/** Writes the bundle into `dir` and returns its path. */
export const buildFrontDoorAlone = async (dir: string) => {
  const bundle = join(dir, "front-door-alone.mjs")
  await esbuild.build({
    entryPoints: [join(import.meta.dirname, "FrontDoorAlone.ts")],
    outfile: bundle,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    conditions: ["source"],
    banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
    logLevel: "warning"
  })
  return bundle
}

/**
 * The held answer's address on a front door listening on `port`, once it has answered
 * `REVALIDATION` with a 304; and that 304's headers, for a bare server to repeat.
 */
export const checkHeld = async (port: number) => {
  const url = `http://127.0.0.1:${port}${PATH}`
  const again = await fetchRaw(url, REVALIDATION)
  if (again.status !== 304) throw new Error(`revalidation answered ${again.status}`)
  return { url, headers: headersAsSent(again.headers) }
}
