/**
 * The store rules of CONTRACT.md §7 on the Effect program itself, without a server: pruning ages
 * (TestClock), entries of another payload version or that no longer decode, quota errors.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as TestClock from "effect/TestClock"
import { CacheStore, createClient, Http, MemoryStore, Program, Pruning, type Store, type StoredEntry } from "../src/index.js"
import { viewKey } from "../src/Keys.js"
import { type FakeApi, fakeApi, gradePayload } from "./support/FakeApi.js"

const DAY = 24 * 60 * 60 * 1000
const config: Program.ClientConfig = { baseUrl: "http://api.test/api/v2", neighbourSpacingMs: 1100 }

/** The program over `store` and the fake API, in a scope. */
const withClient = <A, E>(store: Store, api: FakeApi, f: (client: Program.ClientProgram) => Effect.Effect<A, E>) =>
  Effect.flatMap(Program.make(config), f).pipe(
    Effect.provideService(CacheStore, store),
    Effect.provideService(Http.HttpPort, Http.fromFetch(api.fetch, "10 seconds")),
    Effect.scoped
  )

const entry = (key: string, lastAccess: number, data: unknown = gradePayload(1, 2)): StoredEntry => ({
  key,
  etag: `W/"${key}"`,
  v: 1,
  data,
  storedAt: lastAccess,
  lastAccess
})

describe("pruning", () => {
  it.prop("an entry is expired exactly when its last access is more than 14 days old", [FastCheck.integer({ min: 0, max: 60 * DAY })], ([age]) => {
    const now = 100 * DAY
    expect(Pruning.isExpired(now - age, now)).toBe(age > 14 * DAY)
  })

  it.effect.prop(
    "prune() removes the entries idle for more than 14 days on the clock, and says how many",
    [FastCheck.array(FastCheck.integer({ min: 0, max: 40 * DAY }), { maxLength: 12 })],
    ([ages]) =>
      Effect.gen(function* () {
        const store = MemoryStore.make()
        const start = 100 * DAY
        yield* TestClock.setTime(start)
        for (const [i, age] of ages.entries()) yield* store.put(entry(`/grade?k=${i}`, start - age))
        // A day later on the clock: ages grow by a day.
        yield* TestClock.adjust("1 day")
        const removed = yield* withClient(store, fakeApi(), (client) => client.prune)
        const expired = ages.filter((age) => age + DAY > 14 * DAY)
        expect(removed).toBe(expired.length)
        const kept = (yield* store.byLastAccess()).map((r) => r.key).sort()
        expect(kept).toEqual(ages.flatMap((age, i) => (age + DAY > 14 * DAY ? [] : [`/grade?k=${i}`])).sort())
      }),
    { fastCheck: { numRuns: 25 } }
  )

  it.effect("reading an entry counts as an access: it is not pruned 14 days after it was stored", () =>
    Effect.gen(function* () {
      const store = MemoryStore.make()
      const api = fakeApi()
      yield* withClient(store, api, (client) =>
        Effect.gen(function* () {
          yield* client.view("grade", 1, 2)
          yield* TestClock.adjust("10 days")
          expect((yield* client.view("grade", 1, 2)).source).toBe("revalidated")
          yield* TestClock.adjust("10 days")
          expect(yield* client.prune).toBe(0)
          yield* TestClock.adjust("5 days")
          expect(yield* client.prune).toBe(1)
        })
      )
    })
  )
})

describe("stored entries that no longer fit", () => {
  const key = viewKey("grade", 1, 2)
  for (const [name, stored] of [
    ["another payload version in the entry", { ...entry(key, 0), v: 2 }],
    ["another payload version in the payload", entry(key, 0, { ...gradePayload(1, 2), v: 2 })],
    ["a body that is not a grade payload", entry(key, 0, { view: "grade", v: 1 })],
    ["an entry that does not decode", { key, etag: 5, data: null }]
  ] as const) {
    it.effect(`are dropped: ${name}`, () =>
      Effect.gen(function* () {
        const store = MemoryStore.make()
        const api = fakeApi()
        // Written behind the client's back, as an older release or a broken write would have.
        yield* Effect.orDie(store.put(stored as StoredEntry))
        const result = yield* withClient(store, api, (client) => client.view("grade", 1, 2))
        expect(result.source).toBe("network")
        expect(api.requests.map((r) => r.ifNoneMatch)).toEqual([null])
        expect(yield* store.get(key)).toMatchObject({ key, v: 1, etag: result.etag })
      })
    )
  }
})

describe("a 4xx", () => {
  it.effect("rejects and keeps nothing: a copy stored earlier under the key is dropped", () =>
    Effect.gen(function* () {
      const store = MemoryStore.make()
      const api = fakeApi()
      const key = viewKey("grade", 1, 2)
      yield* withClient(store, api, (client) =>
        Effect.gen(function* () {
          yield* client.view("grade", 1, 2)
          expect(yield* store.get(key)).toBeDefined()
          api.status = 404
          const error = yield* Effect.flip(client.view("grade", 1, 2))
          expect(error).toMatchObject({ _tag: "RequestRejected", status: 404, detail: "refused" })
          expect(yield* store.get(key)).toBeUndefined()
          api.status = 503
          // Nothing left to fall back on.
          expect((yield* Effect.flip(client.view("grade", 1, 2)))._tag).toBe("ServerError")
        })
      )
    })
  )
})

describe("the Promise surface", () => {
  it("refuses an unknown view before any request", async () => {
    const api = fakeApi()
    const client = createClient({ baseUrl: config.baseUrl, fetch: api.fetch })
    await expect(client.view("weather" as never, 1, 2)).rejects.toThrow(/Unknown view 'weather'/)
    await expect(client.watch("weather" as never, 1, 2)[Symbol.asyncIterator]().next()).rejects.toThrow(TypeError)
    expect(api.requests).toEqual([])
    await client.close()
    await expect(client.view("grade", 1, 2)).rejects.toThrow(/closed/)
  })
})

describe("quota", () => {
  it.effect("a quota error drops the least recently used entries and retries the write once", () =>
    Effect.gen(function* () {
      const api = fakeApi()
      const one = JSON.stringify(entry(viewKey("grade", 1, 1), 0, gradePayload(1, 1))).length
      // Room for about four entries.
      const store = MemoryStore.make({ quota: Math.floor(one * 4.5) })
      yield* withClient(store, api, (client) =>
        Effect.gen(function* () {
          for (let i = 1; i <= 4; i++) {
            yield* client.view("grade", i, i)
            yield* TestClock.adjust("1 minute")
          }
          expect((yield* store.byLastAccess()).length).toBe(4)
          // Touch the oldest: now the second is least recently used.
          yield* client.view("grade", 1, 1)
          yield* TestClock.adjust("1 minute")
          const fifth = yield* client.view("grade", 5, 5)
          expect(fifth.source).toBe("network")
          const keys = (yield* store.byLastAccess()).map((r) => r.key)
          expect(keys).toContain(viewKey("grade", 5, 5))
          expect(keys).toContain(viewKey("grade", 1, 1))
          expect(keys).not.toContain(viewKey("grade", 2, 2))
        })
      )
    })
  )

  it.effect("an entry that cannot fit even then is not stored, and the call still answers", () =>
    Effect.gen(function* () {
      const api = fakeApi()
      const store = MemoryStore.make({ quota: 100 })
      const result = yield* withClient(store, api, (client) => client.view("grade", 1, 1))
      expect(result.source).toBe("network")
      expect(yield* store.byLastAccess()).toEqual([])
    })
  )
})
