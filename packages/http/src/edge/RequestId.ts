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

/** 0–999 as decimal digits, as written alone and after a thousands' head. */
const DIGITS = Array.from({ length: 1000 }, (_, i) => String(i))
const PADDED = DIGITS.map((d) => d.padStart(3, "0"))

/**
 * Ids for one process: `<8 random characters>-<counter>`, the counter in decimal. Its digits are
 * put together from strings made once (the thousands, then 000–999), not by turning the counter
 * into a string: V8 keeps every number it turns into a string in a cache that lives in the old
 * generation (up to 16,384 of them), so each new id's digits stayed alive long enough to be copied
 * by a scavenge and then promoted, ~26 bytes an answer that a bare server does not keep.
 */
export const generator = (): (() => string) => {
  const prefix = `${randomBytes(6).toString("base64url")}-`
  let head = prefix
  let digits = DIGITS
  let thousands = 0
  let units = 0
  return () => {
    const id = head + digits[units]!
    if (++units === 1000) {
      units = 0
      thousands++
      head = prefix + thousands
      digits = PADDED
    }
    return id
  }
}
