import * as Schema from "effect/Schema"

/** The upstream answered 429 or 503. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  source: Schema.String,
  retryAfterSeconds: Schema.Number
}) {}

/** The upstream did not answer in time. */
export class UpstreamTimeout extends Schema.TaggedError<UpstreamTimeout>()("UpstreamTimeout", {
  source: Schema.String
}) {}

/** Any other upstream failure: a 4xx or 5xx status, a malformed body, a refused connection. */
export class UpstreamFailure extends Schema.TaggedError<UpstreamFailure>()("UpstreamFailure", {
  source: Schema.String,
  reason: Schema.String
}) {}

export type UpstreamError = RateLimited | UpstreamTimeout | UpstreamFailure

/** A cell whose history holds no value at all. */
export class NoHistory extends Schema.TaggedError<NoHistory>()("NoHistory", {
  cell: Schema.String
}) {}
