import { describe, expect, it } from "@effect/vitest"
import { Cell, DataViews, type PayloadKey, PayloadReplay, PayloadStore, type StoredPayload } from "@climate-grade/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Scope from "effect/Scope"
import * as FastCheck from "effect/FastCheck"
import * as Option from "effect/Option"

const cell = Cell.fromCoordinates(52.52, 13.4)
const info = { lat: 52.5, lon: 13.4, label: "Berlin", timezone: "Europe/Berlin" }
const encoder = new TextEncoder()
const decoder = new TextDecoder()
const json = (value: unknown) => encoder.encode(JSON.stringify(value))
const text = (payload: StoredPayload) => decoder.decode(payload.json)

/** What the store holds under a key before the request: nothing, a payload of another token, or one of the plan's. */
type Held = "absent" | "stale" | "valid"
const heldArb = FastCheck.constantFrom<Held>("absent", "stale", "valid")

/** The port as a map; `failing` makes every write die, as a database that stopped answering. */
const memoryStore = (failing = false) => {
  const rows = new Map<string, StoredPayload>()
  const puts: Array<string> = []
  const id = (key: PayloadKey) => `${key.cell}|${key.view}|${key.params}`
  const put = (key: PayloadKey, payload: StoredPayload) =>
    failing
      ? Effect.die(new Error("database gone"))
      : Effect.sync(() => {
          puts.push(id(key))
          rows.set(id(key), payload)
        })
  const get = (key: PayloadKey) => Effect.sync(() => Option.fromNullable(rows.get(id(key))))
  const store = PayloadStore.of({
    get,
    getAll: (keys) => Effect.forEach(keys, get),
    put,
    putAll: (entries) => Effect.forEach(entries, ([key, payload]) => put(key, payload), { discard: true })
  })
  const hold = (key: PayloadKey, held: Held, token: string, value: unknown) => {
    if (held !== "absent") rows.set(id(key), { token: held === "valid" ? token : `old-${token}`, json: json(value) })
  }
  return { store, rows, puts, id, hold }
}

/** A plan whose build counts its runs. */
const planOf = (view: "grade" | "forecast" | "calendar" | "day", token: string, storable: boolean) => {
  const builds = { count: 0 }
  const plan: DataViews.Plan<{ readonly view: string; readonly built: true }> = {
    cell: info,
    key: { cell: cell.key, view, params: view },
    token,
    storable,
    validUntil: 0,
    build: Effect.sync(() => {
      builds.count++
      return { view, built: true }
    })
  }
  return { plan, builds }
}

/** Lets the background writes run. */
const settle = Effect.repeatN(Effect.yieldNow(), 10)

const sliceArb = FastCheck.record({
  token: FastCheck.hexaString({ minLength: 8, maxLength: 8 }),
  storable: FastCheck.boolean(),
  held: heldArb
})

describe("PayloadReplay", () => {
  it.scoped.prop(
    "a view replays what is stored under its key while the token holds; else it is built once, served, and stored only when storable",
    [sliceArb],
    ([{ token, storable, held }]) =>
      Effect.gen(function* () {
        const memory = memoryStore()
        const writes = yield* FiberSet.make()
        const { plan, builds } = planOf("calendar", token, storable)
        memory.hold(plan.key, held, token, { view: "calendar", stored: true })
        const answer = yield* PayloadReplay.view(plan, writes).pipe(Effect.provideService(PayloadStore, memory.store))
        yield* settle
        expect(answer.payload.token).toBe(token)
        if (held === "valid") {
          expect(answer.tier).toBe("stored")
          expect(text(answer.payload)).toBe(JSON.stringify({ view: "calendar", stored: true }))
          expect(builds.count).toBe(0)
          expect(memory.puts).toEqual([])
        } else {
          expect(answer.tier).toBe("built")
          expect(text(answer.payload)).toBe(JSON.stringify({ view: "calendar", built: true }))
          expect(builds.count).toBe(1)
          expect(memory.puts).toEqual(storable ? [memory.id(plan.key)] : [])
        }
      })
  )

  it.scoped.prop(
    "a bundle replays its own stored payload while its token holds; else each slice is read back while its own token holds or built once (and stored under its own key), and the bundle is assembled from them",
    [FastCheck.boolean(), heldArb, FastCheck.boolean(), sliceArb, sliceArb, sliceArb, sliceArb],
    ([prefetch, bundleHeld, bundleStorable, g, f, c, d]) =>
      Effect.gen(function* () {
        const memory = memoryStore()
        const writes = yield* FiberSet.make()
        const made = {
          grade: planOf("grade", g.token, g.storable),
          forecast: planOf("forecast", f.token, f.storable),
          calendar: planOf("calendar", c.token, c.storable),
          day: planOf("day", d.token, d.storable)
        }
        const spec = { grade: g, forecast: f, calendar: c, day: d }
        const names = (["grade", "forecast", "calendar", "day"] as const).filter((n) => !prefetch || n === "calendar" || n === "day")
        for (const name of names) memory.hold(made[name].plan.key, spec[name].held, spec[name].token, { view: name, stored: true })
        const slices = {
          grade: prefetch ? null : made.grade.plan,
          forecast: prefetch ? null : made.forecast.plan,
          calendar: made.calendar.plan,
          day: made.day.plan
        } as unknown as DataViews.BundlePlan["slices"]
        const base = DataViews.bundlePlan(cell, prefetch, slices)
        // Whether the bundle may be stored is the plan's (its slices'); here it varies on its own.
        const plan = { ...base, storable: bundleStorable }
        memory.hold(plan.key, bundleHeld, plan.token, { bundle: "stored" })
        const answer = yield* PayloadReplay.bundle(plan, writes).pipe(Effect.provideService(PayloadStore, memory.store))
        yield* settle
        expect(answer.payload.token).toBe(plan.token)
        if (bundleHeld === "valid") {
          expect(answer.tier).toBe("stored")
          expect(text(answer.payload)).toBe(JSON.stringify({ bundle: "stored" }))
          for (const name of names) expect(made[name].builds.count).toBe(0)
          expect(memory.puts).toEqual([])
          return
        }
        expect(answer.tier).toBe("built")
        const dataOf = (name: (typeof names)[number]) =>
          spec[name].held === "valid" ? { view: name, stored: true } : { view: name, built: true }
        const expected = plan.assemble({
          grade: prefetch ? null : dataOf("grade"),
          forecast: prefetch ? null : dataOf("forecast"),
          calendar: dataOf("calendar"),
          day: dataOf("day")
        } as unknown as Parameters<DataViews.BundlePlan["assemble"]>[0])
        expect(text(answer.payload)).toBe(JSON.stringify(expected))
        const rebuilt = names.filter((name) => spec[name].held !== "valid")
        for (const name of names) expect(made[name].builds.count).toBe(rebuilt.includes(name) ? 1 : 0)
        expect([...memory.puts].sort()).toEqual(
          [
            ...rebuilt.filter((name) => spec[name].storable).map((name) => memory.id(made[name].plan.key)),
            ...(bundleStorable ? [memory.id(plan.key)] : [])
          ].sort()
        )
      })
  )

  it.scoped("a store that cannot be written costs a rebuild later, never the answer", () =>
    Effect.gen(function* () {
      const memory = memoryStore(true)
      const writes = yield* FiberSet.make()
      const { plan } = planOf("day", "t1", true)
      const answer = yield* PayloadReplay.view(plan, writes).pipe(Effect.provideService(PayloadStore, memory.store))
      yield* settle
      expect(answer.tier).toBe("built")
      expect(text(answer.payload)).toBe(JSON.stringify({ view: "day", built: true }))
      expect(memory.rows.size).toBe(0)
    })
  )

  it.effect("a write under way belongs to the scope of its writes: closing it (shutdown) interrupts the write", () =>
    Effect.gen(function* () {
      const memory = memoryStore()
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      // A database that takes the write and never answers.
      const hanging = PayloadStore.of({
        ...memory.store,
        put: () =>
          Effect.zipRight(Deferred.succeed(started, undefined), Effect.never).pipe(
            Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
          )
      })
      const scope = yield* Scope.make()
      const writes = yield* Scope.extend(FiberSet.make(), scope)
      const { plan } = planOf("day", "t1", true)
      const answer = yield* PayloadReplay.view(plan, writes).pipe(Effect.provideService(PayloadStore, hanging))
      // The answer did not wait for the write, which is still under way.
      expect(answer.tier).toBe("built")
      yield* Deferred.await(started)
      expect(yield* Deferred.isDone(interrupted)).toBe(false)
      yield* Scope.close(scope, Exit.void)
      expect(yield* Deferred.isDone(interrupted)).toBe(true)
    })
  )
})
