/**
 * The client's rules as plain functions (revalidation outcome, pruning and eviction, the payload
 * check), property-tested; then the store rules of CONTRACT.md §7 on the Effect program itself,
 * without a server: pruning ages (TestClock), entries of another payload version or that no longer
 * decode, quota errors.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as TestClock from "effect/TestClock"
import { CacheStore, createClient, Http, MemoryStore, Program, Pruning, type Store, type StoredEntry } from "../src/index.js"
import { viewKey } from "../src/Keys.js"
import { isPayload, payloadMembers, splitBundle } from "../src/Payload.js"
import { evictionVictims, expired, MAX_IDLE_MS } from "../src/Pruning.js"
import { outcome } from "../src/Revalidation.js"
import { VIEW_NAMES } from "../src/Views.js"
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

describe("revalidation outcome", () => {
  const status = FastCheck.oneof(FastCheck.constant(null), FastCheck.integer({ min: 100, max: 599 }), FastCheck.constantFrom(200, 204, 304, 400, 404, 429, 500, 503, 504))

  it.prop("a stored copy is answered whatever happens, unless the server refuses (4xx)", [status, FastCheck.boolean()], ([s, retried]) => {
    const o = outcome(s, true, retried)
    const refused = s !== null && s >= 400 && s < 500
    expect(o === "rejected").toBe(refused)
    expect(["network", "revalidated", "stale", "rejected"]).toContain(o)
    expect(o === "revalidated").toBe(s === 304)
    expect(o === "network").toBe(s === 200)
  })

  it.prop("with nothing stored: 200 is stored, 4xx rejects, a first 304 refetches once, anything else fails", [status, FastCheck.boolean()], ([s, retried]) => {
    const o = outcome(s, false, retried)
    expect(o).not.toBe("stale")
    expect(o).not.toBe("revalidated")
    expect(o === "refetch").toBe(s === 304 && !retried)
    expect(o === "network").toBe(s === 200)
    expect(o === "rejected").toBe(s !== null && s >= 400 && s < 500)
  })

  it("the table of CONTRACT §7", () => {
    expect(outcome(304, true, false)).toBe("revalidated")
    expect(outcome(200, true, false)).toBe("network")
    expect(outcome(304, false, false)).toBe("refetch")
    expect(outcome(304, false, true)).toBe("failed")
    expect(outcome(null, true, false)).toBe("stale")
    expect(outcome(null, false, false)).toBe("failed")
    expect(outcome(503, true, false)).toBe("stale")
    expect(outcome(503, false, false)).toBe("failed")
    expect(outcome(404, true, false)).toBe("rejected")
  })
})

describe("pruning and eviction", () => {
  const records = FastCheck.uniqueArray(
    FastCheck.record({ key: FastCheck.string({ minLength: 1, maxLength: 6 }), lastAccess: FastCheck.integer({ min: 0, max: 40 * DAY }) }),
    { selector: (r) => r.key, maxLength: 20 }
  )

  it.prop("prune selects exactly the entries idle for more than 14 days", [records, FastCheck.integer({ min: 0, max: 60 * DAY })], ([rs, now]) => {
    const out = new Set(expired(rs, now))
    for (const r of rs) expect(out.has(r.key)).toBe(now - r.lastAccess > MAX_IDLE_MS)
  })

  it("exactly 14 days idle is not more than 14 days", () => {
    const now = 100 * DAY
    expect(expired([{ key: "a", lastAccess: now - MAX_IDLE_MS }, { key: "b", lastAccess: now - MAX_IDLE_MS - 1 }], now)).toEqual(["b"])
  })

  it.prop(
    "a quota error evicts the least recently used half (at least one) of the entries not being written",
    [records, FastCheck.integer({ min: 0, max: 3 })],
    ([rs, n]) => {
      const writing = new Set(rs.slice(0, n).map((r) => r.key))
      const others = rs.filter((r) => !writing.has(r.key))
      const victims = evictionVictims(rs, writing)
      expect(victims.length).toBe(Math.min(others.length, Math.max(1, Math.ceil(others.length / 2))))
      for (const v of victims) expect(writing.has(v)).toBe(false)
      // Every victim was used no later than every entry kept.
      const newestVictim = Math.max(...rs.filter((r) => victims.includes(r.key)).map((r) => r.lastAccess))
      for (const r of others) if (!victims.includes(r.key)) expect(r.lastAccess).toBeGreaterThanOrEqual(newestVictim)
    }
  )
})

describe("payload check", () => {
  const payloads = {
    grade: gradePayload(1, 2),
    forecast: { view: "forecast", v: 1, cell: gradePayload(1, 2).cell, issued: "x", days: [] },
    calendar: { view: "calendar", v: 1, cell: gradePayload(1, 2).cell, start: "a", end: "b", dates: ["a"], series: {} },
    day: { view: "day", v: 1, cell: gradePayload(1, 2).cell, date: "2024-01-01", source: "none", variables: {} }
  } as const

  it("each view's payload passes, parsed and as text; another view's, another version or a missing field does not", () => {
    for (const view of VIEW_NAMES) {
      const good = payloads[view]
      expect(isPayload(view, good)).toBe(true)
      expect(payloadMembers(view, JSON.stringify(good))).not.toBeNull()
      for (const bad of [
        { ...good, v: 2 },
        { ...good, view: view === "grade" ? "day" : "grade" },
        Object.fromEntries(Object.entries(good).filter(([k]) => k !== "cell")),
        null,
        [good]
      ]) {
        expect(isPayload(view, bad)).toBe(false)
        expect(payloadMembers(view, JSON.stringify(bad))).toBeNull()
      }
    }
  })

  it.prop(
    "the text check and the parsed check agree on any payload-like object",
    [
      FastCheck.constantFrom(...VIEW_NAMES),
      FastCheck.record(
        {
          view: FastCheck.constantFrom(...VIEW_NAMES, "trend"),
          v: FastCheck.constantFrom(1, 2, "1"),
          cell: FastCheck.oneof(FastCheck.constant(gradePayload(1, 2).cell), FastCheck.jsonValue()),
          date: FastCheck.oneof(FastCheck.string(), FastCheck.jsonValue()),
          variables: FastCheck.oneof(FastCheck.object(), FastCheck.jsonValue()),
          days: FastCheck.oneof(FastCheck.array(FastCheck.jsonValue()), FastCheck.jsonValue()),
          dates: FastCheck.oneof(FastCheck.array(FastCheck.string()), FastCheck.jsonValue()),
          series: FastCheck.oneof(FastCheck.object(), FastCheck.jsonValue())
        },
        { requiredKeys: ["view", "v"] }
      )
    ],
    ([view, data]) => {
      expect(payloadMembers(view, JSON.stringify(data)) !== null).toBe(isPayload(view, JSON.parse(JSON.stringify(data))))
    },
    { fastCheck: { numRuns: 500 } }
  )

  it("a bundle splits into its slices' ETags and texts; another version or a broken slice is none", () => {
    const slice = (view: keyof typeof payloads) => ({ etag: `W/"${view}"`, data: payloads[view] })
    const bundle = { v: 1, cell: gradePayload(1, 2).cell, grade: null, forecast: slice("forecast"), calendar: slice("calendar"), day: slice("day") }
    const split = splitBundle(JSON.stringify(bundle, null, 1))!
    expect(split.cell).toEqual(bundle.cell)
    expect(split.slices.grade).toBeNull()
    for (const view of ["forecast", "calendar", "day"] as const) {
      expect(split.slices[view]!.etag).toBe(`W/"${view}"`)
      expect(JSON.parse(split.slices[view]!.text)).toEqual(payloads[view])
    }
    expect(splitBundle(JSON.stringify({ ...bundle, v: 2 }))).toBeNull()
    expect(splitBundle(JSON.stringify({ ...bundle, cell: null }))).toBeNull()
    expect(splitBundle(JSON.stringify({ ...bundle, day: { etag: 1, data: payloads.day } }))).toBeNull()
    expect(splitBundle(JSON.stringify({ ...bundle, day: undefined }))).toBeNull()
  })
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
