/**
 * Errors as values with the status they map to. Each encodes to exactly `{"detail", "code"}`, plus
 * `"retry_at"` where the answer sends Retry-After (docs/api.md "Common rules"); the codes are the
 * core's `Refusal` table, and each error's schema lists those of its status, so the OpenAPI
 * document shows them per error response.
 */
import { HttpApiSchema, HttpApp, HttpServerResponse } from "@effect/platform"
import { Refusal } from "@climate-grade/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

type Props<C extends Refusal.Code> = { readonly detail: string; readonly code: C; readonly retry_at?: string | undefined }

/** The fields of an error whose status is `status`: its code one of that status's. */
const fields = <S extends number>(status: S) => ({
  detail: Schema.String,
  code: Schema.Literal(...(Refusal.codesOf(status) as unknown as [Refusal.CodeOf<S>, ...Array<Refusal.CodeOf<S>>])),
  retry_at: Schema.optional(Schema.String)
})

const detailError = <S extends number, Self extends Props<Refusal.CodeOf<S>>>(
  cls: new (props: Props<Refusal.CodeOf<S>>) => Self,
  status: S,
  description: string
) => {
  const codes = Refusal.codesOf(status)
  return Schema.transform(
    Schema.Struct({
      detail: Schema.String,
      code: Schema.Literal(...(codes as [Refusal.CodeOf<S>, ...Array<Refusal.CodeOf<S>>])).annotations({
        description: codes.map((code) => `\`${code}\`: ${Refusal.CODES[code].meaning}`).join("\n")
      }),
      retry_at: Schema.optional(
        Schema.String.annotations({ description: "When to try again (RFC 3339, UTC); sent with Retry-After" })
      )
    }),
    Schema.declare((u): u is Self => u instanceof cls),
    {
      strict: true,
      decode: (body) => new cls(body),
      encode: (e) => Refusal.body(e.code, e.detail, e.retry_at) as Props<Refusal.CodeOf<S>>
    }
  ).annotations({ ...HttpApiSchema.annotations({ status }), description })
}

export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", fields(400)) {}
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", fields(401)) {
  static readonly default = new Unauthorized({ detail: "Unauthorized", code: "unauthorized" })
}
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", fields(403)) {}
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", fields(404)) {}
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", fields(409)) {}
export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()("TooManyRequests", fields(429)) {}
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", fields(503)) {}

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
export class DatabaseFault extends Schema.TaggedError<DatabaseFault>()("DatabaseFault", fields(500)) {}
export const DatabaseFaultSchema = detailError(
  DatabaseFault,
  500,
  "The database refused the request's statements for a reason other than being unreachable (a damaged table, for one); logged"
)

/** Upstream faults (UpstreamErrors): the upstream answered something unusable, or nothing in time. */
export class BadGateway extends Schema.TaggedError<BadGateway>()("BadGateway", fields(502)) {}
export class GatewayTimeout extends Schema.TaggedError<GatewayTimeout>()("GatewayTimeout", fields(504)) {}
export const BadGatewaySchema = detailError(BadGateway, 502, "The upstream failed or answered something unreadable")
export const GatewayTimeoutSchema = detailError(GatewayTimeout, 504, "The upstream did not answer in time")

/**
 * Refusals made before the API decodes a request (RequestBody, the front door), for every
 * POST/PUT/PATCH/DELETE whether or not the route reads its body; declared so the document shows them.
 */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", fields(413)) {}
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", fields(415)) {}
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
 * The OpenAPI document with the whole set of refusal codes as the component `Refusal`: the codes
 * each error response lists, and those the edge may answer before any route (405, 408, 431, a
 * client's connections past its cap), each with what it means.
 */
export const documented = (spec: Record<string, unknown>): Record<string, unknown> => {
  const doc = structuredClone(spec) as { components?: { schemas?: Record<string, unknown> } }
  const schemas = { ...doc.components?.schemas }
  doc.components = { ...doc.components, schemas }
  schemas.Refusal = {
    type: "object",
    description:
      "Every 4xx and 5xx body: `detail` for people, `code` for programs, `retry_at` wherever Retry-After is sent.",
    required: ["detail", "code"],
    properties: {
      detail: { type: "string" },
      code: {
        type: "string",
        enum: [...Refusal.ALL],
        description: Refusal.ALL.map((code) => `\`${code}\` (${Refusal.CODES[code].status}): ${Refusal.CODES[code].meaning}`).join("\n")
      },
      retry_at: { type: "string", description: "When to try again (RFC 3339, UTC); sent with Retry-After" }
    },
    additionalProperties: false
  }
  return doc as Record<string, unknown>
}

/**
 * Sets `Retry-After` on the answer to the current request, error answers included: an error's
 * schema gives its status and JSON body only (HttpApiBuilder encodes nothing else), so the header
 * is added to the final response. Use it only where the request is sure to fail with that error.
 */
export const retryAfter = (seconds: number): Effect.Effect<void> =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(seconds)))
  )

/**
 * Fails with the error `make` builds from the moment the wait ends (its `retry_at`), its answer
 * carrying `Retry-After` with the wait in whole seconds (at least 1). `seconds` may be fractional:
 * `retry_at` is then the exact moment (the day's budget opens at 00:00:00 UTC, not a second after).
 */
export const failWithRetryAfter = <E>(seconds: number, make: (retry_at: string) => E): Effect.Effect<never, E> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Effect.zipRight(retryAfter(Math.max(1, Math.ceil(seconds))), Effect.fail(make(Refusal.retryAt(now, seconds))))
  )
