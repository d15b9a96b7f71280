/**
 * The built server as an operator runs it: one owner per embedded
 * DATA_DIR with the operator command going through the running server, LOG_FORMAT=json on every
 * line, start-up failures as one line and exit 1, and SIGTERM draining at most 10 s.
 */
import { request } from "node:http"
import { connect, createServer, type AddressInfo, type Socket } from "node:net"
import { FakeEnv, FakeNominatim, FakeOpenMeteo, Skips } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as BuiltServer from "./support/BuiltServer.js"

const { main, cli } = BuiltServer
const left = BuiltServer.leftovers("cg-ops-")
const tempDir = left.tempDir

beforeAll(BuiltServer.build, 60_000)
afterAll(left.cleanup)

const baseEnv = { AUTH_SECRET: "s".repeat(40), GEOCODER_URL: "http://127.0.0.1:1/reverse" }

type Running = BuiltServer.Running

/** Starts the built server on a free port; resolves once it says where it listens. */
const startServer = async (env: Record<string, string>): Promise<Running> =>
  left.track(await BuiltServer.start({ ...baseEnv, ...env }, { timeoutMs: 60_000 }))

/** Runs the server until it exits; for starts that must fail (after the database opened, which takes a while on a loaded machine). */
const runToExit = (env: Record<string, string>) => BuiltServer.runToExit([main], { ...baseEnv, PORT: "0", ...env }, { timeoutMs: 150_000 })

const createUser = (env: Record<string, string>, email: string, password: string) =>
  BuiltServer.runToExit([cli, "--email", email], { ...baseEnv, ...env }, { input: password })

const login = async (port: number, email: string, password: string) =>
  (
    await fetch(`http://127.0.0.1:${port}/api/v2/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password })
    })
  ).status

const stop = async (server: Running, signal: NodeJS.Signals = "SIGTERM") => {
  server.child.kill(signal)
  return server.exited
}

const everyLineIsJson = (text: string) => {
  const lines = text.split("\n").filter((l) => l !== "")
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow()
  return lines.map((l) => JSON.parse(l) as { message: unknown; logLevel: unknown })
}

describe("one owner per embedded DATA_DIR", () => {
  it("a second server refuses with the owner's pid; user:create goes through the running server and the account survives restarts", async () => {
    const dataDir = tempDir()
    const first = await startServer({ DATA_DIR: dataDir })

    // Today this printed "created" and the account was lost when the server next wrote its copy.
    const created = await createUser({ DATA_DIR: dataDir }, "ops@example.org", "a long enough password")
    expect(created.stderr).toBe("")
    expect(created.stdout).toMatch(
      new RegExp(`^created ops@example\\.org \\([0-9a-f-]{36}\\) through the running server \\(pid ${first.child.pid}\\)\\n$`)
    )
    expect(created.code).toBe(0)
    expect(await login(first.port, "ops@example.org", "a long enough password")).toBe(204)
    expect(first.stdout()).toMatch(/operator command: created ops@example\.org \([0-9a-f-]{36}\) over the control socket/)
    const duplicate = await createUser({ DATA_DIR: dataDir }, "ops@example.org", "another password")
    expect(duplicate).toMatchObject({ stderr: "an account with ops@example.org exists already\n" })
    expect(duplicate.code).toBe(1)

    const second = await runToExit({ DATA_DIR: dataDir, LOG_FORMAT: "json" })
    expect(second.code).toBe(1)
    const refusal = everyLineIsJson(second.stderr)
    expect(refusal).toHaveLength(1)
    expect(refusal[0]!.message).toBe(
      `DATA_DIR ${dataDir} is in use by process ${first.child.pid}: stop that process first, or give this one another DATA_DIR (or DATABASE_URL)`
    )

    expect(await stop(first)).toBe(0)
    const again = await startServer({ DATA_DIR: dataDir })
    expect(await login(again.port, "ops@example.org", "a long enough password")).toBe(204)

    // A server killed with -9 leaves its lock behind; the next start finds its pid gone and takes over.
    await stop(again, "SIGKILL")
    const third = await startServer({ DATA_DIR: dataDir })
    expect(await login(third.port, "ops@example.org", "a long enough password")).toBe(204)
    // With no server running, the command opens the database itself (and holds the lock meanwhile).
    expect(await stop(third)).toBe(0)
    const offline = await createUser({ DATA_DIR: dataDir }, "second@example.org", "a long enough password")
    expect(offline.stdout).toMatch(/^created second@example\.org \([0-9a-f-]{36}\)\n$/)
    const fourth = await startServer({ DATA_DIR: dataDir })
    expect(await login(fourth.port, "second@example.org", "a long enough password")).toBe(204)
    await stop(fourth)
    // Every line the servers wrote, from the first to the last, is one JSON object.
    for (const server of [first, again, third, fourth]) everyLineIsJson(server.stdout() + server.stderr())
  }, 300_000)
})

describe("start-up failures are one line and exit 1", () => {
  const oneLine = (result: { code: number | null; stderr: string }, pattern: RegExp) => {
    expect(result.code).toBe(1)
    const lines = result.stderr.trimEnd().split("\n")
    expect(lines, result.stderr).toHaveLength(1)
    expect(lines[0]).toMatch(pattern)
    expect(result.stderr).not.toMatch(/\n\s+at /)
  }

  it("the port is in use", async () => {
    const holder = createServer()
    await new Promise<void>((done) => holder.listen(0, "127.0.0.1", done))
    const port = (holder.address() as AddressInfo).port
    try {
      oneLine(await runToExit({ DATABASE_URL: "memory://", PORT: String(port) }), /Cannot listen: the address is in use .*EADDRINUSE/)
    } finally {
      holder.close()
    }
  }, 200_000)

  it("PostgreSQL does not answer at its address (JSON when LOG_FORMAT=json)", async () => {
    const result = await runToExit({ DATABASE_URL: "postgres://postgres@127.0.0.1:1/none", LOG_FORMAT: "json" })
    expect(result.code).toBe(1)
    const lines = everyLineIsJson(result.stderr)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ logLevel: "FATAL", message: expect.stringMatching(/PostgreSQL at 127\.0\.0\.1:1 did not answer.*ECONNREFUSED/) })
  }, 200_000)

  it.runIf(Skips.unless(process.env.DATABASE_URL?.startsWith("postgres") === true, "the start-up refusal of a missing PostgreSQL database", "no DATABASE_URL (postgres://…)"))("the PostgreSQL database does not exist", async () => {
    const url = new URL(process.env.DATABASE_URL!)
    url.pathname = `/cg_missing_${process.pid}`
    oneLine(await runToExit({ DATABASE_URL: url.href }), /Database: PostgreSQL at .* did not answer: database "cg_missing_\d+" does not exist/)
  }, 200_000)
})

interface RawAnswer {
  readonly status: number
  readonly connection: string | undefined
  readonly body: string
}

/**
 * One HTTP/1.1 connection on a raw socket, to see what a balancer sees: each answer's
 * `Connection` header, and whether the connection ends cleanly (FIN) or is reset.
 */
class RawConnection {
  readonly answers: Array<RawAnswer> = []
  readonly errors: Array<string> = []
  endedAt = 0
  readonly ended: Promise<void>
  private buffer = Buffer.alloc(0)
  private waiting: ((answer: RawAnswer) => void) | undefined

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk])
      this.parse()
    })
    socket.on("error", (e: NodeJS.ErrnoException) => this.errors.push(e.code ?? e.message))
    this.ended = new Promise((done) =>
      socket.on("close", () => {
        this.endedAt = performance.now()
        done()
      })
    )
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((done, fail) => {
      const socket = connect(port, "127.0.0.1", () => done(new RawConnection(socket)))
      socket.once("error", fail)
    })
  }

  get(path: string): Promise<RawAnswer> {
    return new Promise((done) => {
      this.waiting = done
      this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)
    })
  }

  private parse() {
    const end = this.buffer.indexOf("\r\n\r\n")
    if (end < 0) return
    const head = this.buffer.subarray(0, end).toString("latin1").split("\r\n")
    const headers = new Map(head.slice(1).map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]))
    const length = Number(headers.get("content-length") ?? "0")
    if (this.buffer.length < end + 4 + length) return
    const answer = {
      status: Number(head[0]!.split(" ")[1]),
      connection: headers.get("connection"),
      body: this.buffer.subarray(end + 4, end + 4 + length).toString()
    }
    this.buffer = this.buffer.subarray(end + 4 + length)
    this.answers.push(answer)
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.(answer)
  }
}

describe("SIGTERM", () => {
  it("without a pause: stops accepting, lets in-flight requests finish, aborts what is left after 10 s, and exits", async () => {
    const scope = Effect.runSync(Scope.make())
    try {
      const weather = await Effect.runPromise(Scope.extend(FakeOpenMeteo.make, scope))
      const geocoder = await Effect.runPromise(Scope.extend(FakeNominatim.make, scope))
      const server = await startServer({
        DATABASE_URL: "memory://",
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: "2020-01-01",
        SHUTDOWN_PAUSE_MS: "0"
      })
      const get = (path: string) =>
        new Promise<{ status: number; at: number } | { error: string; at: number }>((done) => {
          const req = request({ host: "127.0.0.1", port: server.port, path }, (res) => {
            res.resume()
            res.on("end", () => done({ status: res.statusCode ?? 0, at: performance.now() }))
          })
          req.on("error", (e: NodeJS.ErrnoException) => done({ error: e.code ?? e.message, at: performance.now() }))
          req.end()
        })
      const until = async (ok: () => boolean) => {
        while (!ok()) await new Promise((r) => setTimeout(r, 20))
      }
      // One cold cell whose history never comes (the archive's own timeout is 30 s) and one
      // whose history takes 1.5 s.
      weather.faults.archive.push("hang")
      const stuck = get("/api/v2/grade?lat=10&lon=10")
      await until(() => weather.requests.archive.length === 1)
      weather.delayMs = 1_500
      const slow = get("/api/v2/grade?lat=20&lon=20")
      await until(() => weather.requests.archive.length === 2)

      const signalled = performance.now()
      server.child.kill("SIGTERM")
      await new Promise((r) => setTimeout(r, 500))
      const late = await get("/api/v2/health")
      expect(late).toMatchObject({ error: "ECONNREFUSED" })

      const finished = await slow
      expect(finished).toMatchObject({ status: 200 })
      const aborted = await stuck
      // Not the 504 the archive's timeout would give at 30 s: the connection is cut at 10 s.
      expect(aborted).toMatchObject({ error: expect.stringMatching(/ECONNRESET|socket hang up/) })
      expect(aborted.at - signalled).toBeGreaterThan(9_000)
      expect(await server.exited, server.output().slice(-3000)).toBe(0)
      const exitedAfter = performance.now() - signalled
      console.log(`SIGTERM: slow request done ${(finished.at - signalled).toFixed(0)} ms after, stuck one cut at ${(aborted.at - signalled).toFixed(0)} ms, exit at ${exitedAfter.toFixed(0)} ms`)
      expect(exitedAfter).toBeLessThan(20_000)
      const log = everyLineIsJson(server.stdout() + server.stderr())
      expect(log.some((l) => /shutting down/.test(String(l.message)))).toBe(true)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 120_000)

  it("loses nothing: /health 503 through the pause, then every request in flight or arriving on a kept-alive connection answered with Connection: close, idle ones left to the client as long again and then closed cleanly, none reset", async () => {
    const scope = Effect.runSync(Scope.make())
    try {
      const weather = await Effect.runPromise(Scope.extend(FakeOpenMeteo.make, scope))
      const geocoder = await Effect.runPromise(Scope.extend(FakeNominatim.make, scope))
      const server = await startServer({
        DATABASE_URL: "memory://",
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: "2020-01-01",
        SHUTDOWN_PAUSE_MS: "1500"
      })
      // A cell held before the signal, so that answers during the drain are quick.
      expect((await fetch(`http://127.0.0.1:${server.port}/api/v2/grade?lat=30&lon=30`)).status).toBe(200)
      const [inFlight, reusedInPause, reusedAfter, idle] = await Promise.all([0, 1, 2, 3].map(() => RawConnection.open(server.port)))
      // Every connection has served one request and is kept alive.
      for (const c of [inFlight!, reusedInPause!, reusedAfter!, idle!]) {
        expect(await c.get("/api/v2/grade?lat=30&lon=30")).toMatchObject({ status: 200, connection: "keep-alive" })
      }
      // A cold cell whose history takes 4 s: still being worked on when the listener closes.
      weather.delayMs = 4_000
      const slow = inFlight!.get("/api/v2/grade?lat=40&lon=40")
      while (weather.requests.archive.length < 2) await new Promise((r) => setTimeout(r, 20))

      const signalled = performance.now()
      server.child.kill("SIGTERM")
      await new Promise((r) => setTimeout(r, 300))
      // The pause: still listening, /health says 503 so a balancer stops sending; other answers as usual.
      const health = await fetch(`http://127.0.0.1:${server.port}/api/v2/health`)
      expect(health.status).toBe(503)
      expect(await health.json()).toEqual({ detail: "This instance is shutting down; another one will answer.", code: "shutting-down" })
      expect(await reusedInPause!.get("/api/v2/grade?lat=30&lon=30")).toMatchObject({ status: 200 })

      // The listener closes at the end of the pause.
      let refusedAt = 0
      while (refusedAt === 0 && performance.now() - signalled < 10_000) {
        const outcome = await fetch(`http://127.0.0.1:${server.port}/api/v2/health`).then(
          (r) => String(r.status),
          (e: Error & { cause?: { code?: string } }) => e.cause?.code ?? e.message
        )
        if (outcome === "ECONNREFUSED") refusedAt = performance.now()
        else await new Promise((r) => setTimeout(r, 50))
      }
      expect(refusedAt - signalled).toBeGreaterThan(1_400)
      // A request on a connection kept alive since before the signal: answered, and the connection ends after it.
      expect(await reusedAfter!.get("/api/v2/grade?lat=30&lon=30")).toMatchObject({ status: 200, connection: "close" })
      expect(await slow).toMatchObject({ status: 200, connection: "close" })
      for (const c of [inFlight!, reusedAfter!, idle!, reusedInPause!]) await c.ended
      expect(await server.exited, server.output().slice(-3000)).toBe(0)
      const connections = { inFlight, reusedInPause, reusedAfter, idle }
      console.log(
        `SIGTERM with a pause: listener closed ${(refusedAt - signalled).toFixed(0)} ms after; ` +
          Object.entries(connections)
            .map(([name, c]) => `${name}: ${c!.answers.length} answers, ended cleanly at ${(c!.endedAt - signalled).toFixed(0)} ms`)
            .join("; ")
      )
      for (const c of Object.values(connections)) expect(c!.errors).toEqual([])
      // The idle connection was left to its client for as long again as the pause (a balancer closes
      // its own idle ones in that time, and the server then closes none it might be writing on).
      expect(idle!.endedAt - refusedAt).toBeGreaterThan(1_200)
      expect(performance.now() - signalled).toBeLessThan(15_000)
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 120_000)
})
