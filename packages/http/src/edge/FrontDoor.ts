/**
 * The one front door: a node request handler built from
 * `NodeHttpServer.makeHandler` over the Effect app, with what must happen before the app —
 * security headers, the response index's fast path, refusals decided from the headers — in
 * front of it, and the access log and request metrics behind it. The node server is created with
 * this handler already in place and only then listens, so there is no moment where a request
 * reaches a server without its app, or the index answers for an app that is not there.
 * Node's own parser errors, CONNECT and the request timeouts are answered here too, as JSON.
 */
import { createServer, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders, type Server, ServerResponse, STATUS_CODES } from "node:http"
import type { Socket } from "node:net"
// Imported, not the global: in Node 20 `globalThis.performance` is an accessor, so each read of the
// global calls its getter (a global load that is never a constant), three times per request.
import { performance } from "node:perf_hooks"
import type { Duplex } from "node:stream"
import { type HttpApp, HttpMiddleware, type HttpServer, type HttpServerRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { ClientNetwork, Refusal } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as AccessLog from "./AccessLog.js"
import * as Drain from "./Drain.js"
import * as HttpMetrics from "./HttpMetrics.js"
import * as RequestBody from "./RequestBody.js"
import * as RequestId from "./RequestId.js"
import { clientAddressFrom } from "../protocol/RequestInfo.js"
import * as ResponseIndex from "./ResponseIndex.js"
import * as SecurityHeaders from "./SecurityHeaders.js"

/**
 * Chosen, not Node's defaults (headers 60 s, request 300 s, keep-alive 5 s): a client gets 10 s to
 * send its headers and 30 s for the whole request (bodies are at most 64 KB), and an idle
 * keep-alive connection is closed after 65 s — longer than the 60 s idle timeout of common load
 * balancers, so the balancer, not this server, closes first and never reuses a closed connection.
 */
export interface Timeouts {
  readonly headersMs: number
  readonly requestMs: number
  readonly keepAliveMs: number
  /** How often Node looks for connections past those limits. */
  readonly checkMs: number
  /**
   * On shutdown, how long answers still being written may take before their connections are cut
   * (a client that stops reading a large answer would otherwise hold the close forever).
   */
  readonly drainMs: number
}

export const TIMEOUTS: Timeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 65_000,
  checkMs: 1_000,
  drainMs: 10_000
}

/**
 * Open connections one client network (ClientNetwork: an address, an IPv6 /64) may hold, when the
 * server is reached directly: idle keep-alive connections are cheap to open and each holds a file
 * descriptor, so without a cap one client could take them all (the process's file limit) and every
 * other client would fail. Behind trusted proxies (`TRUSTED_PROXY_HOPS` > 0) every connection comes
 * from a proxy and the cap is not applied: the proxy in front is the place for it (docs/deploy.md).
 */
export const CONNECTIONS_PER_CLIENT = 512

export interface FrontDoorOptions {
  /** Open connections per client network (0: no cap); by default `CONNECTIONS_PER_CLIENT` with no trusted proxy, else none. */
  readonly connectionsPerClient?: number
  readonly basePath: string
  readonly publicOriginHttps: boolean
  readonly responses: ResponseIndex.Index
  /** How many proxies in front are trusted (their `X-Forwarded-For` entries, their `X-Request-Id`). */
  readonly trustedProxyHops?: number
  readonly port: number
  readonly host: string
  readonly timeouts?: Timeouts
  /** What SIGTERM does (`Drain`): the flag `/health` reads, and the pause before the listener closes. */
  readonly shutdown?: { readonly draining: Drain.Draining["Type"]; readonly pauseMs: number }
}

const json = (res: ServerResponse, status: number, code: Refusal.Code, detail: string, extra: Record<string, string> = {}) => {
  const body = Refusal.json(code, detail)
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    ...extra
  })
  res.end(body)
}

/** An answer written straight to a socket that has no response object (parser errors, CONNECT). */
const rawAnswer = (socket: Duplex, status: number, code: Refusal.Code, detail: string) => {
  const body = Refusal.json(code, detail)
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}`,
      "Content-Type: application/json",
      `Content-Length: ${Buffer.byteLength(body)}`,
      "Connection: close",
      ...SecurityHeaders.RAW_LINES,
      "",
      body
    ].join("\r\n")
  )
}

/** What Node's parser refused, in words (its codes: llhttp's HPE_*, and Node's own timeouts). */
const parserRefusal = (code: string | undefined): readonly [number, Refusal.Code, string] => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, "headers-too-large", "The request's headers are too large."]
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "request-timeout", "The request was not received in time."]
    case "HPE_HEADERS_TIMEOUT":
    case "ERR_HTTP_HEADERS_TIMEOUT":
      return [408, "request-timeout", "The request's headers were not received in time."]
    case "HPE_INVALID_METHOD":
      return [400, "bad-request", "Malformed request: unknown method."]
    case "HPE_INVALID_URL":
      return [400, "bad-request", "Malformed request: invalid request target."]
    case "HPE_INVALID_VERSION":
      return [400, "bad-request", "Malformed request: invalid HTTP version."]
    case "HPE_INVALID_CONTENT_LENGTH":
    case "HPE_UNEXPECTED_CONTENT_LENGTH":
      return [400, "bad-request", "Malformed request: invalid Content-Length."]
    case "HPE_INVALID_TRANSFER_ENCODING":
    case "HPE_INVALID_CHUNK_SIZE":
      return [400, "bad-request", "Malformed request: invalid chunked body."]
    default:
      return [400, "bad-request", "Malformed request: it is not valid HTTP/1.1."]
  }
}

const onClientError = (error: Error & { readonly code?: string }, socket: Duplex) => {
  // Nothing can be said to a connection that is gone, or in the middle of another answer.
  if (error.code === "ECONNRESET" || !socket.writable || Drain.current(socket)?.headersSent === true) {
    socket.destroy()
    return
  }
  // Nor after an answer that closed the connection (bytes after it are garbage to the client): the
  // socket is ended, not destroyed, so that no reset can overtake that answer on its way.
  if (Drain.closedAfterLast(socket)) {
    socket.end()
    return
  }
  const [status, code, detail] = parserRefusal(error.code)
  rawAnswer(socket, status, code, detail)
}

/**
 * Counts each client network's open connections; one past `cap` is told so (503) and closed at
 * once, before anything of it is read.
 */
export const capConnections = (server: Server, cap: number): void => {
  const open = new Map<string, number>()
  server.on("connection", (socket: Socket) => {
    const client = ClientNetwork.of(socket.remoteAddress ?? "unknown")
    const count = open.get(client) ?? 0
    if (count >= cap) {
      rawAnswer(socket, 503, "too-many-connections", `Too many open connections from this address (at most ${cap}); close some and try again.`)
      socket.destroySoon()
      return
    }
    open.set(client, count + 1)
    socket.once("close", () => {
      const left = (open.get(client) ?? 1) - 1
      if (left > 0) open.set(client, left)
      else open.delete(client)
    })
  })
}

const onConnect = (_req: IncomingMessage, socket: Duplex) =>
  rawAnswer(socket, 405, "method-not-allowed", "CONNECT is not supported: this server is not a proxy.")

/** What the access line and the metrics need of a URL, worked out once per URL the index holds. */
interface Edge extends ResponseIndex.Edge {
  readonly series: HttpMetrics.Series
  readonly path: string
}

/**
 * Node's response with what the front door keeps per request as fields (one shape for every
 * response, no closure per request): the close listener is one shared function.
 */
export class Response<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  started = 0
  requestId = ""
  /** An API request: its 304 carries no security headers (`SecurityHeaders.stripFromNotModified`). */
  api = false

  /**
   * Node's server passes its options too (`highWaterMark`, `rejectNonStandardBodyWrites`, which
   * @types/node does not declare): passed on, so this response keeps the server's settings.
   */
  constructor(req: Request, options?: object) {
    // @ts-expect-error Node's ServerResponse takes (req, options); its declared type takes req only.
    super(req, options)
    // Which answer a connection is on, for its parser errors and the drain (no private field).
    Drain.track(req.socket, this)
  }

  // Node detaches a response from its socket once the answer is written: the drain then lets go of it.
  override detachSocket(socket: Socket): void {
    super.detachSocket(socket)
    Drain.done(socket, this)
  }

  // Its arguments as Node's own takes them (no rest array copied into another per answer): an
  // argument left out and one passed as undefined mean the same to it.
  override writeHead(
    statusCode: number,
    reason?: string | OutgoingHttpHeaders | Array<OutgoingHttpHeader>,
    headers?: OutgoingHttpHeaders | Array<OutgoingHttpHeader>
  ): this {
    if (statusCode === 304 && this.api) SecurityHeaders.stripFromNotModified(this)
    return super.writeHead(statusCode, reason as string, headers)
  }
}

/** The node request handler: headers, the index, refusals from the headers, then the app. */
export const handler = (
  options: Omit<FrontDoorOptions, "port" | "host" | "timeouts">,
  app: (req: IncomingMessage, res: ServerResponse) => void,
  log: AccessLog.Writer
) => {
  const routeOf = AccessLog.routeLabeller(options.basePath)
  const hops = options.trustedProxyHops ?? 0
  const nextId = RequestId.generator()
  const index = options.responses as ResponseIndex.Index<Edge>
  const edgeOf = (url: string): Edge => ({ series: HttpMetrics.series(routeOf(url)), path: AccessLog.loggablePath(url) })
  // A connection's peer address, read once per connection (Node asks the socket's handle each time).
  const peers = new WeakMap<object, string>()
  const peerOf = (socket: IncomingMessage["socket"]) => {
    const known = peers.get(socket)
    if (known !== undefined) return known
    const address = socket.remoteAddress
    if (address !== undefined) peers.set(socket, address)
    return address
  }
  const clientOf = (req: IncomingMessage) => clientAddressFrom(peerOf(req.socket), req.headers["x-forwarded-for"], hops)
  const fixed = SecurityHeaders.RAW_PAIRS

  // Shared by every response: `this` is the response that closed.
  function onClose(this: Response) {
    const req = this.req
    const url = req.url ?? "/"
    const ms = performance.now() - this.started
    // A response that never finished was cut short by the client; 499 as nginx logs it.
    const status = this.writableFinished ? this.statusCode : 499
    const method = req.method ?? "?"
    HttpMetrics.record(HttpMetrics.series(routeOf(url)), method, status, ms / 1000)
    log(method, AccessLog.loggablePath(url), status, ms, clientOf(req), this.requestId)
  }

  return (req: IncomingMessage, res: ServerResponse): void => {
    const response = res as Response
    const started = performance.now()
    const id = RequestId.fromProxy(req.headers[RequestId.HEADER], hops) ?? nextId()
    const https = SecurityHeaders.isHttps(options, req)
    const held = ResponseIndex.answer(index, req, res, fixed, https, id)
    if (held !== undefined) {
      // Answered whole, at once: the line and the count now, from what was worked out for this URL.
      const ms = performance.now() - started
      if (held.edge === undefined) {
        held.edge = edgeOf(req.url!)
        index.reweigh(req.url!)
      }
      const edge = held.edge
      HttpMetrics.record(edge.series, "GET", res.statusCode, ms / 1000)
      HttpMetrics.countCacheAnswer("index")
      log("GET", edge.path, res.statusCode, ms, clientOf(req), id)
      return
    }
    response.started = started
    response.requestId = id
    res.on("close", onClose)
    response.api = SecurityHeaders.apply(options, req, res, https)
    res.setHeader(RequestId.HEADER, id)
    const refusal = RequestBody.precheck(req)
    if (refusal !== undefined) {
      RequestBody.discardRest(req)
      json(res, refusal.status, refusal.code, refusal.detail)
      return
    }
    app(req, res)
  }
}

/** A node server with the front door already attached and its limits set; it is not listening yet. */
export const makeServer = (
  options: Omit<FrontDoorOptions, "port" | "host">,
  app: (req: IncomingMessage, res: ServerResponse) => void,
  log: AccessLog.Writer
): Server => {
  const timeouts = options.timeouts ?? TIMEOUTS
  const server = createServer(
    {
      connectionsCheckingInterval: timeouts.checkMs,
      requestTimeout: timeouts.requestMs,
      headersTimeout: timeouts.headersMs,
      ServerResponse: Response
    },
    handler(options, app, log)
  )
  server.keepAliveTimeout = timeouts.keepAliveMs
  const cap = options.connectionsPerClient ?? ((options.trustedProxyHops ?? 0) > 0 ? 0 : CONNECTIONS_PER_CLIENT)
  if (cap > 0) capConnections(server, cap)
  server.on("clientError", onClientError)
  server.on("connect", onConnect)
  return server
}

/**
 * The `HttpServer` for the app: the handler is built first, then the server is made with it and
 * listens. (`HttpServer.serve` would attach the app only after the socket listens.)
 */
export const make = <E, R>(
  app: HttpApp.Default<E, R>,
  options: FrontDoorOptions & { readonly accessLog?: AccessLog.Options }
): Effect.Effect<HttpServer.HttpServer, never, Scope.Scope | Exclude<R, HttpServerRequest.HttpServerRequest | Scope.Scope>> =>
  Effect.gen(function* () {
    // The handler exists before the server does.
    const log = options.accessLog === undefined ? () => {} : AccessLog.writer(options.accessLog)
    // No server span: no traces are exported (the access log and /metrics say what a request did),
    // and the platform's span parses each request's URL again into a URL object whose copy of it
    // its attributes keep (`url.full`, `url.query`) until the answer: for a 14 KB URL, ~15 KB more
    // per request in the heap, and as much in the allocator while it is parsed.
    const appHandler = yield* Effect.locally(NodeHttpServer.makeHandler(app), HttpMiddleware.currentTracerDisabledWhen, () => true)
    const server = makeServer(options, appHandler, log)
    const open = Drain.connections(server)
    const http = yield* Effect.orDie(NodeHttpServer.make(() => server, { port: options.port, host: options.host }))
    // Runs before the platform's own finalizer, which then finds the listener closed.
    const times = { pauseMs: options.shutdown?.pauseMs ?? 0, drainMs: (options.timeouts ?? TIMEOUTS).drainMs }
    const draining = options.shutdown?.draining ?? Drain.makeDraining()
    yield* Effect.addFinalizer(() => Drain.drain(server, open, draining, times))
    return http
  })

/** What the platform's apps need from the node side (HTTP platform, ETags, file system, path). */
export const platformLayer = NodeHttpServer.layerContext
