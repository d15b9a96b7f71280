/**
 * `@climate-grade/client`: the Promise surface of CONTRACT.md §7 over the Effect program in
 * `Client.ts`, plus that program and its ports for consumers that use Effect.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Cause from "effect/Cause"
import * as Program from "./Client.js"
import type { Loaded, Result } from "./Client.js"
import * as Http from "./Http.js"
import { VIEWS, type ViewName } from "./Keys.js"
import * as IndexedDbStore from "./IndexedDbStore.js"
import * as MemoryStore from "./MemoryStore.js"
import { CacheStore, type Store } from "./Store.js"

export * as Keys from "./Keys.js"
export * as Pruning from "./Pruning.js"
/** The Effect API: `Program.make` over the CacheStore, HttpPort and Clock ports. */
export { Program, Http, IndexedDbStore, MemoryStore }
export { BadPayload, RequestRejected, ServerError, type Loaded, type Result, type Source } from "./Client.js"
export { NetworkError } from "./Http.js"
export { CacheStore, QuotaExceeded, StorageFailure, type Store, type StoredEntry } from "./Store.js"
export type { ViewName } from "./Keys.js"

export interface ClientOptions {
  /** e.g. "http://127.0.0.1:8080/api/v2" */
  readonly baseUrl: string
  /** Default `memoryStore()`. */
  readonly store?: Store
  /** Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch
  /** Epoch ms; default `Date.now`. Pruning and stored-at times use it. */
  readonly now?: () => number
  /** Default 1100; values below 1100 are raised to 1100. */
  readonly neighbourSpacingMs?: number
  /** How long a request may take before it counts as a network failure; default 45 s (a cold cell's history can take 30 s upstream). */
  readonly timeoutMs?: number
}

export interface Client {
  load(lat: number, lon: number): Promise<Loaded>
  /** Beyond CONTRACT.md §7: the stored bundle of the cell (source `cache`), or null; no request. */
  peek(lat: number, lon: number): Promise<Loaded | null>
  view(view: ViewName, lat: number, lon: number, params?: Record<string, string>): Promise<Result>
  watch(view: ViewName, lat: number, lon: number, params?: Record<string, string>): AsyncIterable<Result>
  cancelWarmUp(): void
  prune(): Promise<number>
  close(): Promise<void>
}

export const memoryStore = (options?: MemoryStore.MemoryStoreOptions): Store => MemoryStore.make(options)

/** IndexedDB (database `name`, default "climate-grade-client"); memory where IndexedDB is missing. */
export const indexedDbStore = (name?: string): Store => IndexedDbStore.make(name)

/**
 * A clock reading `now` for the time of day (stored-at, last access, pruning) and sleeping on real
 * time, so a caller's fake `now` never stretches or shrinks the warm-up's spacing or the timeout.
 */
const clockFrom = (now: () => number): Clock.Clock => {
  const real = Clock.make()
  const nanos = () => BigInt(Math.round(now())) * BigInt(1_000_000)
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: now,
    unsafeCurrentTimeNanos: nanos,
    currentTimeMillis: Effect.sync(now),
    currentTimeNanos: Effect.sync(nanos),
    sleep: (duration) => real.sleep(duration)
  }
}

/** Rejections carry the tagged error itself (an Error), not Effect's FiberFailure wrapper. */
const unwrap = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) throw failure.value
  if (Cause.isInterruptedOnly(exit.cause)) throw new Error("The client was closed before the request finished.")
  throw Cause.squash(exit.cause)
}

export const createClient = (options: ClientOptions): Client => {
  const store = options.store ?? memoryStore()
  const fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const layer = Layer.mergeAll(
    Layer.succeed(CacheStore, store),
    Layer.succeed(Http.HttpPort, Http.fromFetch(fetchFn, Duration.millis(options.timeoutMs ?? 45_000))),
    Layer.setClock(clockFrom(options.now ?? Date.now))
  )
  const runtime = ManagedRuntime.make(layer)
  const scope = Effect.runSync(Scope.make())
  const config: Program.ClientConfig = {
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    neighbourSpacingMs: Math.max(Program.MIN_NEIGHBOUR_SPACING_MS, options.neighbourSpacingMs ?? 0)
  }
  let closed = false
  // Pruning runs at creation; every call waits for it, so none reads an entry it is about to remove.
  const ready = runtime
    .runPromise(
      Effect.gen(function* () {
        const program = yield* Scope.extend(Program.make(config), scope)
        yield* Effect.ignore(program.prune)
        return program
      })
    )
  const run = async <A, E>(f: (program: Program.ClientProgram) => Effect.Effect<A, E, never>): Promise<A> => {
    if (closed) throw new Error("The client is closed.")
    const program = await ready
    return unwrap(await runtime.runPromiseExit(f(program)))
  }

  /** Callers without types can pass anything: an unknown view is refused here, before any request. */
  const checked = (name: string): Promise<void> =>
    (VIEWS as ReadonlyArray<string>).includes(name)
      ? Promise.resolve()
      : Promise.reject(new TypeError(`Unknown view '${name}': expected one of ${VIEWS.join(", ")}.`))

  const view: Client["view"] = (name, lat, lon, params) =>
    checked(name).then(() => run((p) => p.view(name, lat, lon, params)))

  return {
    load: (lat, lon) => run((p) => p.load(lat, lon)),
    peek: (lat, lon) => run((p) => Effect.map(p.peek(lat, lon), Option.getOrNull)),
    view,
    watch: (name, lat, lon, params) => ({
      async *[Symbol.asyncIterator]() {
        await checked(name)
        const cached = await run((p) => p.cached(name, lat, lon, params))
        // Revalidation starts at once, while the consumer shows the cached copy.
        const outcome = view(name, lat, lon, params)
        outcome.catch(() => undefined) // observed below; this only keeps an early rejection from being "unhandled"
        if (Option.isSome(cached)) yield cached.value
        yield await outcome
      }
    }),
    cancelWarmUp: () => {
      if (!closed) void ready.then((p) => runtime.runPromise(p.cancelWarmUp))
    },
    prune: () => run((p) => p.prune),
    close: async () => {
      if (closed) return
      closed = true
      await ready.then((p) => runtime.runPromise(p.cancelWarmUp)).catch(() => undefined)
      // Interrupts every request in flight (each one's fetch is aborted).
      await Effect.runPromise(Scope.close(scope, Exit.void))
      await runtime.runPromise(store.close)
      await runtime.dispose()
    }
  }
}
