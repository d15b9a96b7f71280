/** What the fake upstreams share: a loopback server, a request log, and queued faults. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"

export type Fault =
  | { readonly status: 429; readonly retryAfter?: string }
  | { readonly status: 503; readonly retryAfter?: string }
  | { readonly status: 500 }
  | { readonly status: 400; readonly reason: string }
  | "malformed"
  | "hang"
  | "reset"

export interface Logged {
  readonly path: string
  readonly query: Readonly<Record<string, string>>
  readonly headers: IncomingMessage["headers"]
  /** Epoch ms of arrival. */
  readonly at: number
  /** How long the answer took to send, once sent. */
  ms?: number
}

/** Logs a request and, when its answer has gone out, how long that took. */
export const record = (log: Array<Logged>, req: IncomingMessage, res: ServerResponse, url: URL): Logged => {
  const entry: Logged = { path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, at: Date.now() }
  log.push(entry)
  res.on("finish", () => {
    entry.ms = Date.now() - entry.at
  })
  return entry
}

export const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers })
  res.end(typeof body === "string" ? body : JSON.stringify(body))
}

/** Plays a fault; true when the request has been dealt with. */
export const play = (fault: Fault | undefined, res: ServerResponse): boolean => {
  if (fault === undefined) return false
  if (fault === "malformed") send(res, 200, '{"daily": [')
  else if (fault === "hang") return true
  else if (fault === "reset") res.socket?.destroy()
  else if (fault.status === 400) send(res, 400, { error: true, reason: fault.reason })
  else if (fault.status === 500) send(res, 500, "Internal Server Error")
  else send(res, fault.status, { error: true, reason: "Too many requests" }, fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter })
  return true
}

/** A loopback HTTP server for the life of the scope. */
export const serve = (handler: (req: IncomingMessage, res: ServerResponse, url: URL) => void) =>
  Effect.acquireRelease(
    Effect.async<{ origin: string; close: () => void }>((resume) => {
      const server = createServer((req, res) => handler(req, res, new URL(req.url ?? "/", "http://127.0.0.1")))
      server.listen(0, "127.0.0.1", () =>
        resume(
          Effect.succeed({
            origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
            close: () => {
              server.closeAllConnections()
              server.close()
            }
          })
        )
      )
    }),
    ({ close }) => Effect.sync(close)
  )
