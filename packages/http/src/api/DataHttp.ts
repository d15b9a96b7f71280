/**
 * The data routes (docs/api.md "Weather data"). Each answer follows one path:
 * the plan gives the token, served as the ETag, without building anything; a matching
 * If-None-Match is an empty 304; else the payload's JSON, replayed or built by the core's rule
 * (`PayloadReplay`), is gzipped here (`Compression.encode`), unless the response index still has
 * the one made for the same URL and ETag.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  type Cell,
  ClientNetwork,
  ColdCells,
  DataViews,
  type NoHistory,
  PayloadReplay,
  PayloadStore,
  PrefetchPace,
  Sessions,
  type StoredPayload,
  type UpstreamError
} from "@climate-grade/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import { Api } from "./Api.js"
import { optionalUser } from "./AuthenticationLive.js"
import { encode, precompressed } from "../protocol/Compression.js"
import { CACHE_CONTROL, DATA_CACHE_CONTROL, ifNoneMatchMatches, notModified, VARY, weakEtag } from "../protocol/ConditionalGet.js"
import * as DataQuery from "./DataQuery.js"
import * as HttpMetrics from "../edge/HttpMetrics.js"
import {
  type BadGateway,
  BadRequest,
  type GatewayTimeout,
  type NotFound,
  failWithRetryAfter,
  type ServiceUnavailable,
  TooManyRequests
} from "./Errors.js"
import { HttpSettings } from "./HttpSettings.js"
import { clientAddress } from "../protocol/RequestInfo.js"
import { ResponseIndex } from "../edge/ResponseIndex.js"
import * as UpstreamErrors from "./UpstreamErrors.js"


export const make = Effect.gen(function* () {
  const views = yield* DataViews.DataViews
  const store = yield* PayloadStore
  const index = yield* ResponseIndex
  const settings = yield* HttpSettings
  const coldCells = yield* ColdCells.ColdCells
  const sessions = yield* Sessions
  const prefetchPace = PrefetchPace.make()
  // The stored payloads' background writes: this layer's, so shutdown interrupts those under way.
  const writes = yield* FiberSet.make()

  /**
   * A request that will have to fetch a new cell's history takes one of its client's slots and is
   * paid from its share of the day (the core's rules); the session is read only then.
   */
  const gate = <A, E, R>(cell: Cell.Cell, effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      coldCells.gate(
        {
          address: clientAddress(request, settings.trustedProxyHops),
          user: optionalUser(request).pipe(
            Effect.map(Option.match({ onNone: () => null, onSome: (user) => user.id })),
            Effect.provideService(Sessions, sessions)
          )
        },
        cell,
        effect
      )
    )

  /** The bytes of an answer (the core's replay rule), counted by where they came from. */
  const counted = (replayed: Effect.Effect<PayloadReplay.Replayed, never, PayloadStore>) =>
    Effect.map(Effect.provideService(replayed, PayloadStore, store), ({ payload, tier }) => {
      HttpMetrics.countCacheAnswer(tier)
      return payload
    })

  /**
   * The answer under the ETag of the plan's token, remembered in the response index for as long
   * as that token cannot change.
   */
  const respond = (token: string, validUntil: number, body: Effect.Effect<StoredPayload>) =>
    Effect.gen(function* () {
      const etag = weakEtag(token)
      const request = yield* HttpServerRequest.HttpServerRequest
      if (ifNoneMatchMatches(request.headers["if-none-match"], etag)) {
        HttpMetrics.countCacheAnswer("not_modified")
        index.remember(request.originalUrl, { etag, validUntil })
        return notModified(etag, DATA_CACHE_CONTROL)
      }
      const payload = yield* body
      const encoded = index.encoded(request.originalUrl, etag) ?? index.bodyOf(payload.json) ?? (yield* encode(payload.json))
      index.remember(request.originalUrl, { etag, validUntil, body: encoded })
      return precompressed(request, encoded, { etag, "cache-control": DATA_CACHE_CONTROL })
    })

  const view = <A, E, R>(plan: Effect.Effect<DataViews.Plan<A>, E, R>) =>
    Effect.flatMap(plan, (p) => respond(p.token, p.validUntil, counted(PayloadReplay.view(p, writes))))

  const calendarRequest = (query: {
    readonly start?: number | undefined
    readonly end?: number | undefined
    readonly months?: number | undefined
  }): DataViews.CalendarRequest => ({
    start: Option.fromNullable(query.start),
    end: Option.fromNullable(query.end),
    months: Option.fromNullable(query.months)
  })

  /** The bundle: its plan is the core's; its slices are served from their own keys and tokens. */
  const bundle = (query: { readonly lat: number; readonly lon: number; readonly prefetch?: boolean | undefined }) =>
    Effect.gen(function* () {
      const cell = DataQuery.cellOf(query)
      const prefetch = query.prefetch === true
      // A prefetch that finds no cell held costs its client a token (the core's PrefetchPace);
      // without one, every prefetch is refused, held or not.
      const request = yield* HttpServerRequest.HttpServerRequest
      const network = prefetch ? ClientNetwork.of(clientAddress(request, settings.trustedProxyHops)) : ""
      const now = yield* Clock.currentTimeMillis
      const wait = prefetch ? prefetchPace.waitSeconds(network, now) : 0
      if (wait > 0) {
        return yield* failWithRetryAfter(
          wait,
          (retry_at) => new TooManyRequests({ detail: PrefetchPace.detail(wait), code: "too-many-requests", retry_at })
        )
      }
      // Only a full bundle may fetch a new cell (prefetch never calls the weather upstream).
      const found = yield* (prefetch ? views.bundle(cell, { prefetch }) : gate(cell, views.bundle(cell, { prefetch })))
      if (Option.isNone(found)) {
        if (prefetch) prefetchPace.take(network, now)
        // Not held yet: a shared cache must not keep this answer past the place's first load.
        return HttpServerResponse.empty({ status: 204, headers: { "cache-control": CACHE_CONTROL, vary: VARY } })
      }
      const plan = found.value
      return yield* respond(plan.token, plan.validUntil, counted(PayloadReplay.bundle(plan, writes)))
    })

  return { views, view, calendarRequest, bundle, gate }
})

/**
 * The core's failures as the data group's declared errors (DataApi), each with its status;
 * Retry-After on the 503s and the 429.
 */
const refail = (
  error: UpstreamError | NoHistory | DataViews.DateOutOfRange | BadRequest | TooManyRequests | ColdCells.TooManyColdCells
): Effect.Effect<never, BadRequest | NotFound | TooManyRequests | ServiceUnavailable | BadGateway | GatewayTimeout> => {
  switch (error._tag) {
    case "BadRequest":
    case "TooManyRequests":
      return Effect.fail(error)
    case "DateOutOfRange":
      return Effect.fail(
        new BadRequest({
          detail: `Query parameter 'date' must be between ${error.first} and ${error.last}, got '${error.date}'.`,
          code: "invalid-query"
        })
      )
    case "TooManyColdCells":
      return UpstreamErrors.tooManyColdCells(error)
    case "NoHistory":
      return UpstreamErrors.noHistory(error)
    default:
      return UpstreamErrors.fail(error)
  }
}

export const layer = HttpApiBuilder.group(Api, "data", (handlers) =>
  Effect.map(make, (routes) =>
    handlers
      .handle("grade", ({ urlParams }) =>
        Effect.catchAll(
          Effect.suspend(() => {
            const cell = DataQuery.cellOf(urlParams)
            return routes.gate(cell, routes.view(routes.views.grade(cell)))
          }),
          refail
        )
      )
      .handle("forecast", ({ urlParams }) =>
        Effect.catchAll(
          Effect.suspend(() => {
            const cell = DataQuery.cellOf(urlParams)
            return routes.gate(cell, routes.view(routes.views.forecast(cell)))
          }),
          refail
        )
      )
      .handle("calendar", ({ urlParams }) =>
        Effect.catchAll(
          Effect.gen(function* () {
            const cell = DataQuery.cellOf(urlParams)
            const request = routes.calendarRequest(urlParams)
            return yield* routes.gate(cell, routes.view(routes.views.calendar(cell, request)))
          }),
          refail
        )
      )
      .handle("day", ({ urlParams }) =>
        Effect.catchAll(
          Effect.gen(function* () {
            const cell = DataQuery.cellOf(urlParams)
            const date = Option.fromNullable(urlParams.date)
            return yield* routes.gate(cell, routes.view(routes.views.day(cell, date)))
          }),
          refail
        )
      )
      .handle("trend", ({ urlParams }) =>
        Effect.catchAll(
          Effect.suspend(() => {
            const cell = DataQuery.cellOf(urlParams)
            return routes.gate(cell, routes.view(routes.views.trend(cell)))
          }),
          refail
        )
      )
      .handle("spells", ({ urlParams }) =>
        Effect.catchAll(
          Effect.suspend(() => {
            const cell = DataQuery.cellOf(urlParams)
            return routes.gate(cell, routes.view(routes.views.spells(cell)))
          }),
          refail
        )
      )
      .handle("cell", ({ urlParams }) => Effect.catchAll(routes.bundle(urlParams), refail))
  )
)

