/**
 * Errors as values with the status they map to. Each encodes to exactly `{"detail": "…"}`
 * (docs/api.md "Common rules"), and the same schemas document the bodies in the OpenAPI document.
 */
import { HttpApiSchema, HttpApp, HttpServerResponse } from "@effect/platform"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const Body = Schema.Struct({ detail: Schema.String })

const detailError = <Self extends { readonly detail: string }>(
  cls: new (props: { readonly detail: string }) => Self,
  status: number,
  description: string
) =>
  Schema.transform(Body, Schema.declare((u): u is Self => u instanceof cls), {
    strict: true,
    decode: ({ detail }) => new cls({ detail }),
    encode: (e) => ({ detail: e.detail })
  }).annotations({ ...HttpApiSchema.annotations({ status }), description })

export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", { detail: Schema.String }) {}
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", { detail: Schema.String }) {
  static readonly default = new Unauthorized({ detail: "Unauthorized" })
}
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", { detail: Schema.String }) {}
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { detail: Schema.String }) {}
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", { detail: Schema.String }) {}
export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()("TooManyRequests", { detail: Schema.String }) {}
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", {
  detail: Schema.String
}) {}

export const BadRequestSchema = detailError(BadRequest, 400, "A request value is missing or malformed")
export const UnauthorizedSchema = detailError(Unauthorized, 401, "No valid session, or the user is inactive")
export const ForbiddenSchema = detailError(Forbidden, 403, "A browser request from another site (Origin / Sec-Fetch-Site)")
export const NotFoundSchema = detailError(NotFound, 404, "No such resource")
export const ConflictSchema = detailError(Conflict, 409, "The request conflicts with the current state")
export const TooManyRequestsSchema = detailError(
  TooManyRequests,
  429,
  "Too many attempts; the Retry-After header says how many seconds to wait"
)
export const ServiceUnavailableSchema = detailError(
  ServiceUnavailable,
  503,
  "A dependency (the database, an upstream) is unavailable; Retry-After, when sent, says how many seconds to wait"
)

/**
 * The database answered a statement with a refusal that is no outage (a damaged page, a broken
 * constraint): retrying will not help. Answered by AppMiddleware with a generic detail, the
 * fault itself logged; declared on every route that reads the database.
 */
export class DatabaseFault extends Schema.TaggedError<DatabaseFault>()("DatabaseFault", { detail: Schema.String }) {}
export const DatabaseFaultSchema = detailError(
  DatabaseFault,
  500,
  "The database refused the request's statements for a reason other than being unreachable (a damaged table, for one); logged"
)

/** Upstream faults (UpstreamErrors): the upstream answered something unusable, or nothing in time. */
export class BadGateway extends Schema.TaggedError<BadGateway>()("BadGateway", { detail: Schema.String }) {}
export class GatewayTimeout extends Schema.TaggedError<GatewayTimeout>()("GatewayTimeout", { detail: Schema.String }) {}
export const BadGatewaySchema = detailError(BadGateway, 502, "The upstream failed or answered something unreadable")
export const GatewayTimeoutSchema = detailError(GatewayTimeout, 504, "The upstream did not answer in time")

/**
 * Refusals made before the API decodes a request (RequestBody, the front door), for every
 * POST/PUT/PATCH/DELETE whether or not the route reads its body; declared so the document shows them.
 */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", { detail: Schema.String }) {}
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  detail: Schema.String
}) {}
export const PayloadTooLargeSchema = detailError(PayloadTooLarge, 413, "The request body is larger than 64 KB")
export const UnsupportedMediaTypeSchema = detailError(
  UnsupportedMediaType,
  415,
  "A request body that is not Content-Type: application/json"
)

/**
 * What every POST and DELETE may be answered before its handler runs, whether or not it reads a
 * body: 403 when a browser sends it from another site (CrossSite), 415 for a body that is not
 * JSON and 413 for one over 64 KB (the front door, RequestBody), 400 for a body that is not JSON
 * text or nests too deep (RequestBody) or that the route cannot decode (DecodeErrors).
 */
export const StateChangeRefusalsSchema = Schema.Union(
  BadRequestSchema,
  ForbiddenSchema,
  PayloadTooLargeSchema,
  UnsupportedMediaTypeSchema
)

/**
 * Sets `Retry-After` on the answer to the current request, error answers included: an error's
 * schema gives its status and JSON body only (HttpApiBuilder encodes nothing else), so the header
 * is added to the final response. Use it only where the request is sure to fail with that error.
 */
export const retryAfter = (seconds: number): Effect.Effect<void> =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(seconds)))
  )

/** Fails with `error`, its answer carrying `Retry-After: seconds`. */
export const failWithRetryAfter = <E>(error: E, seconds: number): Effect.Effect<never, E> =>
  Effect.zipRight(retryAfter(seconds), Effect.fail(error))
