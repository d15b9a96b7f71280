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
import * as FiberSet from "effect/FiberSet"
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
 * rebuilt, so a failed write costs a rebuild later, never a failed request. The write is one of
 * `writes`, whose scope (the adapter's layer) interrupts it at shutdown: a lost write is a rebuild.
 */
const keep = (
  store: PayloadStore["Type"],
  writes: FiberSet.FiberSet,
  entries: ReadonlyArray<readonly [PayloadKey, StoredPayload]>
) =>
  entries.length === 0
    ? Effect.void
    : Effect.asVoid(
        FiberSet.run(
          writes,
          (entries.length === 1 ? store.put(entries[0]![0], entries[0]![1]) : store.putAll(entries)).pipe(
            Effect.catchAllCause((cause) => Effect.logWarning("could not store a payload", cause))
          )
        )
      )

/** What is stored under `key`, if its token is still `token`. */
const validStored = (store: PayloadStore["Type"], key: PayloadKey, token: string) =>
  Effect.map(store.get(key), Option.filter((stored) => stored.token === token))

/** Built now: the value and its payload. */
const built = <A>(plan: Plan<A>) =>
  Effect.map(plan.build, (value) => ({ value, payload: payloadOf(plan.token, value) }))

/**
 * One view's bytes: stored while its token holds, else built now (and stored when allowed, the
 * write one of `writes`).
 */
export const view = <A>(plan: Plan<A>, writes: FiberSet.FiberSet): Effect.Effect<Replayed, never, PayloadStore> =>
  Effect.gen(function* () {
    const store = yield* PayloadStore
    const held = yield* validStored(store, plan.key, plan.token)
    if (Option.isSome(held)) return { payload: held.value, tier: "stored" as const }
    const { payload } = yield* built(plan)
    if (plan.storable) yield* keep(store, writes, [[plan.key, payload]])
    return { payload, tier: "built" as const }
  })

/**
 * The bundle's bytes: its own stored payload while its token holds; else assembled from its
 * slices' data, each read back while its token holds or built now (and stored under its own key).
 */
export const bundle = (plan: BundlePlan, writes: FiberSet.FiberSet): Effect.Effect<Replayed, never, PayloadStore> =>
  Effect.gen(function* () {
    const store = yield* PayloadStore
    const { grade, forecast, calendar, day } = plan.slices
    const parts = [grade, forecast, calendar, day] as const
    // Every read first, in one go: on a one-connection store a read issued after a slice's
    // background write would wait for it, and one statement costs less than five.
    const [own, ...found] = yield* store.getAll([plan.key, ...parts.flatMap((s) => (s === null ? [] : [s.key]))])
    const valid = (stored: Option.Option<StoredPayload> | undefined, token: string) =>
      Option.filter(stored ?? Option.none(), (s) => s.token === token)
    const ownValid = valid(own, plan.token)
    if (Option.isSome(ownValid)) return { payload: ownValid.value, tier: "stored" as const }
    // What was read for each part, by its place among the parts that are there.
    let next = 0
    const held = parts.map((s) => (s === null ? Option.none<StoredPayload>() : (found[next++] ?? Option.none<StoredPayload>())))
    // Each slice read back while its token holds, else built now; what is built is stored below,
    // with the bundle, in one background write.
    const toStore: Array<readonly [PayloadKey, StoredPayload]> = []
    const dataOf = <A>(slice: Plan<A> | null, index: number) => {
      if (slice === null) return Effect.succeed(null)
      const stored = valid(held[index], slice.token)
      if (Option.isSome(stored)) return Effect.sync(() => JSON.parse(decoder.decode(stored.value.json)) as A)
      return Effect.map(built(slice), ({ payload, value }) => {
        if (slice.storable) toStore.push([slice.key, payload])
        return value
      })
    }
    const data = yield* Effect.all({
      grade: dataOf(grade, 0),
      forecast: dataOf(forecast, 1),
      calendar: dataOf(calendar, 2),
      day: dataOf(day, 3)
    })
    const payload = payloadOf(plan.token, plan.assemble(data))
    if (plan.storable) toStore.push([plan.key, payload])
    yield* keep(store, writes, toStore)
    return { payload, tier: "built" as const }
  })
