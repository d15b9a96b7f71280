/**
 * A head with prebuilt lines is byte for byte the head `writeHead` makes from the same pairs, for
 * every way Node decides the connection's fate: kept alive, closed at the client's request, an
 * HTTP/1.0 client with or without keep-alive, and a server that has decided to close (the drain).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as PrebuiltHead from "../src/edge/PrebuiltHead.js"

const FIXED = ["etag", 'W/"abc"', "cache-control", "no-cache", "content-security-policy", "default-src 'self'; object-src 'none'"]
const FIXED_LINES = PrebuiltHead.lines(FIXED)
const ID = "Xy12-7"
const BODY = Buffer.from('{"a":1}')

/** `/node/…` answers with writeHead and the pairs, `/prebuilt/…` with PrebuiltHead; `…/304`, `…/200`; `?close` as the drain does. */
const answer = (req: IncomingMessage, res: ServerResponse) => {
  const url = new URL(req.url!, "http://x")
  if (url.searchParams.has("close")) res.shouldKeepAlive = false
  const prebuilt = url.pathname.startsWith("/prebuilt")
  if (url.pathname.endsWith("/304")) {
    if (prebuilt) PrebuiltHead.write(res, 304, FIXED_LINES, PrebuiltHead.line("x-request-id", ID))
    else res.writeHead(304, [...FIXED, "x-request-id", ID])
    res.end()
    return
  }
  const length = ["content-length", String(BODY.byteLength)]
  if (prebuilt) PrebuiltHead.write(res, 200, FIXED_LINES, PrebuiltHead.line("x-request-id", ID), length)
  else res.writeHead(200, [...FIXED, "x-request-id", ID, ...length])
  res.end(BODY)
}

/** The raw bytes a request gets back, until the server closes or `ms` pass; the Date line's value blanked. */
const raw = (port: number, request: string, ms = 300) =>
  new Promise<string>((done, fail) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(request))
    let text = ""
    const timer = setTimeout(() => {
      socket.destroy()
      done(`${text}[open]`)
    }, ms)
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1")
    })
    socket.on("error", fail)
    socket.on("close", () => {
      clearTimeout(timer)
      done(`${text}[closed]`)
    })
  }).then((text) => text.replace(/\r\nDate: [^\r]+\r\n/, "\r\nDate: -\r\n"))

describe("PrebuiltHead", () => {
  it("is what this Node does (the index's fast path is taken)", () => {
    // Fails on a Node that no longer keeps the pending head in `ServerResponse._header`: answers are
    // still right there (writeHead with the pairs), but every held answer costs more; measure it again
    // (`pnpm bench:http-instructions front-door`) and keep or drop PrebuiltHead by what it says.
    expect(
      PrebuiltHead.supported,
      `Node ${process.version} no longer keeps the pending head in ServerResponse._header (PrebuiltHead)`
    ).toBe(true)
  })

  it("checks names and values as Node does", () => {
    expect(() => PrebuiltHead.lines(["x-a", "one\r\nx-b: two"])).toThrow(/Invalid character/)
    expect(() => PrebuiltHead.lines(["bad name", "v"])).toThrow(/must be a valid HTTP token/)
    expect(PrebuiltHead.lines(["x-a", "1", "x-b", "2"])).toBe("x-a: 1\r\nx-b: 2\r\n")
  })

  it.effect("sends the same bytes as writeHead with the same pairs, whatever becomes of the connection", () =>
    Effect.gen(function* () {
      const server = createServer(answer)
      server.keepAliveTimeout = 65_000
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () =>
          Effect.sync(() => {
            server.closeAllConnections()
            server.close()
          })
      )
      const port = (server.address() as AddressInfo).port
      const requests = (path: string) => [
        `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`,
        `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        `GET ${path} HTTP/1.0\r\n\r\n`,
        `GET ${path} HTTP/1.0\r\nConnection: keep-alive\r\n\r\n`,
        `GET ${path}?close HTTP/1.1\r\nHost: x\r\n\r\n`
      ]
      const seen = new Set<string>()
      for (const status of ["304", "200"]) {
        const node = requests(`/node/${status}`)
        const prebuilt = requests(`/prebuilt/${status}`)
        for (let i = 0; i < node.length; i++) {
          const [expected, actual] = yield* Effect.promise(() => Promise.all([raw(port, node[i]!), raw(port, prebuilt[i]!)]))
          expect(actual).toBe(expected)
          seen.add(/\r\nConnection: [^\r]+|\[closed\]|\[open\]/g.exec(expected)?.[0] ?? "")
          expect(actual).toContain(`x-request-id: ${ID}\r\n`)
        }
      }
      // The cases did reach each of Node's decisions.
      expect(seen).toEqual(new Set(["\r\nConnection: keep-alive", "\r\nConnection: close"]))
    }).pipe(Effect.scoped)
  )
})
