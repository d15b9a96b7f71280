/**
 * A TCP proxy on a loopback port in front of a real server (PostgreSQL in the tests), whose
 * behaviour a test switches at any moment:
 *
 * - `pass`: bytes flow both ways, as if the proxy were not there;
 * - `reset`: every open connection is reset (RST) and new ones are reset on arrival, as when
 *   the server's host reboots or a firewall rejects;
 * - `blackhole`: connections are accepted and every byte, both ways, silently dropped, as when
 *   a network path dies without telling anyone: nothing answers, nothing closes.
 *
 * A connection that lost bytes in the black hole can never carry the protocol again (its
 * stream is torn), so it stays black-holed after `pass` returns, exactly like a connection
 * whose server forgot it; only new connections flow. Sockets are Node's own (`node:net`).
 */
import { createConnection, createServer, type AddressInfo, type Socket } from "node:net"
import * as Effect from "effect/Effect"

export type Mode = "pass" | "reset" | "blackhole"

export interface FaultyProxy {
  readonly port: number
  readonly host: string
  /** `url` with its host and port replaced by the proxy's. */
  readonly through: (url: string) => string
  readonly mode: () => Mode
  readonly setMode: (mode: Mode) => void
  /** Connections accepted so far. */
  readonly accepted: () => number
}

interface Pair {
  readonly client: Socket
  readonly upstream: Socket
  torn: boolean
}

/** Starts the proxy towards `target` (host, port); closed with the scope. */
export const make = (target: { readonly host: string; readonly port: number }) =>
  Effect.acquireRelease(
    Effect.async<{ proxy: FaultyProxy; close: () => Promise<void> }>((resume) => {
      let mode: Mode = "pass"
      let accepted = 0
      const pairs = new Set<Pair>()

      const relay = (pair: Pair, from: Socket, to: Socket) =>
        from.on("data", (chunk: Buffer) => {
          if (mode === "blackhole") pair.torn = true
          if (pair.torn) return
          to.write(chunk)
        })

      const server = createServer((client) => {
        accepted++
        client.on("error", () => undefined)
        if (mode === "reset") {
          client.resetAndDestroy()
          return
        }
        const upstream = createConnection(target)
        upstream.on("error", () => client.destroy())
        const pair: Pair = { client, upstream, torn: mode === "blackhole" }
        pairs.add(pair)
        relay(pair, client, upstream)
        relay(pair, upstream, client)
        const forget = () => {
          pairs.delete(pair)
          // A torn pair is silent: the other side learns nothing of this end closing.
          if (!pair.torn) {
            client.destroy()
            upstream.destroy()
          } else {
            upstream.destroy()
          }
        }
        client.on("close", forget)
        upstream.on("close", () => {
          if (!pair.torn) client.destroy()
        })
      })

      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as AddressInfo).port
        const proxy: FaultyProxy = {
          port,
          host: "127.0.0.1",
          through: (url) => {
            const u = new URL(url)
            u.hostname = "127.0.0.1"
            u.port = String(port)
            return u.href
          },
          mode: () => mode,
          accepted: () => accepted,
          setMode: (next) => {
            mode = next
            if (next === "reset") {
              for (const pair of pairs) {
                pair.client.resetAndDestroy()
                pair.upstream.destroy()
              }
              pairs.clear()
            }
          }
        }
        resume(
          Effect.succeed({
            proxy,
            close: () =>
              new Promise<void>((done) => {
                for (const pair of pairs) {
                  pair.client.destroy()
                  pair.upstream.destroy()
                }
                server.close(() => done())
              })
          })
        )
      })
    }),
    ({ close }) => Effect.promise(close)
  ).pipe(Effect.map(({ proxy }) => proxy))
