/**
 * The client as an Effect program over its ports (CacheStore, HttpPort, Clock): every rule of
 * CONTRACT.md §7. `index.ts` wraps it in the Promise surface.
 */
import { PAYLOAD_VER } from "@climate-grade/core/data/PayloadVersion"
import {
  BundlePayload,
  CalendarPayload,
  CellInfo,
  DayPayload,
  ForecastPayload,
  GradePayload
} from "@climate-grade/core/data/Payloads"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { HttpPort, type NetworkError } from "./Http.js"
import {
  bundleKey,
  type CellCoordinates,
  cellOf,
  neighbours,
  prefetchPath,
  sliceKeys,
  VIEWS,
  type ViewName,
  viewKey
} from "./Keys.js"
import { pruneBefore } from "./Pruning.js"
import { CacheStore, type StoredEntry, StoredEntry as StoredEntrySchema, type StorageFailure } from "./Store.js"

export type Source = "network" | "revalidated" | "cache" | "stale"

export interface Result {
  readonly data: unknown
  readonly etag: string | null
  readonly source: Source
  readonly storedAt: number
}

export interface Loaded {
  readonly cell: CellInfo
  readonly grade: Result | null
  readonly forecast: Result | null
  readonly calendar: Result
  readonly day: Result
}

/** The server refused the request (4xx): nothing is kept, the call rejects. */
export class RequestRejected extends Data.TaggedError("RequestRejected")<{
  readonly url: string
  readonly status: number
  readonly detail: string
}> {
  override get message() {
    return `${this.status} from ${this.url}: ${this.detail}`
  }
}

/** 5xx, or a status this client has no use for, with no stored copy to fall back on. */
export class ServerError extends Data.TaggedError("ServerError")<{ readonly url: string; readonly status: number }> {
  override get message() {
    return `${this.status} from ${this.url}`
  }
}

/** A 200 whose body is not the payload this client knows (CONTRACT.md §5). */
export class BadPayload extends Data.TaggedError("BadPayload")<{ readonly url: string; readonly reason: string }> {
  override get message() {
    return `Unexpected answer from ${this.url}: ${this.reason}`
  }
}

export type LoadError = NetworkError | ServerError | BadPayload | RequestRejected

export interface ClientConfig {
  /** e.g. `http://127.0.0.1:8080/api/v2`, without a trailing slash. */
  readonly baseUrl: string
  /** Already raised to at least 1100 ms. */
  readonly neighbourSpacingMs: number
}

export const MIN_NEIGHBOUR_SPACING_MS = 1100

const fits: Readonly<Record<ViewName, (u: unknown) => boolean>> = {
  grade: Schema.is(GradePayload),
  forecast: Schema.is(ForecastPayload),
  calendar: Schema.is(CalendarPayload),
  day: Schema.is(DayPayload)
}
const isBundle = Schema.is(BundlePayload)
const isStoredEntry = Schema.is(StoredEntrySchema)

const NullableEtag = Schema.NullOr(Schema.String)
/** What a bundle's own entry holds: the cell and its slices' ETags; the bodies live under the views' keys. */
const BundleIndex = Schema.Struct({
  cell: CellInfo,
  etags: Schema.Struct({ grade: NullableEtag, forecast: NullableEtag, calendar: Schema.String, day: Schema.String })
})
type BundleIndex = typeof BundleIndex.Type
const isBundleIndex = Schema.is(BundleIndex)

const payloadVersion = (data: unknown): unknown => (data as { readonly v?: unknown }).v

/**
 * One request per key at a time: a second caller for a key in flight awaits the first one's outcome.
 * The work runs in the client's scope, not the caller's, so one caller giving up does not cancel it
 * for the others; closing the client does.
 */
const singleFlight = <A, E>(scope: Scope.Scope) => {
  const flights = new Map<string, Deferred.Deferred<A, E>>()
  return (key: string, work: Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.suspend(() => {
      const running = flights.get(key)
      if (running !== undefined) return Deferred.await(running)
      const deferred = Deferred.unsafeMake<A, E>(FiberId.none)
      flights.set(key, deferred)
      return work.pipe(
        Effect.exit,
        Effect.flatMap((exit) => {
          flights.delete(key)
          return Deferred.done(deferred, exit)
        }),
        Effect.forkIn(scope),
        Effect.zipRight(Deferred.await(deferred))
      )
    })
}

const detailOf = (body: unknown): string => {
  if (typeof body === "string") {
    try {
      const parsed: unknown = JSON.parse(body)
      if (typeof parsed === "object" && parsed !== null && typeof (parsed as { detail?: unknown }).detail === "string") {
        return (parsed as { detail: string }).detail
      }
    } catch {
      // not JSON: the text itself is the best detail there is
    }
    return body.slice(0, 200)
  }
  return "request refused"
}

export const make = (config: ClientConfig) =>
  Effect.gen(function* () {
    const store = yield* CacheStore
    const http = yield* HttpPort
    const scope = yield* Effect.scope
    const viewFlight = singleFlight<Result, LoadError>(scope)
    const bundleFlight = singleFlight<Loaded, LoadError>(scope)
    const urlOf = (key: string) => `${config.baseUrl}${key}`
    let warmUp: Fiber.RuntimeFiber<void> | undefined
    /** Counts loads, so only the latest one's neighbours are warmed. */
    let generation = 0

    /** A stored entry that still decodes, has this client's payload version and fits; anything else is dropped. */
    const read = (key: string, v: number, fitsData: (data: unknown) => boolean) =>
      store.get(key).pipe(
        // A store that cannot be read is a store with nothing in it: the network answers instead.
        Effect.orElseSucceed(() => undefined),
        Effect.flatMap((raw) => {
          if (raw === undefined || raw === null) return Effect.succeed(Option.none<StoredEntry>())
          if (isStoredEntry(raw) && raw.key === key && raw.v === v && fitsData(raw.data)) {
            return Effect.succeed(Option.some(raw))
          }
          return Effect.as(Effect.ignore(store.delete(key)), Option.none<StoredEntry>())
        })
      )

    const readView = (view: ViewName, key: string) =>
      read(key, PAYLOAD_VER[view], (data) => fits[view](data) && payloadVersion(data) === PAYLOAD_VER[view])

    /** LRU eviction after a quota error: the least recently used half of the other entries. */
    const evictFor = (keep: string) =>
      Effect.gen(function* () {
        const others = (yield* store.byLastAccess()).filter((r) => r.key !== keep)
        const victims = others.slice(0, Math.max(1, Math.ceil(others.length / 2)))
        yield* Effect.forEach(victims, (r) => store.delete(r.key), { discard: true })
      })

    /**
     * A failed write never fails the call: the caller has its data either way. A quota error drops
     * LRU entries and retries the write once.
     */
    const write = (entry: StoredEntry) =>
      store.put(entry).pipe(
        Effect.catchTag("QuotaExceeded", () => Effect.zipRight(evictFor(entry.key), store.put(entry))),
        Effect.catchAll((e) => Effect.logDebug("client: cache write dropped", e))
      )

    const touch = (entry: StoredEntry, now: number, confirmed: boolean) =>
      write({ ...entry, lastAccess: now, storedAt: confirmed ? now : entry.storedAt })

    const resultOf = (entry: StoredEntry, source: Source): Result => ({
      data: entry.data,
      etag: entry.etag,
      source,
      storedAt: entry.storedAt
    })

    const fallBack = (stored: Option.Option<StoredEntry>, error: LoadError) =>
      Option.match(stored, {
        onNone: () => Effect.fail(error),
        onSome: (entry) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.as(touch(entry, now, false), resultOf(entry, "stale"))
          )
      })

    const rejected = (key: string, url: string, status: number, body: unknown) =>
      Effect.zipRight(
        Effect.ignore(store.delete(key)),
        Effect.fail(new RequestRejected({ url, status, detail: detailOf(body) }))
      )

    /** One view request: conditional when a copy is stored (CONTRACT.md §7 "Revalidation"). */
    const fetchView = (view: ViewName, key: string, retried: boolean): Effect.Effect<Result, LoadError> =>
      Effect.gen(function* () {
        const stored = retried ? Option.none<StoredEntry>() : yield* readView(view, key)
        const url = urlOf(key)
        const answer = yield* Effect.either(http.get(url, Option.getOrNull(Option.map(stored, (e) => e.etag))))
        if (answer._tag === "Left") return yield* fallBack(stored, answer.left)
        const { status, etag, body } = answer.right
        const now = yield* Clock.currentTimeMillis
        if (status === 200) {
          if (!fits[view](body)) return yield* fallBack(stored, new BadPayload({ url, reason: `not a ${view} payload` }))
          const entry: StoredEntry = { key, etag, v: payloadVersion(body) as number, data: body, storedAt: now, lastAccess: now }
          yield* write(entry)
          return resultOf(entry, "network")
        }
        if (status === 304) {
          if (Option.isSome(stored)) {
            const entry = { ...stored.value, etag: etag ?? stored.value.etag, storedAt: now, lastAccess: now }
            yield* write(entry)
            return resultOf(entry, "revalidated")
          }
          // Nothing to keep the body of: ask once more, unconditionally.
          if (!retried) return yield* fetchView(view, key, true)
          return yield* Effect.fail(new BadPayload({ url, reason: "304 to an unconditional request" }))
        }
        if (status >= 400 && status < 500) return yield* rejected(key, url, status, body)
        return yield* fallBack(stored, new ServerError({ url, status }))
      })

    const view = (view: ViewName, lat: number, lon: number, params: Readonly<Record<string, string>> = {}) => {
      const key = viewKey(view, lat, lon, params)
      return viewFlight(key, fetchView(view, key, false))
    }

    /** The stored copy of a view, if any (touched: reading is an access). */
    const cached = (view: ViewName, lat: number, lon: number, params: Readonly<Record<string, string>> = {}) =>
      Effect.gen(function* () {
        const stored = yield* readView(view, viewKey(view, lat, lon, params))
        if (Option.isNone(stored)) return Option.none<Result>()
        yield* touch(stored.value, yield* Clock.currentTimeMillis, false)
        return Option.some(resultOf(stored.value, "cache"))
      })

    /** A stored bundle whose slices are all still stored with the ETags it names. */
    const readBundle = (cell: CellCoordinates) =>
      Effect.gen(function* () {
        const index = yield* read(bundleKey(cell), PAYLOAD_VER.bundle, isBundleIndex)
        if (Option.isNone(index)) return Option.none()
        const etags = (index.value.data as BundleIndex).etags
        const keys = sliceKeys(cell)
        const slices: Partial<Record<ViewName, StoredEntry | null>> = {}
        for (const v of VIEWS) {
          if (etags[v] === null) {
            slices[v] = null
            continue
          }
          const slice = yield* readView(v, keys[v])
          if (Option.isNone(slice) || slice.value.etag !== etags[v]) return Option.none()
          slices[v] = slice.value
        }
        return Option.some({ index: index.value, slices: slices as Record<ViewName, StoredEntry | null> })
      })

    type StoredBundle = Option.Option.Value<Effect.Effect.Success<ReturnType<typeof readBundle>>>

    const loadedFrom = (bundle: StoredBundle, source: Source, now: number, confirmed: boolean) =>
      Effect.gen(function* () {
        const results: Partial<Record<ViewName, Result | null>> = {}
        for (const v of VIEWS) {
          const entry = bundle.slices[v]
          if (entry === null) {
            results[v] = null
            continue
          }
          yield* touch(entry, now, confirmed)
          results[v] = resultOf(confirmed ? { ...entry, storedAt: now } : entry, source)
        }
        yield* touch(bundle.index, now, confirmed)
        const { grade, forecast, calendar, day } = results as Record<ViewName, Result | null>
        return { cell: (bundle.index.data as BundleIndex).cell, grade, forecast, calendar: calendar!, day: day! } satisfies Loaded
      })

    /**
     * The stored bundle of a cell as `cache` results, with no request and no write: what a page can
     * show at once while `load` revalidates (SPEC.md "Client behaviour": a cached copy is shown
     * immediately). Reading it is not an access; the `load` that follows touches what it confirms.
     */
    const peek = (lat: number, lon: number) =>
      Effect.map(readBundle(cellOf(lat, lon)), (stored) =>
        Option.map(stored, (bundle): Loaded => {
          const result = (v: ViewName) => {
            const entry = bundle.slices[v]
            return entry === null ? null : resultOf(entry, "cache")
          }
          return {
            cell: (bundle.index.data as BundleIndex).cell,
            grade: result("grade"),
            forecast: result("forecast"),
            calendar: result("calendar")!,
            day: result("day")!
          }
        })
      )

    /** One `/cell` request (CONTRACT.md §7 "Bundle"): conditional when a whole bundle is stored. */
    const fetchBundle = (cell: CellCoordinates, retried: boolean): Effect.Effect<Loaded, LoadError> =>
      Effect.gen(function* () {
        const key = bundleKey(cell)
        const url = urlOf(key)
        const stored = retried ? Option.none<StoredBundle>() : yield* readBundle(cell)
        const answer = yield* Effect.either(http.get(url, Option.getOrNull(Option.map(stored, (b) => b.index.etag))))
        const stale = (error: LoadError) =>
          Option.match(stored, {
            onNone: () => Effect.fail(error),
            onSome: (b) => Effect.flatMap(Clock.currentTimeMillis, (now) => loadedFrom(b, "stale", now, false))
          })
        if (answer._tag === "Left") return yield* stale(answer.left)
        const { status, etag, body } = answer.right
        const now = yield* Clock.currentTimeMillis
        if (status === 200) {
          if (!isBundle(body) || body.calendar === null || body.day === null) {
            return yield* stale(new BadPayload({ url, reason: "not a full bundle" }))
          }
          const keys = sliceKeys(cell)
          const results: Partial<Record<ViewName, Result | null>> = {}
          for (const v of VIEWS) {
            const slice = body[v]
            if (slice === null) {
              results[v] = null
              continue
            }
            const entry: StoredEntry = {
              key: keys[v],
              etag: slice.etag,
              v: slice.data.v,
              data: slice.data,
              storedAt: now,
              lastAccess: now
            }
            yield* write(entry)
            results[v] = resultOf(entry, "network")
          }
          const index: BundleIndex = {
            cell: body.cell,
            etags: {
              grade: body.grade?.etag ?? null,
              forecast: body.forecast?.etag ?? null,
              calendar: body.calendar.etag,
              day: body.day.etag
            }
          }
          yield* write({ key, etag, v: body.v, data: index, storedAt: now, lastAccess: now })
          const { grade, forecast, calendar, day } = results as Record<ViewName, Result | null>
          return { cell: body.cell, grade, forecast, calendar: calendar!, day: day! } satisfies Loaded
        }
        if (status === 304) {
          if (Option.isSome(stored)) return yield* loadedFrom(stored.value, "revalidated", now, true)
          if (!retried) return yield* fetchBundle(cell, true)
          return yield* Effect.fail(new BadPayload({ url, reason: "304 to an unconditional request" }))
        }
        if (status >= 400 && status < 500) return yield* rejected(key, url, status, body)
        return yield* stale(new ServerError({ url, status }))
      })

    /** A neighbour's warm-up: `prefetch=1`; its history-derived slices are stored under their views' keys. */
    const prefetch = (cell: CellCoordinates) =>
      Effect.gen(function* () {
        const url = urlOf(prefetchPath(cell))
        const answer = yield* http.get(url, null)
        if (answer.status !== 200 || !isBundle(answer.body)) return // 204: no history held, nothing to store
        const body = answer.body
        const now = yield* Clock.currentTimeMillis
        if (body.calendar !== null) {
          const data = body.calendar.data
          yield* write({ key: sliceKeys(cell).calendar, etag: body.calendar.etag, v: data.v, data, storedAt: now, lastAccess: now })
        }
        if (body.day !== null) {
          // The warm-up's day is the record's last day, not today: stored under its explicit date.
          const data = body.day.data
          const key = viewKey("day", cell.lat, cell.lon, { date: data.date })
          yield* write({ key, etag: body.day.etag, v: data.v, data, storedAt: now, lastAccess: now })
        }
      })

    /**
     * The 8 neighbours, one at a time, each start at least the spacing after the previous request
     * (the first after the load's own). A few ms over the spacing, because timers may fire up to a
     * millisecond early.
     */
    const warm = (cell: CellCoordinates) =>
      Effect.forEach(
        neighbours(cell),
        (n) => Effect.zipRight(Effect.sleep(config.neighbourSpacingMs + 5), Effect.ignore(prefetch(n))),
        { discard: true }
      )

    /** Interrupting the warm-up fiber aborts its request in flight (Http.fromFetch). */
    const cancelWarmUp = Effect.suspend(() => {
      const fiber = warmUp
      warmUp = undefined
      return fiber === undefined ? Effect.void : Fiber.interrupt(fiber)
    }).pipe(Effect.asVoid)

    const load = (lat: number, lon: number) =>
      Effect.gen(function* () {
        const mine = ++generation
        yield* cancelWarmUp
        const cell = cellOf(lat, lon)
        const loaded = yield* bundleFlight(bundleKey(cell), fetchBundle(cell, false))
        // A later load may have started while this one waited: only the latest one warms.
        if (mine === generation) {
          yield* cancelWarmUp
          warmUp = yield* Effect.forkIn(warm(cell), scope)
        }
        return loaded
      })

    /** Removes entries not accessed for 14 days; the count removed. */
    const prune: Effect.Effect<number, StorageFailure> = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const old = yield* store.byLastAccess({ before: pruneBefore(now) })
      yield* Effect.forEach(old, (r) => store.delete(r.key), { discard: true })
      return old.length
    })

    return { load, peek, view, cached, cancelWarmUp, prune } as const
  })

export type ClientProgram = Effect.Effect.Success<ReturnType<typeof make>>
