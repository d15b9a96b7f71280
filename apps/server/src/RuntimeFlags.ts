/**
 * V8 settings for a small resident footprint, set before anything else runs (main imports this
 * module first). `--liftoff-only`: PGlite's WASM module (~10 MB) is compiled by the baseline
 * compiler only. The optimising tier compiling a module that size in the background left ~70 MB
 * in the process (measured: an idle server on an embedded database, 255 → 190 MB), for statements
 * whose time goes mostly to I/O and copying rather than to WASM code. Not for `memory://`: an
 * in-memory database runs initdb in this process, which baseline code makes several times slower
 * (an on-disk one is created by a child process: see PgliteSettings).
 */
import { setFlagsFromString } from "node:v8"

if (process.env.DATABASE_URL !== "memory://") setFlagsFromString("--liftoff-only")
