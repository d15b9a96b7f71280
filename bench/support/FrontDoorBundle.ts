/**
 * bench/support/FrontDoorAlone.ts bundled into one file with esbuild, for a plain `node` (bench:http
 * front-door) or one under valgrind (bench:http-instructions front-door).
 */
import { join } from "node:path"
import * as esbuild from "esbuild"

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
    banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
    logLevel: "warning"
  })
  return bundle
}
