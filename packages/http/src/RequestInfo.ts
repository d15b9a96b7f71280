import type { HttpServerRequest } from "@effect/platform"

/** The request's scheme: `x-forwarded-proto` (first hop) or the socket's, which is plain HTTP here. */
export const scheme = (request: HttpServerRequest.HttpServerRequest): "http" | "https" => {
  const forwarded = request.headers["x-forwarded-proto"]?.split(",")[0]?.trim().toLowerCase()
  return forwarded === "https" ? "https" : "http"
}

/** The `Host` header, or else the address the server was reached on (SPEC.md: "the request's network location"). */
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
 * ignored: any client can write it.
 */
export const clientAddress = (request: HttpServerRequest.HttpServerRequest, trustedProxyHops: number): string => {
  const socket = request.remoteAddress._tag === "Some" ? request.remoteAddress.value : "unknown"
  if (trustedProxyHops <= 0) return socket
  const forwarded = (request.headers["x-forwarded-for"] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
  // [socket, nearest hop, …, furthest]: the trusted hops vouch for the next entry each.
  const chain = [socket, ...forwarded.reverse()]
  return chain[Math.min(trustedProxyHops, chain.length - 1)]!
}
