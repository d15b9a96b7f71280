/**
 * A restart that loses nothing. On SIGTERM (the server's scope closing):
 *
 * 1. `/health` answers 503 at once, and for `pauseMs` the server goes on serving as before, so a
 *    balancer that probes it stops sending here while nothing is refused.
 * 2. The listener closes (right after a poll of the event loop has accepted what was waiting, so
 *    the kernel's queue is as short as it gets), and from then on every answer carries
 *    `Connection: close`: requests already read, or arriving on a kept-alive connection, are
 *    answered and their connections closed after the answer. A balancer reusing a connection
 *    learns from the answer itself that the connection ends, instead of finding it cut.
 * 3. Idle kept-alive connections are closed after `idleGraceMs`, time for a balancer to use up
 *    (one answer each) the connections it keeps, or to stop picking this instance once a new
 *    connection is refused; each closes cleanly (FIN between requests, never a reset mid-request).
 * 4. When every connection has closed the drain is over; what is still running after `drainMs`
 *    is cut.
 *
 * Nothing here runs per request until the drain begins: connections are counted as they open
 * (once per connection), and the request handler is swapped for a closing one only at step 2.
 * Node's own `server.close()` would close idle connections at once (a balancer may be writing a
 * request on one at that moment) and leaves answers on kept-alive connections saying keep-alive,
 * so their connections stay open until the 65 s keep-alive timeout; hence this sequence.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { Server as NetServer, type Socket } from "node:net"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"

/** Whether this process is shutting down; `/health` reads it. */
export class Draining extends Context.Tag("@climate-grade/http/Draining")<
  Draining,
  { readonly isDraining: () => boolean; readonly begin: () => void }
>() {}

export const makeDraining = (): Draining["Type"] => {
  let draining = false
  return {
    isDraining: () => draining,
    begin: () => {
      draining = true
    }
  }
}

export const layer = Layer.sync(Draining, makeDraining)

export interface ShutdownTimes {
  /** After SIGTERM, how long the server keeps serving (with `/health` at 503) before it closes its listener. */
  readonly pauseMs: number
  /** After the listener closes, how long answers still being written may take before they are cut. */
  readonly drainMs: number
}

/** The longest idle connections are left to a balancer after the listener closes; no longer than the pause. */
export const IDLE_GRACE_MS = 1_000

/** How often idle connections are looked for again (a response started before the drain may end as keep-alive). */
const SWEEP_MS = 100

/** The connections of a server, counted as they open; one listener per connection, none per request. */
export const connections = (server: Server): ReadonlySet<Socket> => {
  const open = new Set<Socket>()
  function forget(this: Socket) {
    open.delete(this)
  }
  server.on("connection", (socket: Socket) => {
    open.add(socket)
    socket.once("close", forget)
  })
  return open
}

/**
 * The last response each connection was given, told as each is made (`FrontDoor.Response`): read
 * with public fields only, where Node's own code reads its private `socket._httpMessage`.
 */
const latest = new WeakMap<object, ServerResponse>()

/** Tells which response `socket` was given last. */
export const track = (socket: object | null, res: ServerResponse): void => {
  if (socket !== null) latest.set(socket, res)
}

/**
 * Whether a socket's last answer is done and closed the connection (`Connection: close`, or Node
 * deciding not to keep it): the client reads nothing more from it.
 */
export const closedAfterLast = (socket: object): boolean => {
  const res = latest.get(socket)
  if (res === undefined || !res.writableFinished) return false
  return !res.shouldKeepAlive || String(res.getHeader("connection") ?? "").toLowerCase() === "close"
}

/** The response a socket is writing, or is about to write, if any: its last one unless that one is done. */
export const current = (socket: object): ServerResponse | undefined => {
  const res = latest.get(socket)
  return res !== undefined && !res.writableFinished ? res : undefined
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void


/**
 * Stops taking connections and answers what was taken with `Connection: close`: step 2 above,
 * run right after the event loop's poll phase (`setImmediate`).
 */
const closeListener = (server: Server, open: ReadonlySet<Socket>, closed: () => void) =>
  Effect.async<void>((resume) => {
    const timer = setImmediate(() => {
      const handlers = server.listeners("request") as Array<Handler>
      server.removeAllListeners("request")
      server.on("request", (req: IncomingMessage, res: ServerResponse) => {
        res.shouldKeepAlive = false
        for (const handler of handlers) handler(req, res)
      })
      for (const socket of open) {
        const res = current(socket)
        if (res !== undefined && !res.headersSent) res.shouldKeepAlive = false
      }
      // net's close, not http's: that one would also close idle connections at once.
      NetServer.prototype.close.call(server, () => closed())
      resume(Effect.void)
    })
    return Effect.sync(() => clearImmediate(timer))
  })

/** The whole sequence; ends when every connection has closed (or was cut at the deadline). */
export const drain = (
  server: Server,
  open: ReadonlySet<Socket>,
  draining: Context.Tag.Service<Draining>,
  times: ShutdownTimes
): Effect.Effect<void> =>
  Effect.gen(function* () {
    draining.begin()
    if (!server.listening) return
    if (times.pauseMs > 0) yield* Effect.sleep(times.pauseMs)
    const closed = yield* Deferred.make<void>()
    yield* closeListener(server, open, () => Deferred.unsafeDone(closed, Exit.void))
    const deadline = (yield* Clock.currentTimeMillis) + times.drainMs
    // Polled, not raced: a finalizer runs uninterruptibly, and a race could not stop its loser.
    const grace = Math.min(IDLE_GRACE_MS, times.pauseMs)
    for (let waited = 0; waited < grace && !(yield* Deferred.isDone(closed)); waited += SWEEP_MS) yield* Effect.sleep(SWEEP_MS)
    while (!(yield* Deferred.isDone(closed)) && (yield* Clock.currentTimeMillis) < deadline) {
      server.closeIdleConnections()
      yield* Effect.sleep(SWEEP_MS)
    }
    if (!(yield* Deferred.isDone(closed))) {
      server.closeAllConnections()
      // Any the HTTP parser no longer counts as its own (an upgraded one) goes too.
      for (const socket of open) socket.destroy()
      yield* Deferred.await(closed)
    }
  })
