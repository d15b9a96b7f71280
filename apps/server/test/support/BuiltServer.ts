/**
 * The built server (`apps/server/dist/main.js`, what `pnpm start` runs) and the operator command
 * (`dist/cli.js`) as processes of their own, for the tests and benchmarks that look at them as an
 * operator does: started with environment variables, read through their output, stopped by signal.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const root = resolve(import.meta.dirname, "..", "..")
export const main = join(root, "dist/main.js")
export const cli = join(root, "dist/cli.js")
/** `pnpm backup` and `pnpm restore` (`dist/ops.js backup FILE`, `restore FILE`). */
export const ops = join(root, "dist/ops.js")

/**
 * `node args…` in `cwd`, its standard error passed through: its standard output once it has ended
 * well, else a rejection. Never synchronous: a test worker whose event loop is blocked for a minute
 * (a build on a loaded machine) loses its line to vitest, which fails the run ("Timeout calling
 * onTaskUpdate") though every test passed.
 */
const node = (args: ReadonlyArray<string>, cwd: string) =>
  new Promise<string>((done, fail) => {
    const child = spawn(process.execPath, [...args], { cwd, stdio: ["ignore", "pipe", "inherit"] })
    let stdout = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.on("error", fail)
    child.on("close", (code) => (code === 0 ? done(stdout) : fail(new Error(`node ${args.join(" ")} ended with ${code}`))))
  })

/** Bundles the server into `dist/` (esbuild, about a second on a quiet machine). */
export const build = async (): Promise<void> => {
  process.stdout.write(await node(["build.mjs"], root))
}

export interface NextRelease {
  /** Its `main.js`, for `start`'s `main`. */
  readonly main: string
  /** The migration it adds, as recorded in `schema_migrations` (`0013_name`). */
  readonly migration: string
  readonly remove: () => void
}

/**
 * The server as its next release would be: this tree's bundle with one more migration, `file`
 * (a module whose default export is the migration), numbered after the last and named `name`.
 * Bundled beside dist/ (at the same depth, so it finds the site and its dependencies as dist/
 * does), in a directory of its own that `remove` deletes.
 */
export const buildNext = async (file: string, name: string): Promise<NextRelease> => {
  const dir = mkdtempSync(join(root, ".build-next-"))
  const printed = await node([join(root, "test/support/bundle-next.mjs"), dir, file, name], root)
  const { id } = JSON.parse(printed.trim().split("\n").at(-1)!) as { id: string }
  return { main: join(dir, "main.js"), migration: id, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** Only what a process needs from the test's environment: the search path. */
const withPath = (env: Readonly<Record<string, string>>) => ({ PATH: process.env.PATH ?? "", ...env })

export interface Running {
  readonly child: ChildProcess
  readonly port: number
  readonly stdout: () => string
  readonly stderr: () => string
  /** Standard output and error as they arrived, interleaved. */
  readonly output: () => string
  readonly exited: Promise<number | null>
}

export interface StartOptions {
  /** How long to wait for the listening line (a PGlite initdb on a loaded machine takes tens of seconds). */
  readonly timeoutMs?: number
  /** The line that gives the port, in its first or second group. */
  readonly listening?: RegExp
  /**
   * Write the process's output to this file rather than a pipe to this process: a server under
   * load writes an access-log line per request, and a pipe read by a busy benchmark (the load
   * generator runs here) fills up and blocks the server's writes, which measures the reader, not
   * the server. The listening line is then looked for in the file.
   */
  readonly logFile?: string
  /** The server's entry point; default this tree's `dist/main.js`. */
  readonly main?: string
}

const LISTENING = /Listening on http:\/\/[^:]+:(\d+)/

/** `file`'s text, or `before` when it can no longer be read. */
const readIfThere = (file: string, before: string): string => {
  try {
    return readFileSync(file, "utf8")
  } catch {
    return before
  }
}

/** Spawns `node args…` and resolves once it says where it listens; rejects if it exits or stays silent first. */
export const spawnListening = (
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  options: StartOptions = {}
): Promise<Running> => {
  const toFile = options.logFile === undefined ? undefined : openSync(options.logFile, "w")
  const child = spawn(process.execPath, [...args], {
    env: withPath(env),
    stdio: toFile === undefined ? ["ignore", "pipe", "pipe"] : ["ignore", toFile, toFile]
  })
  if (toFile !== undefined) closeSync(toFile)
  let stdout = ""
  let stderr = ""
  let output = ""
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
  const port = new Promise<number>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no listening line in: ${output}`)), options.timeoutMs ?? 120_000)
    const seen = () => {
      const match = (options.listening ?? LISTENING).exec(output)
      if (match === null) return false
      clearTimeout(timer)
      done(Number(match[1] ?? match[2]))
      return true
    }
    if (options.logFile !== undefined) {
      const file = options.logFile
      const poll = setInterval(() => {
        output = readIfThere(file, output)
        if (seen()) clearInterval(poll)
      }, 50)
      // Read once more at exit, so that a process that fails to start says what it last wrote
      // (the poll may not have read it yet). Every read takes a file that is gone (a test's
      // directory removed before its processes end) as no news: what was read before stands.
      void exited.then(() => {
        clearInterval(poll)
        output = readIfThere(file, output)
      })
    } else {
      child.stdout!.on("data", (d: Buffer) => {
        stdout += d
        output += d
        seen()
      })
      child.stderr!.on("data", (d: Buffer) => {
        stderr += d
        output += d
        seen()
      })
    }
    void exited.then((code) => {
      clearTimeout(timer)
      fail(new Error(`exited ${code}: ${output}`))
    })
  })
  return port.then((p) => ({ child, port: p, stdout: () => stdout, stderr: () => stderr, output: () => output, exited }))
}

/** Whether a server can listen on `port` of 127.0.0.1 now (it is closed again at once); the system's pick when `port` is 0. */
const probe = (port: number): Promise<number | undefined> =>
  new Promise((done) => {
    const server = createServer()
    server.once("error", () => done(undefined))
    server.listen(port, "127.0.0.1", () => {
      const address = server.address()
      const bound = typeof address === "object" && address !== null ? address.port : undefined
      server.close(() => done(bound))
    })
  })

/** The first port of the kernel's ephemeral range: from there up it picks ports for port 0 and for outgoing connections. */
const ephemeralLow = (): number => {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0])
    return Number.isInteger(low) && low > 0 ? low : 32_768
  } catch {
    return 32_768
  }
}

/** Ports below this are left to well-known and registered services. */
const LOWEST = 10_000

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a test that must know the port before the
 * server listens on it (or that starts a server again at the same origin). Picked at random below
 * the kernel's ephemeral range: a port there is never handed out for port 0 or as the local end of
 * an outgoing connection, so until the server listens only another explicit pick could take it. An
 * ephemeral port was taken so under load: the demo's, picked by the system, was the local end of
 * some connection by the time the demo had built and started its service (40 s later, beside
 * `pnpm bench:http`). The system's pick only where the range leaves no room below it.
 */
export const freePort = async (): Promise<number> => {
  const below = ephemeralLow()
  for (let attempt = 0; below > LOWEST && attempt < 100; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (below - LOWEST))
    if ((await probe(port)) === port) return port
  }
  const port = await probe(0)
  if (port === undefined) throw new Error("no free port on 127.0.0.1")
  return port
}

/** The built server on a free port with JSON logs (overridable by `env`); resolves once it listens. */
export const start = (env: Readonly<Record<string, string>>, options: StartOptions = {}): Promise<Running> =>
  spawnListening([options.main ?? main], { PORT: "0", LOG_FORMAT: "json", ...env }, options)

export interface Exited {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `node args…` to its end (killed after `timeoutMs`), with `input` on its standard input. */
export const runToExit = (
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  options: { readonly input?: string; readonly timeoutMs?: number } = {}
): Promise<Exited> =>
  new Promise((done) => {
    const child = spawn(process.execPath, [...args], { env: withPath(env) })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 150_000)
    child.on("exit", (code) => {
      clearTimeout(timer)
      done({ code, stdout, stderr })
    })
    child.stdin.end(options.input ?? "")
  })

/** What a test file leaves behind: its processes (killed) and temporary directories (removed) when `cleanup` runs. */
export const leftovers = (prefix: string) => {
  const children: Array<ChildProcess> = []
  const dirs: Array<string> = []
  return {
    track: <A extends { readonly child: ChildProcess }>(running: A): A => {
      children.push(running.child)
      return running
    },
    tempDir: (): string => {
      const dir = mkdtempSync(join(tmpdir(), prefix))
      dirs.push(dir)
      return dir
    },
    cleanup: (): void => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
    }
  }
}
