/**
 * The request id of an access line, echoed as `X-Request-Id`, so one request can be followed from
 * the proxy's log through this service's. A proxy the deployment trusts (`TRUSTED_PROXY_HOPS` > 0)
 * may send its own, which is kept when it is short and made of safe characters (it goes into log
 * lines and a response header as it is); any other is replaced, since a client could write
 * anything there. A generated id is a random per-process prefix and a counter: unique without a
 * random draw per request.
 */
import { randomBytes } from "node:crypto"

export const HEADER = "x-request-id"

/** Bounded, and nothing that could break a log line, a JSON string or a header. */
const ACCEPTED = /^[A-Za-z0-9._:+/=-]{1,128}$/

export const acceptable = (value: string): boolean => ACCEPTED.test(value)

/** A proxy's id when it is trusted and well-formed; undefined otherwise. */
export const fromProxy = (header: string | ReadonlyArray<string> | undefined, trustedProxyHops: number): string | undefined => {
  if (trustedProxyHops <= 0 || typeof header !== "string") return undefined
  return ACCEPTED.test(header) ? header : undefined
}

/** Ids for one process: `<8 random characters>-<counter>` (decimal: the cheapest number to write). */
export const generator = (): (() => string) => {
  const prefix = `${randomBytes(6).toString("base64url")}-`
  let n = 0
  return () => prefix + n++
}
