import type { HttpServerRequest } from "@effect/platform"
import * as Option from "effect/Option"

/**
 * Who may say a request came over https: the deployment, and the proxies it trusts.
 * `PUBLIC_ORIGIN` (when it is https) says so for every request; otherwise `X-Forwarded-Proto` is
 * read only with `TRUSTED_PROXY_HOPS` > 0, since any client can write it.
 */
export interface SchemeTrust {
  readonly publicOrigin: Option.Option<string>
  readonly trustedProxyHops: number
}

/** Whether `PUBLIC_ORIGIN` names an https address, whatever any header says. */
export const httpsOrigin = (publicOrigin: Option.Option<string>): boolean =>
  Option.exists(publicOrigin, (origin) => origin.startsWith("https:"))

/** `https` in any case, with any whitespace around it (as `trim` and `toLowerCase` would read it). */
const HTTPS = /^\s*https\s*$/i

/**
 * The one rule for `X-Forwarded-Proto` (the scheme of redirect URIs, cookies' `Secure`, HSTS):
 * ignored with no trusted hop (the socket is plain HTTP here); with n trusted proxies, the entry
 * the outermost of them wrote — n places from the right, as for `X-Forwarded-For`, or the
 * leftmost when there are fewer entries (a proxy that replaces the header leaves one). Entries
 * further left came from the client.
 */
export const forwardedScheme = (
  header: string | ReadonlyArray<string> | undefined,
  trustedProxyHops: number
): "http" | "https" => {
  if (trustedProxyHops <= 0 || header === undefined) return "http"
  const text = typeof header === "string" ? header : header.join(",")
  // The entry after the n-th comma from the right (found without splitting the header), or the first.
  let start = text.length
  for (let n = 0; n < trustedProxyHops && start >= 0; n++) start = start === 0 ? -1 : text.lastIndexOf(",", start - 1)
  const end = text.indexOf(",", start + 1)
  const entry = text.slice(start + 1, end < 0 ? text.length : end)
  return HTTPS.test(entry) ? "https" : "http"
}

/** Over https: by `PUBLIC_ORIGIN`, else by the trusted proxies (node's request, for the front door). */
export const isHttps = (
  trust: { readonly publicOriginHttps: boolean; readonly trustedProxyHops?: number | undefined },
  forwardedProto: string | ReadonlyArray<string> | undefined
): boolean => trust.publicOriginHttps || forwardedScheme(forwardedProto, trust.trustedProxyHops ?? 0) === "https"

/** The request's scheme by the rule above (the Effect request, for the app). */
export const scheme = (request: HttpServerRequest.HttpServerRequest, trust: SchemeTrust): "http" | "https" =>
  httpsOrigin(trust.publicOrigin) || forwardedScheme(request.headers["x-forwarded-proto"], trust.trustedProxyHops) === "https"
    ? "https"
    : "http"

/**
 * The `Host` header, or else the address the server was reached on (the request's
 * network location). Always the client's word (a proxy passes it on): where it matters, set
 * `PUBLIC_ORIGIN`; start-up warns in production without it.
 */
export const host = (request: HttpServerRequest.HttpServerRequest): string => {
  const header = request.headers.host?.trim()
  if (header !== undefined && header !== "") return header
  // The Node server's request carries its socket; the address and port it was reached on.
  const socket = (request.source as { readonly socket?: { readonly localAddress?: string; readonly localPort?: number } })
    .socket
  const address = socket?.localAddress ?? "localhost"
  const name = address.includes(":") ? `[${address}]` : address
  return socket?.localPort === undefined ? name : `${name}:${socket.localPort}`
}

/**
 * The client's address: the socket's peer, unless the deployment says how many reverse proxies
 * it trusts (`TRUSTED_PROXY_HOPS`). Each trusted proxy appends the address it saw to
 * `x-forwarded-for`, so the client is the entry that many places from the right (entries further
 * left were written by the client itself and prove nothing). With no trusted hop the header is
 * ignored: any client can write it. A port the proxy wrote beside the address is not part of it
 * (`bareAddress`).
 */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest, trustedProxyHops: number): string =>
  clientAddressFrom(
    request.remoteAddress._tag === "Some" ? request.remoteAddress.value : undefined,
    request.headers["x-forwarded-for"],
    trustedProxyHops
  )

/**
 * The same rule over the socket's peer and the raw header (the front door's access line has no
 * Effect request). Read from the right, entry by entry, empty ones skipped, so that behind a
 * proxy (the usual deployment) each request costs one slice of the header, not an array of its
 * entries.
 */
export const clientAddressFrom = (
  socketAddress: string | undefined,
  forwardedFor: string | ReadonlyArray<string> | undefined,
  trustedProxyHops: number
): string => {
  const socket = socketAddress ?? "unknown"
  if (trustedProxyHops <= 0 || forwardedFor === undefined) return socket
  const header = typeof forwardedFor === "string" ? forwardedFor : forwardedFor.join(",")
  // [socket, nearest hop, …, furthest]: the trusted hops vouch for the next entry each, so the
  // answer is the entry that many places from the right, or the leftmost when there are fewer.
  let found = socket
  let seen = 0
  // The current entry is header[after the comma before `end`, `end`).
  let end = header.length
  while (end >= 0 && seen < trustedProxyHops) {
    const comma = end === 0 ? -1 : header.lastIndexOf(",", end - 1)
    const entry = header.slice(comma + 1, end).trim()
    if (entry !== "") {
      found = entry
      seen++
    }
    end = comma
  }
  return seen === 0 ? found : bareAddress(found)
}

/**
 * A forwarded entry as the address alone: some proxies write the peer's port too (`203.0.113.9:4711`,
 * `[2001:db8::1]:443`), which would make every connection of one client a new client. Brackets and
 * a port are dropped; a bare IPv6 address (two colons or more) is kept whole; an entry that would
 * be left empty (`:80`, `[]`) is kept as it came.
 */
export const bareAddress = (entry: string): string => {
  let address = entry
  // An opening bracket without its closing one is no bracketed address: the port rule reads it.
  const close = entry.startsWith("[") ? entry.indexOf("]") : -1
  if (close > 0) address = entry.slice(1, close)
  else {
    const colon = entry.indexOf(":")
    if (colon >= 0 && entry.indexOf(":", colon + 1) < 0) address = entry.slice(0, colon)
  }
  address = address.trim()
  return address === "" ? entry : address
}
