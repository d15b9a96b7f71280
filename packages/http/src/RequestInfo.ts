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
