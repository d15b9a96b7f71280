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
 * 3. Idle kept-alive connections are left to the balancer for as long again as the pause (at most
 *    `IDLE_GRACE_MS`): it uses each up (one answer each, which closes it), or closes it itself once
 *    it has been idle for the balancer's own upstream keep-alive timeout. A balancer whose timeout
 *    is shorter than the pause (deploy/nginx: 1 s against the default pause of 2 s) closes every
 *    idle connection itself, so the server never closes one the balancer may be writing a request
 *    on. Any still idle after the grace are closed by the server, cleanly (FIN between requests).
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

/**
 * The longest idle connections are left to a balancer after the listener closes: as long as the
 * pause, up to this. Closing an idle connection races a balancer that may be writing a request on it
 * (a POST so cut is not retried: 502); a balancer that closes its idle connections sooner runs no race.
 */
export const IDLE_GRACE_MS = 5_000

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

/** A connection whose last answer is done and closed it (`Connection: close`, or Node deciding not to keep it). */
const CLOSED = "closed"

/**
 * Each connection's response in progress (the last it was given, told as each is made:
 * `FrontDoor.Response`), or `CLOSED` once an answer that closed it is done; nothing for a
 * kept-alive connection between answers, so that no finished answer (and its request) stays alive
 * until the next one, copied by every scavenge meanwhile. Read with public fields only, where
 * Node's own code reads its private `socket._httpMessage`.
 */
const latest = new WeakMap<object, ServerResponse | typeof CLOSED>()

/** Tells which response `socket` was given last. */
export const track = (socket: object | null, res: ServerResponse): void => {
  if (socket !== null) latest.set(socket, res)
}

/**
 * Tells that `res` is done with `socket`: Node detaches a response once its answer is written,
 * before it ends the connection if the answer closes it. Only the last response counts: with
 * pipelined requests a later one may already be tracked.
 */
export const done = (socket: object, res: ServerResponse): void => {
  if (latest.get(socket) !== res) return
  if (closes(res)) latest.set(socket, CLOSED)
  else latest.delete(socket)
}

const closes = (res: ServerResponse): boolean =>
  !res.shouldKeepAlive || String(res.getHeader("connection") ?? "").toLowerCase() === "close"

/**
 * Whether a socket's last answer is done and closed the connection: the client reads nothing more
 * from it. Done means written (`writableFinished`), which comes a moment before Node detaches the
 * response: it first drains the request's unread body, whose bytes may already fail to parse.
 */
export const closedAfterLast = (socket: object): boolean => {
  const res = latest.get(socket)
  return res === CLOSED || (res !== undefined && res.writableFinished && closes(res))
}

/** The response a socket is writing, or is about to write, if any: its last one unless that one is done. */
export const current = (socket: object): ServerResponse | undefined => {
  const res = latest.get(socket)
  return res === undefined || res === CLOSED || res.writableFinished ? undefined : res
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
