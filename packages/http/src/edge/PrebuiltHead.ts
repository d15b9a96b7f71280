/**
 * A response head whose fixed header lines were checked once, for the response index's answers:
 * `writeHead(status, pairs)` checks every name and value again on each request (a regular
 * expression over each; the long Content-Security-Policy alone is most of it) and joins them into
 * the head anew. Here Node writes the head with only the headers that change per answer — the
 * status line, `Date`, `Connection`/`Keep-Alive` (which it decides: keep-alive, the drain's
 * `Connection: close`, a request limit), `Content-Length` for a body — and the fixed lines, joined
 * once, go in right after the status line, where `writeHead` would have put them: the same bytes
 * as `writeHead(status, [...fixed, ...perAnswer])` would send.
 *
 * Node keeps the head it will send as a string in the response's `_header` until the first write:
 * not a documented field, so at load this module writes a head on a response that goes nowhere and
 * checks it looks as expected; if it does not (another Node), `supported` is false and callers
 * use `writeHead` with the pairs instead.
 *
 * Why a private field is still read here: measured, not assumed. `writeHead` with the pairs costs
 * the front door ~11,900 more instructions per held answer, about an eighth of all it does
 * (`pnpm bench:http-instructions front-door`, docs/benchmarks.md), and no public API writes a head
 * without checking every pair again. The fallback keeps answers right on a Node without the field,
 * but slower without saying so; `packages/http/test/PrebuiltHead.test.ts` fails on such a Node, so
 * an upgrade is noticed and this is measured again there.
 */
import { IncomingMessage, ServerResponse, STATUS_CODES, validateHeaderName, validateHeaderValue } from "node:http"
import { Socket } from "node:net"

/** Header lines, `name: value\r\n` each, checked as `writeHead` checks them. */
export type Lines = string & { readonly Lines: unique symbol }

/**
 * Checks each pair (name, value, …) as Node would, and joins them into lines; throws as Node would.
 * One flat string (`join` copies the pieces into it), not a tree of concatenations: it is kept,
 * one per response index entry and form, and written whole on every answer.
 */
export const lines = (pairs: ReadonlyArray<string>): Lines => {
  const pieces: Array<string> = []
  for (let i = 0; i < pairs.length; i += 2) {
    const name = pairs[i]!
    const value = pairs[i + 1]!
    validateHeaderName(name)
    validateHeaderValue(name, value)
    pieces.push(name, ": ", value, "\r\n")
  }
  return pieces.join("") as Lines
}

/** One line whose value was checked by the caller (a request id: generated, or matched against a safe pattern). */
export const line = (name: string, value: string): string => `${name}: ${value}\r\n`

type WithHead = ServerResponse & { _header: unknown }

const statusLine = (status: number) => `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n`

/** Whether this Node keeps the pending head where `write` puts the fixed lines. */
const probe = (): boolean => {
  try {
    const req = new IncomingMessage(new Socket())
    req.method = "GET"
    req.httpVersionMajor = 1
    req.httpVersionMinor = 1
    const res = new ServerResponse(req) as WithHead
    res.writeHead(304, ["etag", '"x"'])
    const head = res._header
    return typeof head === "string" && head.startsWith(`${statusLine(304)}etag: "x"\r\n`) && head.endsWith("\r\n\r\n")
  } catch {
    return false
  }
}

export const supported: boolean = probe()

/**
 * Writes the head of `res` (not yet sent): Node's own for `status` and `perAnswer` (pairs it checks,
 * such as a `Content-Length`), with `fixed` and then `extra` (lines already checked) right after the
 * status line. Only when `supported`.
 */
export const write = (res: ServerResponse, status: number, fixed: Lines, extra: string, perAnswer?: Array<string>): void => {
  if (perAnswer === undefined) res.writeHead(status)
  else res.writeHead(status, perAnswer)
  const r = res as WithHead
  const head = r._header as string
  const cut = head.indexOf("\r\n") + 2
  r._header = head.slice(0, cut) + fixed + extra + head.slice(cut)
}
