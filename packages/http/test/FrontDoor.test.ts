/**
 * The front door's server, on its own: the handler is in place before the socket listens, the
 * limits are set deliberately (not Node's), and a client too slow with its headers or its body gets
 * a JSON 408 instead of Node's empty answer.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { connect } from "node:net"
import type { AddressInfo, Socket } from "node:net"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as AccessLog from "../src/edge/AccessLog.js"
import * as Drain from "../src/edge/Drain.js"
import * as FrontDoor from "../src/edge/FrontDoor.js"
import * as ResponseIndex from "../src/edge/ResponseIndex.js"

const options = (timeouts: FrontDoor.Timeouts) => ({
  basePath: "",
  publicOriginHttps: false,
  responses: ResponseIndex.make(),
  timeouts
})

/** An app that answers once it has the whole body. */
const ok = (req: IncomingMessage, res: ServerResponse) => {
  req.resume()
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end("{}")
  })
}

/** Sends `bytes`, keeps the connection open, resolves with what the server says before closing it. */
const slowClient = (port: number, bytes: string) =>
  new Promise<{ text: string; ms: number }>((done, fail) => {
    const started = Date.now()
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes))
    const chunks: Array<Buffer> = []
    socket.on("data", (c: Buffer) => chunks.push(c))
    socket.on("error", fail)
    socket.on("close", () => done({ text: Buffer.concat(chunks).toString(), ms: Date.now() - started }))
  })

describe("FrontDoor", () => {
  it("the limits are chosen, not Node's defaults (60 s headers, 300 s request, 5 s keep-alive)", () => {
    const server = FrontDoor.makeServer(options(FrontDoor.TIMEOUTS), ok, () => {})
    expect(server.headersTimeout).toBe(10_000)
    expect(server.requestTimeout).toBe(30_000)
    expect(server.keepAliveTimeout).toBe(65_000)
    // The handler is there before the server listens: no moment without the app.
    expect(server.listening).toBe(false)
    expect(server.listenerCount("request")).toBe(1)
  })

  it.effect("headers or a body too slow: 408 with a JSON detail", () =>
    Effect.gen(function* () {
      const server = FrontDoor.makeServer(
        options({ headersMs: 300, requestMs: 600, keepAliveMs: 1_000, checkMs: 100, drainMs: 1_000 }),
        ok,
        () => {}
      )
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => server.close())
      )
      const port = (server.address() as AddressInfo).port
      const headers = yield* Effect.promise(() => slowClient(port, "GET / HTTP/1.1\r\nHost: x\r\n"))
      expect(headers.text).toMatch(/^HTTP\/1\.1 408 /)
      expect(headers.text).toMatch(/content-type: application\/json/i)
      expect(JSON.parse(headers.text.slice(headers.text.indexOf("\r\n\r\n") + 4))).toEqual({
        detail: expect.stringMatching(/not received in time/),
        code: "request-timeout"
      })
      expect(headers.ms).toBeLessThan(5_000)
      const body = yield* Effect.promise(() =>
        slowClient(port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{")
      )
      expect(body.text).toMatch(/^HTTP\/1\.1 408 /)
    }).pipe(Effect.scoped))
})

describe("FrontDoor parser errors on a connection with an answer", () => {
  /** An app that sends its head and part of its body, and ends 300 ms later. */
  const slow = (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { "content-type": "text/plain" })
    res.write("part;")
    setTimeout(() => res.end("rest"), 300)
  }

  /** Sends a request, then `garbage` once the answer has begun; what the server sent until it closed. */
  const client = (port: number, garbage: string, after: "head" | "end") =>
    new Promise<string>((done, fail) => {
      const socket = connect(port, "127.0.0.1", () => socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
      const chunks: Array<Buffer> = []
      let sent = false
      socket.on("data", (c: Buffer) => {
        chunks.push(c)
        const text = Buffer.concat(chunks).toString()
        if (!sent && (after === "head" || text.includes("rest"))) {
          sent = true
          socket.write(garbage)
        }
      })
      socket.on("error", fail)
      socket.on("close", () => done(Buffer.concat(chunks).toString()))
    })

  it.effect("mid-answer the connection is cut, never written into; after the answer the error is a JSON 400", () =>
    Effect.gen(function* () {
      const server = FrontDoor.makeServer(
        options({ headersMs: 2_000, requestMs: 4_000, keepAliveMs: 5_000, checkMs: 100, drainMs: 1_000 }),
        slow,
        () => {}
      )
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => server.close())
      )
      const port = (server.address() as AddressInfo).port
      const during = yield* Effect.promise(() => client(port, "NOT HTTP AT ALL\r\n\r\n", "head"))
      expect(during.match(/HTTP\/1\.1 /g)).toHaveLength(1)
      expect(during).not.toMatch(/ 400 /)
      const afterwards = yield* Effect.promise(() => client(port, "NOT HTTP AT ALL\r\n\r\n", "end"))
      expect(afterwards.match(/HTTP\/1\.1 /g)).toHaveLength(2)
      expect(afterwards).toMatch(/HTTP\/1\.1 400 [\s\S]*"detail"/)
    }).pipe(Effect.scoped))
})

describe("FrontDoor connections per client", () => {
  /** A connection, open once connected; what it was sent until it closed. */
  const open = (port: number) =>
    new Promise<{ socket: ReturnType<typeof connect>; closed: Promise<string> }>((done, fail) => {
      const socket = connect(port, "127.0.0.1")
      const chunks: Array<Buffer> = []
      socket.on("data", (c: Buffer) => chunks.push(c))
      const closed = new Promise<string>((end) => socket.on("close", () => end(Buffer.concat(chunks).toString())))
      socket.once("connect", () => done({ socket, closed }))
      socket.once("error", fail)
    })

  it.effect("past its cap a client's next connection is told 503 and closed; one closed makes room", () =>
    Effect.gen(function* () {
      const server = FrontDoor.makeServer({ ...options(FrontDoor.TIMEOUTS), connectionsPerClient: 3 }, ok, () => {})
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => server.closeAllConnections()).pipe(Effect.zipRight(Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))))
      )
      const port = (server.address() as AddressInfo).port
      const idle = yield* Effect.promise(() => Promise.all([open(port), open(port), open(port)]))
      const refused = yield* Effect.promise(() => open(port).then((c) => c.closed))
      expect(refused).toMatch(/^HTTP\/1\.1 503 /)
      expect(JSON.parse(refused.slice(refused.indexOf("\r\n\r\n") + 4))).toEqual({
        detail: "Too many open connections from this address (at most 3); close some and try again.",
        code: "too-many-connections"
      })
      idle[0]!.socket.destroy()
      yield* Effect.promise(() => idle[0]!.closed)
      // Node counts the close a moment later than the client sees it.
      yield* Effect.promise(() => new Promise((done) => setTimeout(done, 50)))
      const answer = yield* Effect.promise(() => slowClient(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
      expect(answer.text).toMatch(/^HTTP\/1\.1 200 /)
      for (const c of idle) c.socket.destroy()
    }).pipe(Effect.scoped))

  it("is on by default when the server is reached directly, off behind trusted proxies", () => {
    const direct = FrontDoor.makeServer(options(FrontDoor.TIMEOUTS), ok, () => {})
    const proxied = FrontDoor.makeServer({ ...options(FrontDoor.TIMEOUTS), trustedProxyHops: 1 }, ok, () => {})
    expect(direct.listenerCount("connection") - proxied.listenerCount("connection")).toBe(1)
  })
})

describe("FrontDoor keeps nothing of an answer once it is written", () => {
  v8.setFlagsFromString("--expose-gc")
  const gc = vm.runInNewContext("gc") as () => void
  const PATH = "/api/v2/cell?lat=52.52&lon=13.41"
  const ETAG = 'W/"held"'

  /** An app answering in chunks (no length): its end is the last chunk. */
  const chunked = (req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" })
      res.write("{")
      res.end("}")
    })
  }

  /** Writes `request` on `socket` and resolves once the whole answer has arrived (a 304's head, or a chunked body's last chunk). */
  const ask = (socket: Socket, request: string, end: string) =>
    new Promise<string>((done, fail) => {
      let text = ""
      const onData = (c: Buffer) => {
        text += c.toString()
        if (!text.endsWith(end)) return
        socket.off("data", onData).off("error", fail)
        done(text)
      }
      socket.on("data", onData).once("error", fail)
      socket.write(request)
    })

  /** A few turns of the event loop, so that Node's own work after an answer (its `close` event, the request's end) is done. */
  const settle = () => Effect.promise(() => new Promise<void>((done) => setTimeout(done, 20)))

  it.effect("the request and response of answers from the index and from the app are collected while their keep-alive connection stays open", () =>
    Effect.gen(function* () {
      const index = ResponseIndex.make()
      index.remember(PATH, { etag: ETAG, validUntil: Date.now() + 3_600_000 })
      // The access log as deployed (formatting a line per answer), written nowhere.
      const log = AccessLog.writer({ format: "json", instance: "test", write: () => {} })
      const server = FrontDoor.makeServer({ ...options(FrontDoor.TIMEOUTS), responses: index }, chunked, log)
      // Registered at Node's level, after the front door's handler; nothing else keeps them.
      const written: Array<WeakRef<object>> = []
      server.on("request", (req: IncomingMessage, res: ServerResponse) => void written.push(new WeakRef(req), new WeakRef(res)))
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => server.closeAllConnections()).pipe(Effect.zipRight(Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))))
      )
      const port = (server.address() as AddressInfo).port
      const socket = yield* Effect.acquireRelease(
        Effect.async<Socket>((resume) => {
          const s = connect(port, "127.0.0.1", () => resume(Effect.succeed(s)))
        }),
        (s) => Effect.sync(() => s.destroy())
      )
      const revalidation = `GET ${PATH} HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${ETAG}\r\n\r\n`
      for (let i = 0; i < 2; i++) expect(yield* Effect.promise(() => ask(socket, revalidation, "\r\n\r\n"))).toMatch(/^HTTP\/1\.1 304 /)
      expect(yield* Effect.promise(() => ask(socket, "GET /other HTTP/1.1\r\nHost: x\r\n\r\n", "\r\n0\r\n\r\n"))).toMatch(
        /^HTTP\/1\.1 200 [\s\S]*transfer-encoding: chunked/i
      )
      expect(yield* Effect.promise(() => ask(socket, revalidation, "\r\n\r\n"))).toMatch(/^HTTP\/1\.1 304 [\s\S]*Connection: keep-alive/)
      expect(written).toHaveLength(8)
      yield* settle()
      gc()
      yield* settle()
      gc()
      expect(written.map((ref) => ref.deref()?.constructor.name ?? "collected")).toEqual(Array.from({ length: 8 }, () => "collected"))
      // The connection is still open: nothing was let go by closing it.
      expect(socket.readyState).toBe("open")
      const connections = yield* Effect.async<number>((resume) => void server.getConnections((_e, n) => resume(Effect.succeed(n))))
      expect(connections).toBe(1)
    }).pipe(Effect.scoped))
})

describe("FrontDoor tells the drain where each connection is", () => {
  it.effect("an answer in progress, nothing once a kept-alive answer is written, closed once an answer closed the connection", () =>
    Effect.gen(function* () {
      const sockets: Array<Socket> = []
      const ends: Array<() => void> = []
      // The app's answers end when the test says so.
      const held = (req: IncomingMessage, res: ServerResponse) => {
        req.resume()
        res.writeHead(200, { "content-type": "text/plain", "content-length": "2" })
        res.write("o")
        ends.push(() => res.end("k"))
      }
      const server = FrontDoor.makeServer(options(FrontDoor.TIMEOUTS), held, () => {})
      server.on("connection", (socket: Socket) => void sockets.push(socket))
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => server.closeAllConnections()).pipe(Effect.zipRight(Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))))
      )
      const port = (server.address() as AddressInfo).port
      const client = connect(port, "127.0.0.1")
      yield* Effect.addFinalizer(() => Effect.sync(() => client.destroy()))
      let received = ""
      client.on("data", (c: Buffer) => {
        received += c.toString()
      })
      // The client's end of the connection, after all it was sent has been read.
      const clientEnded = new Promise<void>((done) => void client.once("end", done))
      const until = (test: () => boolean) =>
        Effect.promise(async () => {
          while (!test()) await new Promise((done) => setTimeout(done, 5))
        })
      client.write("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
      yield* until(() => received.includes("\r\n\r\no"))
      const socket = sockets[0]!
      expect(Drain.current(socket)?.headersSent).toBe(true)
      expect(Drain.closedAfterLast(socket)).toBe(false)
      ends.shift()!()
      yield* until(() => received.endsWith("ok"))
      yield* until(() => Drain.current(socket) === undefined)
      expect(Drain.closedAfterLast(socket)).toBe(false)
      client.write("GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      yield* until(() => ends.length === 1)
      expect(Drain.current(socket)?.headersSent).toBe(true)
      ends.shift()!()
      yield* until(() => Drain.closedAfterLast(socket))
      expect(Drain.current(socket)).toBeUndefined()
      // The server has written and closed; the client reads it in a later turn of the loop (on a busy machine, after this check's timer).
      yield* Effect.promise(() => clientEnded)
      expect(received.match(/HTTP\/1\.1 200 /g)).toHaveLength(2)
    }).pipe(Effect.scoped))
})
