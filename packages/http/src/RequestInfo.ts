import type { HttpServerRequest } from "@effect/platform"

/** The request's scheme: `x-forwarded-proto` (first hop) or the socket's, which is plain HTTP here. */
export const scheme = (request: HttpServerRequest.HttpServerRequest): "http" | "https" => {
  const forwarded = request.headers["x-forwarded-proto"]?.split(",")[0]?.trim().toLowerCase()
  return forwarded === "https" ? "https" : "http"
}

/** The `Host` header, or the address the server was reached on. */
export const host = (request: HttpServerRequest.HttpServerRequest): string => request.headers.host ?? "localhost"
