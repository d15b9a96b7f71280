/**
 * What the client's calls reject with: Errors a consumer tells apart by `_tag` (or `instanceof`).
 * A refusal carries the server's `code` (core `Refusal`: what a program decides by), its `detail`
 * (what a person reads) and, where the server asked for a wait, when it ends (`retryAt`).
 */
import type { Refusal } from "@climate-grade/core/rules"

/** The server refused the request (4xx): nothing is kept, the call rejects. */
export class RequestRejected extends Error {
  readonly _tag = "RequestRejected"
  override readonly name = "RequestRejected"
  readonly url: string
  readonly status: number
  /** The `detail` of the server's answer. */
  readonly detail: string
  /** The server's `code` (`invalid-query`, `no-history`, `cold-cells-busy`…); null from a server that sent none. */
  readonly code: Refusal.Code | null
  /** When to try again (epoch ms), from `retry_at` or else `Retry-After` (a 429 sends both), else null. */
  readonly retryAt: number | null
  /** Seconds to wait, from `Retry-After` (a 429 sends it), else null. */
  readonly retryAfter: number | null
  constructor(props: {
    readonly url: string
    readonly status: number
    readonly detail: string
    readonly code?: Refusal.Code | null
    readonly retryAt?: number | null
    readonly retryAfter?: number | null
  }) {
    super(`${props.status} from ${props.url}: ${props.detail}`)
    this.url = props.url
    this.status = props.status
    this.detail = props.detail
    this.code = props.code ?? null
    this.retryAt = props.retryAt ?? null
    this.retryAfter = props.retryAfter ?? null
  }
}

/** 5xx, or a status this client has no use for, with no stored copy to fall back on. */
export class ServerError extends Error {
  readonly _tag = "ServerError"
  override readonly name = "ServerError"
  readonly url: string
  readonly status: number
  /** The `detail` of the server's answer, when it sent one (a 503's says what is unavailable). */
  readonly detail: string | null
  /** The server's `code` (`budget-spent`, `rate-limited`, `upstream-timeout`…), when it sent one. */
  readonly code: Refusal.Code | null
  /** When to try again (epoch ms), from `retry_at` or else `Retry-After` (the day's budget: 00:00 UTC), else null. */
  readonly retryAt: number | null
  /** Seconds to wait, from `Retry-After` (a 503 for the weather source's budget says when it opens again), else null. */
  readonly retryAfter: number | null
  constructor(props: {
    readonly url: string
    readonly status: number
    readonly detail?: string | null
    readonly code?: Refusal.Code | null
    readonly retryAt?: number | null
    readonly retryAfter?: number | null
  }) {
    super(`${props.status} from ${props.url}${props.detail == null ? "" : `: ${props.detail}`}`)
    this.url = props.url
    this.status = props.status
    this.detail = props.detail ?? null
    this.code = props.code ?? null
    this.retryAt = props.retryAt ?? null
    this.retryAfter = props.retryAfter ?? null
  }
}

/** The request never got an answer: connection refused or reset, the timeout, a broken body. */
export class NetworkError extends Error {
  readonly _tag = "NetworkError"
  override readonly name = "NetworkError"
  readonly url: string
  constructor(props: { readonly url: string; readonly cause: unknown }) {
    const cause = props.cause
    super(`Request to ${props.url} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.url = props.url
  }
}

/** A 200 whose body is not a payload this client knows, or a 304 to an unconditional request. */
export class BadPayload extends Error {
  readonly _tag = "BadPayload"
  override readonly name = "BadPayload"
  readonly url: string
  readonly reason: string
  constructor(props: { readonly url: string; readonly reason: string }) {
    super(`Unexpected answer from ${props.url}: ${props.reason}`)
    this.url = props.url
    this.reason = props.reason
  }
}

export type LoadError = RequestRejected | ServerError | NetworkError | BadPayload
