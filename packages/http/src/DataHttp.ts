/**
 * The data routes (SPEC.md "Data API", CONTRACT.md §5–§6). Each answer follows one path:
 * the plan gives the token, served as the ETag, without building anything; a matching
 * If-None-Match is an empty 304; else a stored payload whose token still holds is replayed; else
 * the payload is built, stored (the calendar only with a place label) and served. The store holds
 * JSON only: the gzip is made here (`Compression.encode`), unless the response index still has the
 * one made for the same URL and ETag.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import {
  CellData,
  type Cell,
  DataViews,
  LoginThrottle,
  type NoHistory,
  type PayloadKey,
  PayloadStore,
  type StoredPayload,
  type UpstreamError
} from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Api } from "./Api.js"
import { encode, precompressed } from "./Compression.js"
import { CACHE_CONTROL, ifNoneMatchMatches, notModified, VARY, weakEtag } from "./ConditionalGet.js"
import * as ColdCells from "./ColdCells.js"
import * as DataQuery from "./DataQuery.js"
import * as HttpMetrics from "./HttpMetrics.js"
import {
  type BadGateway,
  BadRequest,
  failWithRetryAfter,
  type GatewayTimeout,
  type NotFound,
  type ServiceUnavailable,
  TooManyRequests
} from "./Errors.js"
import { HttpSettings } from "./HttpSettings.js"
import { clientAddress } from "./RequestInfo.js"
import { ResponseIndex } from "./ResponseIndex.js"
import * as UpstreamErrors from "./UpstreamErrors.js"

const encoder = new TextEncoder()
const decoder = new TextDecoder()

type Query = DataQuery.Query

export const make = Effect.gen(function* () {
  const views = yield* DataViews.DataViews
  const store = yield* PayloadStore
  const index = yield* ResponseIndex
  const cellData = yield* CellData.CellData
  const settings = yield* HttpSettings
  const coldCells = ColdCells.make(settings.coldCellsPerClient)

  /**
   * A request that will have to fetch a new cell's history takes one of its client's slots
   * (`ColdCells`); a cell already held is answered without one.
   */
  const gate = <A, E, R>(cell: Cell.Cell, effect: Effect.Effect<A, E, R>) =>
    Effect.gen(function* () {
      if (Option.isSome(yield* cellData.heldHistory(cell))) return yield* effect
      const request = yield* HttpServerRequest.HttpServerRequest
      const client = LoginThrottle.clientNetwork(clientAddress(request, settings.trustedProxyHops))
      return yield* coldCells.admit(client, cell.key, effect)
    })

  /**
   * Stores a payload without holding the answer for the write: the table is a cache of what can
   * be rebuilt, so a failed write costs a rebuild later, never a failed request.
   */
  const keep = (key: PayloadKey, payload: StoredPayload) =>
    Effect.asVoid(
      Effect.forkDaemon(
        store.put(key, payload).pipe(Effect.catchAllCause((cause) => Effect.logWarning("could not store a payload", cause)))
      )
    )

  /** What is stored under `key`, if its token is still `token`. */
  const validStored = (key: PayloadKey, token: string) =>
    Effect.map(store.get(key), Option.filter((stored) => stored.token === token))

  /** Built now, and stored (in the background) when allowed: the value and its payload. */
  const built = <A>(plan: DataViews.Plan<A>) =>
    Effect.gen(function* () {
      const value = yield* plan.build
      const payload: StoredPayload = { token: plan.token, json: encoder.encode(JSON.stringify(value)) }
      if (plan.storable) yield* keep(plan.key, payload)
      return { value, payload }
    })

  /** What was found stored and still valid, else the payload built now. */
  const heldOrBuilt = <A>(plan: DataViews.Plan<A>, held: Option.Option<StoredPayload>) =>
    Option.match(held, { onNone: () => Effect.map(built(plan), (b) => b.payload), onSome: Effect.succeed })

  /** The stored bytes while the token holds, else built now. */
  const bytesOf = <A>(plan: DataViews.Plan<A>) =>
    Effect.flatMap(validStored(plan.key, plan.token), (held) => {
      HttpMetrics.countCacheAnswer(Option.isSome(held) ? "stored" : "built")
      return heldOrBuilt(plan, held)
    })

  /** A slice's data: read back from what is stored while its token holds, else built now (and stored). */
  const valueOf = <A>(plan: DataViews.Plan<A> | null, held: Option.Option<StoredPayload>) =>
    plan === null
      ? Effect.succeed(null)
      : Option.match(held, {
          onNone: () => Effect.map(built(plan), (b) => b.value),
          onSome: (stored) => Effect.sync(() => JSON.parse(decoder.decode(stored.json)) as A)
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
        return notModified(etag)
      }
      const payload = yield* body
      const encoded = index.encoded(request.originalUrl, etag) ?? (yield* encode(payload.json))
      index.remember(request.originalUrl, { etag, validUntil, body: encoded })
      return precompressed(request, encoded, { etag, "cache-control": CACHE_CONTROL })
    })

  const view = <A, E, R>(plan: Effect.Effect<DataViews.Plan<A>, E, R>) =>
    Effect.flatMap(plan, (p) => respond(p.token, p.validUntil, bytesOf(p)))

  const calendarRequest = (query: Query) =>
    Effect.map(
      Effect.all([DataQuery.date(query, "start"), DataQuery.date(query, "end"), DataQuery.wholeNumber(query, "months", 1200)]),
      ([start, end, months]): DataViews.CalendarRequest => ({ start, end, months })
    )

  /** The bundle: its plan is the core's; its slices are served from their own keys and tokens. */
  const bundle = (query: Query) =>
    Effect.gen(function* () {
      const cell = yield* DataQuery.cell(query)
      const prefetch = yield* DataQuery.prefetch(query)
      // Only a full bundle may fetch a new cell (prefetch never calls the weather upstream).
      const found = yield* (prefetch ? views.bundle(cell, { prefetch }) : gate(cell, views.bundle(cell, { prefetch })))
      if (Option.isNone(found)) {
        return HttpServerResponse.empty({ status: 204, headers: { "cache-control": CACHE_CONTROL, vary: VARY } })
      }
      const plan = found.value
      const { grade, forecast, calendar, day } = plan.slices
      return yield* respond(
        plan.token,
        plan.validUntil,
        Effect.gen(function* () {
          // Every read first, together: on PGlite's one connection a read issued after a
          // slice's background write would wait for it.
          const [stored, g, f, c, d] = yield* Effect.all(
            [
              validStored(plan.key, plan.token),
              ...[grade, forecast, calendar, day].map((p) => (p === null ? Effect.succeedNone : validStored(p.key, p.token)))
            ],
            { concurrency: "unbounded" }
          )
          HttpMetrics.countCacheAnswer(Option.isSome(stored) ? "stored" : "built")
          if (Option.isSome(stored)) return stored.value
          const data = yield* Effect.all({
            grade: valueOf(grade, g!),
            forecast: valueOf(forecast, f!),
            calendar: valueOf(calendar, c!),
            day: valueOf(day, d!)
          })
          const payload: StoredPayload = { token: plan.token, json: encoder.encode(JSON.stringify(plan.assemble(data))) }
          if (plan.storable) yield* keep(plan.key, payload)
          return payload
        })
      )
    })

  return { views, view, calendarRequest, bundle, gate }
})

/**
 * The core's failures as the data group's declared errors (DataApi), each with its status;
 * Retry-After on the 503s and the 429.
 */
const refail = (
  error: UpstreamError | NoHistory | DataViews.DateOutOfRange | BadRequest | ColdCells.TooManyColdCells
): Effect.Effect<never, BadRequest | NotFound | TooManyRequests | ServiceUnavailable | BadGateway | GatewayTimeout> => {
  switch (error._tag) {
    case "BadRequest":
      return Effect.fail(error)
    case "DateOutOfRange":
      return Effect.fail(
        new BadRequest({ detail: `Query parameter 'date' must be between ${error.first} and ${error.last}, got '${error.date}'.` })
      )
    case "TooManyColdCells":
      return failWithRetryAfter(new TooManyRequests({ detail: ColdCells.detail(error.limit) }), ColdCells.RETRY_AFTER_SECONDS)
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
          Effect.flatMap(DataQuery.cell(urlParams), (cell) => routes.gate(cell, routes.view(routes.views.grade(cell)))),
          refail
        )
      )
      .handle("forecast", ({ urlParams }) =>
        Effect.catchAll(
          Effect.flatMap(DataQuery.cell(urlParams), (cell) => routes.gate(cell, routes.view(routes.views.forecast(cell)))),
          refail
        )
      )
      .handle("calendar", ({ urlParams }) =>
        Effect.catchAll(
          Effect.gen(function* () {
            const cell = yield* DataQuery.cell(urlParams)
            const request = yield* routes.calendarRequest(urlParams)
            return yield* routes.gate(cell, routes.view(routes.views.calendar(cell, request)))
          }),
          refail
        )
      )
      .handle("day", ({ urlParams }) =>
        Effect.catchAll(
          Effect.gen(function* () {
            const cell = yield* DataQuery.cell(urlParams)
            const date = yield* DataQuery.date(urlParams, "date")
            return yield* routes.gate(cell, routes.view(routes.views.day(cell, date)))
          }),
          refail
        )
      )
      .handle("cell", ({ urlParams }) => Effect.catchAll(routes.bundle(urlParams), refail))
  )
)

