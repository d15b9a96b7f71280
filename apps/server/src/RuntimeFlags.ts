/**
 * V8 settings, set before anything else runs (main imports this module first).
 *
 * `--liftoff-only`: PGlite's WASM module (~10 MB) is compiled by the baseline compiler only, for a
 * small resident footprint. The optimising tier compiling a module that size in the background
 * left ~70 MB in the process (measured: an idle server on an embedded database, 255 → 190 MB), for
 * statements whose time goes mostly to I/O and copying rather than to WASM code. Not for
 * `memory://`: an in-memory database runs initdb in this process, which baseline code makes
 * several times slower (an on-disk one is created by a child process: see PgliteSettings).
 *
 * `--heap-growing-percent=100`: after a full collection the old generation may grow to twice what
 * survived before the next one starts. V8 picks the factor itself, and for this server's small,
 * quickly collected heap (~30 MB live) it picked its least, 1.1: a cold cell promotes a few MB
 * (the record, its grader, the answers it builds), so nearly every cold cell started a full
 * collection, whose marking steps and pause (~20-30 ms together on a 2-core machine) landed inside
 * the request. With twice the room: 3-5 full collections over 20 cold cells instead of 9-16, the
 * cold bundle's own time 98 → 81 ms (`pnpm bench:http c`, quiet), and the idle RSS unchanged
 * (~150 MB on an empty DATA_DIR: the idle-time collections still shrink the heap).
 */
import { setFlagsFromString } from "node:v8"

if (process.env.DATABASE_URL !== "memory://") setFlagsFromString("--liftoff-only")
setFlagsFromString("--heap-growing-percent=100")
