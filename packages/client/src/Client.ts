/**
 * The client (docs/architecture.md "Client library"): Promises and AbortSignals over a store,
 * `fetch` and a clock, acting on the plain rules of Keys, Revalidation, Pruning and Payload.
 */
import { PAYLOAD_VER } from "@climate-grade/core/data/PayloadVersion"
import { Refusal } from "@climate-grade/core/rules"
import { BadPayload, type LoadError, NetworkError, RequestRejected, ServerError } from "./Errors.js"
import * as Http from "./Http.js"
import { valueOf } from "./JsonText.js"
import {
  bundleKey,
  type CellCoordinates,
  cellOf,
  neighbourSpacing,
  neighbours,
  prefetchPath,
  sliceKeys,
  viewKey
} from "./Keys.js"
import * as MemoryStore from "./MemoryStore.js"
import { type CellInfo, isCell, isStoredEntry, parsePayload, payloadMembers, splitBundle } from "./Payload.js"
import { evictionVictims, expired, pruneBefore } from "./Pruning.js"
import { outcome } from "./Revalidation.js"
import { QuotaExceeded, StorageFailure, type Store, type StoredEntry } from "./Store.js"
import { isViewName, SLICES, type SliceName, VIEW_NAMES, type ViewName } from "./Views.js"

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

export interface ClientOptions {
  /** e.g. "http://127.0.0.1:8080/api/v2" */
  readonly baseUrl: string
  /** Default `memoryStore()`. */
  readonly store?: Store
  /** Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch
  /** Epoch ms; default `Date.now`. Stored-at times, last access and pruning use it; waits use real time. */
  readonly now?: () => number
  /** Default 1100; values below 1100 are raised to 1100. */
  readonly neighbourSpacingMs?: number
  /** How long a request may take before it counts as a network failure; default 45 s (a cold cell's history can take 30 s upstream). */
  readonly timeoutMs?: number
}

/** A caller's signal stops its own wait (the call rejects with the signal's reason), not a request others share. */
export interface CallOptions {
  readonly signal?: AbortSignal
}

export interface Client {
  /** The bundle once (one `/cell`), seeding every view; then the neighbours are warmed. */
  load(lat: number, lon: number, options?: CallOptions): Promise<Loaded>
  /** The stored bundle of the cell (source `cache`), or null; no request, no write. */
  peek(lat: number, lon: number): Promise<Loaded | null>
  /** The stored copy revalidated, else fetched. */
  view(view: ViewName, lat: number, lon: number, params?: Record<string, string>, options?: CallOptions): Promise<Result>
  /** The stored copy first (if any), then the outcome of `view`. */
  watch(view: ViewName, lat: number, lon: number, params?: Record<string, string>): AsyncIterable<Result>
  cancelWarmUp(): void
  /** Removes the entries not accessed for 14 days; the count removed. */
  prune(): Promise<number>
  close(): Promise<void>
}

/** A stored view that checked out: its entry and its payload, parsed. */
interface Held {
  readonly entry: StoredEntry
  readonly data: unknown
}

/** A stored bundle whose slices are all still stored with the ETags it names. */
interface HeldBundle {
  readonly index: StoredEntry
  readonly cell: CellInfo
  readonly slices: Readonly<Record<SliceName, Held | null>>
}

/** What a bundle's own entry holds: the cell and its slices' ETags; the bodies live under the views' keys. */
interface BundleIndex {
  readonly cell: CellInfo
  readonly etags: Readonly<Record<SliceName, string | null>>
}

const isStoreError = (e: unknown): boolean => e instanceof QuotaExceeded || e instanceof StorageFailure

/** Store faults are expected (a full or broken store): the network answers instead. Anything else is a bug, thrown on. */
const unlessStoreError = (e: unknown): void => {
  if (!isStoreError(e)) throw e
}

const closedError = () => new Error("The client is closed.")

/** Waits `ms` of real time, or less if `signal` aborts first. */
const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener("abort", done)
      resolve()
    }
    signal.addEventListener("abort", done)
  })

/** Gives the main thread back between steps of background work (input, rendering, other tasks). */
const yieldToMain = (): Promise<void> => {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler
  return scheduler?.yield !== undefined ? scheduler.yield() : new Promise((resolve) => setTimeout(resolve, 0))
}

/** `promise`, or the signal's reason as soon as it aborts. */
const abandonable = <A>(promise: Promise<A>, signal: AbortSignal): Promise<A> =>
  new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason)
    if (signal.aborted) return abort()
    signal.addEventListener("abort", abort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort))
  })

/** A 4xx's or 5xx's `{detail, code, retry_at}` (core `Refusal`), with `retry_at` else the moment `Retry-After` counts to. */
const refusalOf = (answer: Http.Answer) => {
  const refusal = Refusal.read(answer.text)
  const retryAt = refusal.retryAt ?? (answer.retryAfter === null ? null : answer.receivedAt + answer.retryAfter * 1000)
  return { ...refusal, retryAt }
}

/** The code of a refusal, which decides what becomes of a stored copy (`Revalidation.outcome`). */
const codeOf = (answer: Http.Answer): Refusal.Code | null => (answer.status >= 400 ? Refusal.read(answer.text).code : null)

const rejection = (url: string, answer: Http.Answer) => {
  const { code, detail, retryAt } = refusalOf(answer)
  return new RequestRejected({
    url,
    status: answer.status,
    detail: detail ?? (answer.text?.slice(0, 200) || "request refused"),
    code,
    retryAt,
    retryAfter: answer.retryAfter
  })
}

/** A refusal to wait for is a RequestRejected as any 4xx; a 5xx or an unusable status a ServerError. */
const serverError = (url: string, answer: Http.Answer) => {
  if (answer.status === 304) return new BadPayload({ url, reason: "304 to an unconditional request" })
  if (answer.status >= 400 && answer.status < 500) return rejection(url, answer)
  const { code, detail, retryAt } = refusalOf(answer)
  return new ServerError({ url, status: answer.status, detail, code, retryAt, retryAfter: answer.retryAfter })
}

const result = (entry: StoredEntry, data: unknown, source: Source): Result => ({
  data,
  etag: entry.etag,
  source,
  storedAt: entry.storedAt
})

export const createClient = (options: ClientOptions): Client => {
  const store = options.store ?? MemoryStore.make()
  const get = Http.fromFetch(options.fetch ?? ((input, init) => globalThis.fetch(input, init)), options.timeoutMs ?? 45_000)
  const now = options.now ?? Date.now
  const baseUrl = options.baseUrl.replace(/\/+$/, "")
  const spacing = neighbourSpacing(options.neighbourSpacingMs)
  const urlOf = (key: string) => `${baseUrl}${key}`
  /** Aborted by close(): every request in flight. */
  const closing = new AbortController()
  let closed = false
  let warmUp: AbortController | undefined
  /** The warm-up running (or stopping): close() waits for it, so no write of it lands after the store is closed. */
  let warming: Promise<void> = Promise.resolve()
  /** Counts loads, so only the latest one's neighbours are warmed. */
  let generation = 0
  /** One request per key at a time: later callers share the first one's promise. */
  const flights = new Map<string, Promise<unknown>>()

  // ---- the store, with its faults absorbed: a cache that cannot read or write still answers.

  const read = async (keys: ReadonlyArray<string>): Promise<ReadonlyArray<unknown>> => {
    try {
      return await store.get(keys)
    } catch (e) {
      unlessStoreError(e)
      return keys.map(() => undefined)
    }
  }

  const drop = async (keys: ReadonlyArray<string>): Promise<void> => {
    await store.delete(keys).catch(unlessStoreError)
  }

  /**
   * Writes `entries` in one transaction. A quota error drops the least recently used entries and
   * retries once; a write that fails anyway is skipped (the caller has its data either way).
   */
  const write = async (entries: ReadonlyArray<StoredEntry>): Promise<void> => {
    try {
      await store.put(entries)
    } catch (e) {
      if (!(e instanceof QuotaExceeded)) return unlessStoreError(e)
      try {
        await store.delete(evictionVictims(await store.byLastAccess(), new Set(entries.map((entry) => entry.key))))
        await store.put(entries)
      } catch (again) {
        unlessStoreError(again)
      }
    }
  }

  /** The stored entry `raw` of `view` under `key` when it checks out, parsed; anything else there is dropped. */
  const held = (view: ViewName, key: string, raw: unknown): Held | null => {
    if (raw === undefined || raw === null) return null
    const data = isStoredEntry(raw, key, PAYLOAD_VER[view]) ? parsePayload(view, raw.text) : undefined
    if (data === undefined) {
      void drop([key])
      return null
    }
    return { entry: raw as StoredEntry, data }
  }

  // ---- views

  /** The stored copy after a failed or unusable answer (its body as it is, last access touched), else `error`. */
  const stale = async (stored: Held | null, error: LoadError): Promise<Result> => {
    if (stored === null) throw error
    const entry = { ...stored.entry, lastAccess: now() }
    await write([entry])
    return result(entry, stored.data, "stale")
  }

  /** One view request, conditional when a copy is stored (the outcome: `Revalidation`). */
  const fetchView = async (view: ViewName, key: string, retried: boolean): Promise<Result> => {
    const stored = retried ? null : held(view, key, (await read([key]))[0])
    const url = urlOf(key)
    let answer: Http.Answer
    try {
      answer = await get(url, stored?.entry.etag ?? null, closing.signal)
    } catch (e) {
      if (e instanceof NetworkError) return stale(stored, e)
      throw e
    }
    const at = now()
    switch (outcome(answer.status, stored !== null, retried, codeOf(answer))) {
      case "network": {
        const text = answer.text ?? ""
        const data = parsePayload(view, text)
        if (data === undefined) return stale(stored, new BadPayload({ url, reason: `not a ${view} payload` }))
        const entry: StoredEntry = { key, etag: answer.etag, v: PAYLOAD_VER[view], text, storedAt: at, lastAccess: at }
        await write([entry])
        return result(entry, data, "network")
      }
      case "revalidated": {
        const entry = { ...stored!.entry, etag: answer.etag ?? stored!.entry.etag, storedAt: at, lastAccess: at }
        await write([entry])
        return result(entry, stored!.data, "revalidated")
      }
      case "refetch":
        return fetchView(view, key, true)
      case "rejected":
        await drop([key])
        throw rejection(url, answer)
      default:
        return stale(stored, serverError(url, answer))
    }
  }

  // ---- bundles

  const readBundle = async (cell: CellCoordinates): Promise<HeldBundle | null> => {
    const key = bundleKey(cell)
    const keys = sliceKeys(cell)
    const [rawIndex, ...rawSlices] = await read([key, ...SLICES.map((s) => keys[s])])
    if (rawIndex === undefined || rawIndex === null) return null
    const index = isStoredEntry(rawIndex, key, PAYLOAD_VER.bundle) ? readIndex(rawIndex.text) : null
    if (index === null) {
      void drop([key])
      return null
    }
    const slices: Partial<Record<SliceName, Held | null>> = {}
    for (const [i, name] of SLICES.entries()) {
      const etag = index.etags[name]
      if (etag === null) {
        slices[name] = null
        continue
      }
      const slice = held(name, keys[name], rawSlices[i])
      if (slice === null || slice.entry.etag !== etag) return null
      slices[name] = slice
    }
    return { index: rawIndex as StoredEntry, cell: index.cell, slices: slices as Record<SliceName, Held | null> }
  }

  const readIndex = (text: string): BundleIndex | null => {
    let index: Partial<BundleIndex> | null
    try {
      index = JSON.parse(text) as Partial<BundleIndex> | null
    } catch {
      return null // not JSON: the caller drops the entry
    }
    const etags = index?.etags as Readonly<Record<string, unknown>> | undefined
    if (!isCell(index?.cell) || typeof etags !== "object" || etags === null) return null
    // Grade and forecast may be absent from a bundle; calendar and day never are.
    const fits = (name: SliceName) => typeof etags[name] === "string" || (etags[name] === null && (name === "grade" || name === "forecast"))
    return SLICES.every(fits) ? (index as BundleIndex) : null
  }

  /** A stored bundle as results of `source`; touched (and, when `confirmed`, stored again as of now) unless only peeked at. */
  const loadedFrom = async (bundle: HeldBundle, source: Source, touch: "none" | "access" | "confirmed"): Promise<Loaded> => {
    const at = now()
    const entries: Array<StoredEntry> = []
    const results: Partial<Record<SliceName, Result | null>> = {}
    for (const name of SLICES) {
      const slice = bundle.slices[name]
      if (slice === null) {
        results[name] = null
        continue
      }
      const entry = touch === "confirmed" ? { ...slice.entry, storedAt: at, lastAccess: at } : { ...slice.entry, lastAccess: at }
      entries.push(entry)
      results[name] = result(touch === "none" ? slice.entry : entry, slice.data, source)
    }
    if (touch !== "none") {
      entries.push(touch === "confirmed" ? { ...bundle.index, storedAt: at, lastAccess: at } : { ...bundle.index, lastAccess: at })
      await write(entries)
    }
    const { grade, forecast, calendar, day } = results as Record<SliceName, Result | null>
    return { cell: bundle.cell, grade, forecast, calendar: calendar!, day: day! }
  }

  const staleBundle = (stored: HeldBundle | null, error: LoadError): Promise<Loaded> =>
    stored === null ? Promise.reject(error) : loadedFrom(stored, "stale", "access")

  /** One `/cell` request (the bundle): conditional when a whole bundle is stored. */
  const fetchBundle = async (cell: CellCoordinates, retried: boolean): Promise<Loaded> => {
    const key = bundleKey(cell)
    const url = urlOf(key)
    const stored = retried ? null : await readBundle(cell)
    let answer: Http.Answer
    try {
      answer = await get(url, stored?.index.etag ?? null, closing.signal)
    } catch (e) {
      if (e instanceof NetworkError) return staleBundle(stored, e)
      throw e
    }
    switch (outcome(answer.status, stored !== null, retried, codeOf(answer))) {
      case "network": {
        const bundle = splitBundle(answer.text ?? "")
        if (bundle === null) return staleBundle(stored, new BadPayload({ url, reason: "not a bundle" }))
        const at = now()
        const keys = sliceKeys(cell)
        const entries: Array<StoredEntry> = []
        const results: Partial<Record<SliceName, Result | null>> = {}
        const etags: Partial<Record<SliceName, string | null>> = {}
        for (const name of SLICES) {
          const slice = bundle.slices[name]
          // A normal bundle may lack grade and forecast (no forecast held), never calendar and day.
          if (slice === null && (name === "grade" || name === "forecast")) {
            results[name] = etags[name] = null
            continue
          }
          const data = slice === null ? undefined : parsePayload(name, slice.text)
          if (slice === null || data === undefined) {
            return staleBundle(stored, new BadPayload({ url, reason: `no ${name} payload in the bundle` }))
          }
          const entry: StoredEntry = { key: keys[name], etag: slice.etag, v: PAYLOAD_VER[name], text: slice.text, storedAt: at, lastAccess: at }
          entries.push(entry)
          results[name] = result(entry, data, "network")
          etags[name] = slice.etag
        }
        const index: BundleIndex = { cell: bundle.cell, etags: etags as Record<SliceName, string | null> }
        entries.push({ key, etag: answer.etag, v: PAYLOAD_VER.bundle, text: JSON.stringify(index), storedAt: at, lastAccess: at })
        await write(entries)
        const { grade, forecast, calendar, day } = results as Record<SliceName, Result | null>
        return { cell: bundle.cell, grade, forecast, calendar: calendar!, day: day! }
      }
      case "revalidated":
        return loadedFrom({ ...stored!, index: { ...stored!.index, etag: answer.etag ?? stored!.index.etag } }, "revalidated", "confirmed")
      case "refetch":
        return fetchBundle(cell, true)
      case "rejected":
        await drop([key])
        throw rejection(url, answer)
      default:
        return staleBundle(stored, serverError(url, answer))
    }
  }

  // ---- neighbours

  /**
   * A neighbour's warm-up (`prefetch=1`): its calendar and day slices stored under their views' keys
   * as the text received, checked without decoding, in one transaction, the main thread given back
   * between the steps. The warm-up's day is the record's last day, not today: stored under its date.
   */
  const prefetch = async (cell: CellCoordinates, signal: AbortSignal): Promise<void> => {
    const answer = await get(urlOf(prefetchPath(cell)), null, signal)
    if (answer.status !== 200 || answer.text === null) return // 204: no history held, nothing to store
    await yieldToMain()
    const bundle = splitBundle(answer.text)
    const entries: Array<StoredEntry> = []
    const at = now()
    const calendar = bundle?.slices.calendar
    if (calendar != null && payloadMembers("calendar", calendar.text) !== null) {
      entries.push({ key: sliceKeys(cell).calendar, etag: calendar.etag, v: PAYLOAD_VER.calendar, text: calendar.text, storedAt: at, lastAccess: at })
    }
    const day = bundle?.slices.day
    const date = day == null ? undefined : valueOf(day.text, payloadMembers("day", day.text)?.get("date"))
    if (day != null && typeof date === "string") {
      const key = viewKey("day", cell.lat, cell.lon, { date })
      entries.push({ key, etag: day.etag, v: PAYLOAD_VER.day, text: day.text, storedAt: at, lastAccess: at })
    }
    if (entries.length === 0 || signal.aborted) return
    await yieldToMain()
    await write(entries)
  }

  /**
   * The 8 neighbours, one at a time, each start at least the spacing after the previous answer (the
   * first after the load's own). A few ms over the spacing: timers may fire a millisecond early.
   */
  const warm = async (cell: CellCoordinates, signal: AbortSignal): Promise<void> => {
    for (const neighbour of neighbours(cell)) {
      await sleep(spacing + 5, signal)
      if (signal.aborted) return
      try {
        await prefetch(neighbour, signal)
      } catch (e) {
        if (signal.aborted) return
        // A neighbour that cannot be reached is skipped: the warm-up is a guess, nobody waits for it.
        if (!(e instanceof NetworkError)) throw e
      }
    }
  }

  const cancelWarmUp = () => {
    warmUp?.abort()
    warmUp = undefined
  }

  // ---- the calls

  const shared = <A>(key: string, work: () => Promise<A>, signal: AbortSignal | undefined): Promise<A> => {
    let flight = flights.get(key) as Promise<A> | undefined
    if (flight === undefined) {
      const started = work()
      const forget = () => {
        if (flights.get(key) === started) flights.delete(key)
      }
      started.then(forget, forget)
      flights.set(key, started)
      flight = started
    }
    return signal === undefined ? flight : abandonable(flight, signal)
  }

  const prune = async (): Promise<number> => {
    const at = now()
    const old = expired(await store.byLastAccess({ before: pruneBefore(at) }), at)
    if (old.length > 0) await store.delete(old)
    return old.length
  }

  // Pruning runs at creation; every call waits for it, so none reads an entry it is about to remove.
  const ready = prune().catch(unlessStoreError)

  const run = async <A>(f: () => Promise<A>): Promise<A> => {
    if (closed) throw closedError()
    await ready
    if (closed) throw closedError()
    return f()
  }

  /** Callers without types can pass anything: an unknown view is refused before any request. */
  const checked = (name: string): ViewName => {
    if (!isViewName(name)) throw new TypeError(`Unknown view '${name}': expected one of ${VIEW_NAMES.join(", ")}.`)
    return name
  }

  const view: Client["view"] = async (name, lat, lon, params = {}, callOptions = {}) => {
    const known = checked(name)
    return run(() => {
      const key = viewKey(known, lat, lon, params)
      return shared(key, () => fetchView(known, key, false), callOptions.signal)
    })
  }

  /** The stored copy of a view, if any (touched: reading is an access). */
  const cached = (name: ViewName, lat: number, lon: number, params: Record<string, string>) =>
    run(async () => {
      const key = viewKey(name, lat, lon, params)
      const stored = held(name, key, (await read([key]))[0])
      if (stored === null) return null
      const entry = { ...stored.entry, lastAccess: now() }
      await write([entry])
      return result(entry, stored.data, "cache")
    })

  return {
    load: (lat, lon, callOptions = {}) =>
      run(async () => {
        const mine = ++generation
        cancelWarmUp()
        const cell = cellOf(lat, lon)
        const loaded = await shared(bundleKey(cell), () => fetchBundle(cell, false), callOptions.signal)
        // A later load may have started while this one waited: only the latest one warms.
        if (mine === generation && !closed) {
          cancelWarmUp()
          const controller = new AbortController()
          warmUp = controller
          warming = warm(cell, controller.signal).catch((e: unknown) => console.error("climate-grade client: the warm-up failed", e))
        }
        return loaded
      }),
    peek: (lat, lon) =>
      run(async () => {
        const stored = await readBundle(cellOf(lat, lon))
        return stored === null ? null : loadedFrom(stored, "cache", "none")
      }),
    view,
    watch: (name, lat, lon, params = {}) => ({
      async *[Symbol.asyncIterator]() {
        const known = checked(name)
        const stored = await cached(known, lat, lon, params)
        // Revalidation starts at once, while the consumer shows the stored copy.
        const fresh = view(known, lat, lon, params)
        fresh.catch(() => undefined) // observed below; this only keeps an early rejection from being "unhandled"
        if (stored !== null) yield stored
        yield await fresh
      }
    }),
    cancelWarmUp,
    prune: () => run(prune),
    close: async () => {
      if (closed) return
      closed = true
      cancelWarmUp()
      closing.abort(new Error("The client was closed before the request finished."))
      // Whatever was in flight settles (rejected by the abort, or finishing its write) before the store closes.
      await Promise.allSettled([ready, warming, ...flights.values()])
      await store.close()
    }
  }
}
