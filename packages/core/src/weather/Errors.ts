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

/**
 * The day's upstream budget (`WEATHER_DAILY_UNITS`) cannot pay for a new cell's history; the
 * budget's UTC day rolls over in `retryAfterSeconds`. Nothing was asked of the upstream.
 * `keptForSignedIn`: the day still has room, but only for signed-in users (`signedInUnits` of it).
 */
export class BudgetSpent extends Schema.TaggedError<BudgetSpent>()("BudgetSpent", {
  dailyUnits: Schema.Number,
  keptForSignedIn: Schema.Boolean,
  signedInUnits: Schema.Number,
  retryAfterSeconds: Schema.Number
}) {}

/**
 * The client network's (`client`) or the signed-in user's (`user`) share of the day's budget
 * (`shareUnits` of `dailyUnits`) cannot pay for a new cell's history, until the day rolls over in
 * `retryAfterSeconds`. Nothing was asked of the upstream.
 */
export class ShareSpent extends Schema.TaggedError<ShareSpent>()("ShareSpent", {
  scope: Schema.Literal("client", "user", "alerts"),
  shareUnits: Schema.Number,
  dailyUnits: Schema.Number,
  retryAfterSeconds: Schema.Number
}) {}

export type UpstreamError = RateLimited | UpstreamTimeout | UpstreamFailure | BudgetSpent | ShareSpent

/** A cell whose history holds no value at all. */
export class NoHistory extends Schema.TaggedError<NoHistory>()("NoHistory", {
  cell: Schema.String
}) {}
