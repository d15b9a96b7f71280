/**
 * What a data answer's bytes are: a stored payload is
 * replayed while its token still equals the plan's; failing that, the payload is built, stored
 * (unless the plan says it may not be: the calendar without a place label) and served. The
 * bundle reads its own stored payload first and, when it has none, assembles itself from its
 * slices, each replayed from its own key while its token holds, so a slice is never built twice
 * for the bundle and its view.
 *
 * The JSON bytes are what every adapter serves and stores; how they are compressed is theirs.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { BundlePlan, Plan } from "./DataViews.js"
import { type PayloadKey, PayloadStore, type StoredPayload } from "./PayloadStore.js"

/** Where an answer's bytes came from: the store, or built now. */
export type Tier = "stored" | "built"

export interface Replayed {
  readonly payload: StoredPayload
  readonly tier: Tier
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

const payloadOf = (token: string, value: unknown): StoredPayload => ({ token, json: encoder.encode(JSON.stringify(value)) })

/**
 * Stores a payload without holding the answer for the write: the table is a cache of what can be
 * rebuilt, so a failed write costs a rebuild later, never a failed request.
 */
const keep = (store: PayloadStore["Type"], key: PayloadKey, payload: StoredPayload) =>
  Effect.asVoid(
    Effect.forkDaemon(
      store.put(key, payload).pipe(Effect.catchAllCause((cause) => Effect.logWarning("could not store a payload", cause)))
    )
  )

/** What is stored under `key`, if its token is still `token`. */
const validStored = (store: PayloadStore["Type"], key: PayloadKey, token: string) =>
  Effect.map(store.get(key), Option.filter((stored) => stored.token === token))

/** Built now, and stored (in the background) when the plan allows: the value and its payload. */
const built = <A>(store: PayloadStore["Type"], plan: Plan<A>) =>
  Effect.gen(function* () {
    const value = yield* plan.build
    const payload = payloadOf(plan.token, value)
    if (plan.storable) yield* keep(store, plan.key, payload)
    return { value, payload }
  })

/** One view's bytes: stored while its token holds, else built now (and stored when allowed). */
export const view = <A>(plan: Plan<A>): Effect.Effect<Replayed, never, PayloadStore> =>
  Effect.gen(function* () {
    const store = yield* PayloadStore
    const held = yield* validStored(store, plan.key, plan.token)
    if (Option.isSome(held)) return { payload: held.value, tier: "stored" as const }
    return { payload: (yield* built(store, plan)).payload, tier: "built" as const }
  })

/**
 * The bundle's bytes: its own stored payload while its token holds; else assembled from its
 * slices' data, each read back while its token holds or built now (and stored under its own key).
 */
export const bundle = (plan: BundlePlan): Effect.Effect<Replayed, never, PayloadStore> =>
  Effect.gen(function* () {
    const store = yield* PayloadStore
    const { grade, forecast, calendar, day } = plan.slices
    const heldSlice = <A>(slice: Plan<A> | null) =>
      slice === null ? Effect.succeedNone : validStored(store, slice.key, slice.token)
    // Every read first, together: on a one-connection store a read issued after a slice's
    // background write would wait for it.
    const [own, g, f, c, d] = yield* Effect.all(
      [validStored(store, plan.key, plan.token), heldSlice(grade), heldSlice(forecast), heldSlice(calendar), heldSlice(day)],
      { concurrency: "unbounded" }
    )
    if (Option.isSome(own)) return { payload: own.value, tier: "stored" as const }
    const dataOf = <A>(slice: Plan<A> | null, held: Option.Option<StoredPayload>) =>
      slice === null
        ? Effect.succeed(null)
        : Option.match(held, {
            onNone: () => Effect.map(built(store, slice), (b) => b.value),
            onSome: (stored) => Effect.sync(() => JSON.parse(decoder.decode(stored.json)) as A)
          })
    const data = yield* Effect.all({
      grade: dataOf(grade, g),
      forecast: dataOf(forecast, f),
      calendar: dataOf(calendar, c),
      day: dataOf(day, d)
    })
    const payload = payloadOf(plan.token, plan.assemble(data))
    if (plan.storable) yield* keep(store, plan.key, payload)
    return { payload, tier: "built" as const }
  })
