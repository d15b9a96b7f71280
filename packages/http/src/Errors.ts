/**
 * Errors as values with the status they map to. Each encodes to exactly `{"detail": "…"}`
 * (CONTRACT.md §2), and the same schemas document the bodies in the OpenAPI document.
 */
import { HttpApiSchema } from "@effect/platform"
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
export const ServiceUnavailableSchema = detailError(ServiceUnavailable, 503, "A dependency is unavailable")

/** Upstream faults the handlers answer directly (UpstreamErrors); declared so the OpenAPI document shows them. */
export class BadGateway extends Schema.TaggedError<BadGateway>()("BadGateway", { detail: Schema.String }) {}
export class GatewayTimeout extends Schema.TaggedError<GatewayTimeout>()("GatewayTimeout", { detail: Schema.String }) {}
export const BadGatewaySchema = detailError(BadGateway, 502, "The upstream failed or answered something unreadable")
export const GatewayTimeoutSchema = detailError(GatewayTimeout, 504, "The upstream did not answer in time")
