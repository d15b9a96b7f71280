/**
 * The client's rules as plain functions (revalidation, pruning, the payload
 * check), property-tested; then the same rules through the client over a fake API and a memory
 * store, with `now` moved by hand: pruning ages, entries that no longer fit, 4xx, quota errors.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { createClient, memoryStore, type Store, type StoredEntry } from "../src/index.js"
import { viewKey } from "../src/Keys.js"
import { isPayload, payloadMembers, splitBundle } from "../src/Payload.js"
import { evictionVictims, expired, isExpired, MAX_IDLE_MS } from "../src/Pruning.js"
import { outcome } from "../src/Revalidation.js"
import { VIEW_NAMES } from "../src/Views.js"
import { type FakeApi, fakeApi, gradePayload } from "./support/FakeApi.js"

const DAY = 24 * 60 * 60 * 1000
const baseUrl = "http://api.test/api/v2"

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

  it("the revalidation table", () => {
    expect(outcome(304, true, false)).toBe("revalidated")
    expect(outcome(200, true, false)).toBe("network")
    expect(outcome(304, false, false)).toBe("refetch")
    expect(outcome(304, false, true)).toBe("failed")
    expect(outcome(null, true, false)).toBe("stale")
    expect(outcome(null, false, false)).toBe("failed")
    expect(outcome(503, true, false)).toBe("stale")
    expect(outcome(503, false, false)).toBe("failed")
    expect(outcome(404, true, false)).toBe("rejected")
    // Decided by the code: a refusal to wait for keeps the stored copy; one of the request itself drops it.
    expect(outcome(429, true, false, "cold-cells-busy")).toBe("stale")
    expect(outcome(429, true, false, "client-share-spent")).toBe("stale")
    expect(outcome(429, false, false, "cold-cells-busy")).toBe("failed")
    expect(outcome(400, true, false, "invalid-query")).toBe("rejected")
    expect(outcome(404, true, false, "no-history")).toBe("rejected")
  })
})

describe("pruning and eviction", () => {
  const records = FastCheck.uniqueArray(
    FastCheck.record({ key: FastCheck.string({ minLength: 1, maxLength: 6 }), lastAccess: FastCheck.integer({ min: 0, max: 40 * DAY }) }),
    { selector: (r) => r.key, maxLength: 20 }
  )

  it.prop("an entry is expired exactly when its last access is more than 14 days old", [FastCheck.integer({ min: 0, max: 60 * DAY })], ([age]) => {
    const now = 100 * DAY
    expect(isExpired(now - age, now)).toBe(age > 14 * DAY)
  })

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
    forecast: { view: "forecast", v: 2, cell: gradePayload(1, 2).cell, issued: "x", days: [] },
    calendar: { view: "calendar", v: 1, cell: gradePayload(1, 2).cell, start: "a", end: "b", dates: ["a"], series: {} },
    day: { view: "day", v: 1, cell: gradePayload(1, 2).cell, date: "2024-01-01", source: "none", variables: {} },
    trend: {
      view: "trend",
      v: 1,
      cell: gradePayload(1, 2).cell,
      first: "1940-01-01",
      last: "2025-11-21",
      baseline: null,
      years: [],
      periods: {}
    },
    spells: {
      view: "spells",
      v: 1,
      cell: gradePayload(1, 2).cell,
      first: "1940-01-01",
      last: "2025-11-21",
      until: "2025-12-12",
      baseline: { from: 1961, to: 1990 },
      thresholds: null,
      now: [],
      top: { heat: [], cold: [], dry: [], wet: [] },
      years: [],
      recent: []
    }
  } as const

  it("each view's payload passes, parsed and as text; another view's, another version or a missing field does not", () => {
    for (const view of VIEW_NAMES) {
      const good = payloads[view]
      expect(isPayload(view, good)).toBe(true)
      expect(payloadMembers(view, JSON.stringify(good))).not.toBeNull()
      for (const bad of [
        { ...good, v: good.v + 1 },
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
          view: FastCheck.constantFrom(...VIEW_NAMES, "other"),
          v: FastCheck.constantFrom(1, 2, "1"),
          cell: FastCheck.oneof(FastCheck.constant(gradePayload(1, 2).cell), FastCheck.jsonValue()),
          date: FastCheck.oneof(FastCheck.string(), FastCheck.jsonValue()),
          variables: FastCheck.oneof(FastCheck.object(), FastCheck.jsonValue()),
          days: FastCheck.oneof(FastCheck.array(FastCheck.jsonValue()), FastCheck.jsonValue()),
          dates: FastCheck.oneof(FastCheck.array(FastCheck.string()), FastCheck.jsonValue()),
          series: FastCheck.oneof(FastCheck.object(), FastCheck.jsonValue()),
          first: FastCheck.oneof(FastCheck.string(), FastCheck.jsonValue()),
          last: FastCheck.oneof(FastCheck.string(), FastCheck.jsonValue()),
          years: FastCheck.oneof(FastCheck.array(FastCheck.jsonValue()), FastCheck.jsonValue()),
          periods: FastCheck.oneof(FastCheck.object(), FastCheck.jsonValue())
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

/** A client over `store` and the fake API whose clock reads `clock.now`. */
const clientOf = (store: Store, api: FakeApi, clock = { now: 100 * DAY }) =>
  createClient({ baseUrl, store, fetch: api.fetch, now: () => clock.now })

const entry = (key: string, lastAccess: number, data: unknown = gradePayload(1, 2)): StoredEntry => ({
  key,
  etag: `W/"${key}"`,
  v: 1,
  text: JSON.stringify(data),
  storedAt: lastAccess,
  lastAccess
})

describe("pruning through the client", () => {
  it("prune() removes the entries idle for more than 14 days on the clock, and says how many", () =>
    FastCheck.assert(
      FastCheck.asyncProperty(FastCheck.array(FastCheck.integer({ min: 0, max: 40 * DAY }), { maxLength: 12 }), async (ages) => {
        const store = memoryStore()
        const clock = { now: 100 * DAY }
        await store.put(ages.map((age, i) => entry(`/grade?k=${i}`, clock.now - age)))
        const client = clientOf(store, fakeApi(), clock)
        // Creation prunes at once: what is already older than 14 days goes then.
        const expiredAtStart = ages.filter((age) => age > 14 * DAY).length
        // A day later on the clock: ages grow by a day.
        clock.now += DAY
        const removed = await client.prune()
        expect(removed).toBe(ages.filter((age) => age + DAY > 14 * DAY).length - expiredAtStart)
        const kept = (await store.byLastAccess()).map((r) => r.key).sort()
        expect(kept).toEqual(ages.flatMap((age, i) => (age + DAY > 14 * DAY ? [] : [`/grade?k=${i}`])).sort())
        await client.close()
      }),
      { numRuns: 25 }
    ))

  it("reading an entry counts as an access: it is not pruned 14 days after it was stored", async () => {
    const clock = { now: 100 * DAY }
    const client = clientOf(memoryStore(), fakeApi(), clock)
    await client.view("grade", 1, 2)
    clock.now += 10 * DAY
    expect((await client.view("grade", 1, 2)).source).toBe("revalidated")
    clock.now += 10 * DAY
    expect(await client.prune()).toBe(0)
    clock.now += 5 * DAY
    expect(await client.prune()).toBe(1)
    await client.close()
  })
})

describe("stored entries that no longer fit", () => {
  const key = viewKey("grade", 1, 2)
  for (const [name, stored] of [
    ["another payload version in the entry", { ...entry(key, 0), v: 2 }],
    ["another payload version in the payload", entry(key, 0, { ...gradePayload(1, 2), v: 2 })],
    ["a body that is not a grade payload", entry(key, 0, { view: "grade", v: 1 })],
    ["a body that is not JSON", { ...entry(key, 0), text: '{"view":"grade",' }],
    ["an entry that does not decode", { key, etag: 5, data: null }],
    ["an entry of the decoded-object format", { key, etag: 'W/"x"', v: 1, data: gradePayload(1, 2), storedAt: 0, lastAccess: 0 }]
  ] as const) {
    it(`are dropped: ${name}`, async () => {
      const store = memoryStore()
      const api = fakeApi()
      // Written behind the client's back, as an older release or a broken write would have.
      await store.put([stored as unknown as StoredEntry])
      const client = clientOf(store, api, { now: 10 })
      const result = await client.view("grade", 1, 2)
      expect(result.source).toBe("network")
      expect(api.requests.map((r) => r.ifNoneMatch)).toEqual([null])
      expect((await store.get([key]))[0]).toMatchObject({ key, v: 1, etag: result.etag })
      await client.close()
    })
  }
})

describe("a 4xx", () => {
  it("rejects and keeps nothing: a copy stored earlier under the key is dropped", async () => {
    const store = memoryStore()
    const api = fakeApi()
    const key = viewKey("grade", 1, 2)
    const client = clientOf(store, api)
    await client.view("grade", 1, 2)
    expect((await store.get([key]))[0]).toBeDefined()
    api.status = 404
    const error = await client.view("grade", 1, 2).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({ _tag: "RequestRejected", status: 404, detail: "refused" })
    expect((await store.get([key]))[0]).toBeUndefined()
    api.status = 503
    // Nothing left to fall back on.
    expect(await client.view("grade", 1, 2).catch((e: unknown) => e)).toMatchObject({ _tag: "ServerError", status: 503 })
    await client.close()
  })

  it("a refusal to wait for (decided by its code) keeps the stored copy, and the error says its code and retryAt", async () => {
    const store = memoryStore()
    const api = fakeApi()
    const key = viewKey("grade", 1, 2)
    const client = clientOf(store, api)
    await client.view("grade", 1, 2)
    api.status = 429
    api.code = "cold-cells-busy"
    api.retryAfter = "5"
    api.retryAt = "2030-01-02T03:04:05Z"
    expect(await client.view("grade", 1, 2)).toMatchObject({ source: "stale" })
    expect((await store.get([key]))[0]).toBeDefined()
    // Another place, nothing stored: the call rejects, saying why and until when.
    expect(await client.view("grade", 3, 4).catch((e: unknown) => e)).toMatchObject({
      _tag: "RequestRejected",
      status: 429,
      code: "cold-cells-busy",
      retryAt: Date.parse("2030-01-02T03:04:05Z"),
      retryAfter: 5
    })
    // The same status with a code that refuses the request itself: the copy goes.
    api.code = "invalid-query"
    api.retryAfter = null
    api.retryAt = null
    expect(await client.view("grade", 1, 2).catch((e: unknown) => e)).toMatchObject({ _tag: "RequestRejected", code: "invalid-query", retryAt: null })
    expect((await store.get([key]))[0]).toBeUndefined()
    await client.close()
  })

  it("ServerError and RequestRejected carry the server's detail and Retry-After in seconds", async () => {
    const api = fakeApi()
    const client = clientOf(memoryStore(), api)
    api.status = 503
    api.retryAfter = "3600"
    expect(await client.view("grade", 1, 2).catch((e: unknown) => e)).toMatchObject({
      _tag: "ServerError",
      status: 503,
      detail: "refused",
      retryAfter: 3600
    })
    api.status = 429
    api.retryAfter = "5"
    expect(await client.view("grade", 1, 2).catch((e: unknown) => e)).toMatchObject({ _tag: "RequestRejected", status: 429, retryAfter: 5 })
    api.status = 502
    api.retryAfter = null
    expect(await client.view("grade", 1, 2).catch((e: unknown) => e)).toMatchObject({ _tag: "ServerError", detail: "refused", retryAfter: null })
    await client.close()
  })
})

describe("the Promise surface", () => {
  it("refuses an unknown view before any request", async () => {
    const api = fakeApi()
    const client = createClient({ baseUrl, fetch: api.fetch })
    await expect(client.view("weather" as never, 1, 2)).rejects.toThrow(/Unknown view 'weather'/)
    await expect(client.watch("weather" as never, 1, 2)[Symbol.asyncIterator]().next()).rejects.toThrow(TypeError)
    expect(api.requests).toEqual([])
    await client.close()
    await expect(client.view("grade", 1, 2)).rejects.toThrow(/closed/)
  })

  it("a caller's abort rejects its own call only: the shared request answers the others, and is not aborted", async () => {
    const api = fakeApi()
    const release: Array<() => void> = []
    const held = new Promise<void>((resolve) => release.push(resolve))
    let aborted = false
    const slow: typeof fetch = async (input, init) => {
      init?.signal?.addEventListener("abort", () => {
        aborted = true
      })
      await held
      return api.fetch(input, init)
    }
    const client = createClient({ baseUrl, fetch: slow })
    const mine = new AbortController()
    const first = client.view("grade", 1, 2, {}, { signal: mine.signal })
    const second = client.view("grade", 1, 2)
    mine.abort(new DOMException("gave up", "AbortError"))
    await expect(first).rejects.toMatchObject({ name: "AbortError" })
    release[0]!()
    expect((await second).source).toBe("network")
    expect(api.requests).toHaveLength(1)
    expect(aborted).toBe(false)
    await client.close()
  })
})

describe("quota", () => {
  it("a quota error drops the least recently used entries and retries the write once", async () => {
    const api = fakeApi()
    const one = JSON.stringify(entry(viewKey("grade", 1, 1), 0, gradePayload(1, 1))).length
    // Room for about four entries.
    const store = memoryStore({ quota: Math.floor(one * 4.5) })
    const clock = { now: 100 * DAY }
    const client = clientOf(store, api, clock)
    for (let i = 1; i <= 4; i++) {
      await client.view("grade", i, i)
      clock.now += 60_000
    }
    expect((await store.byLastAccess()).length).toBe(4)
    // Touch the oldest: now the second is least recently used.
    await client.view("grade", 1, 1)
    clock.now += 60_000
    const fifth = await client.view("grade", 5, 5)
    expect(fifth.source).toBe("network")
    const keys = (await store.byLastAccess()).map((r) => r.key)
    expect(keys).toContain(viewKey("grade", 5, 5))
    expect(keys).toContain(viewKey("grade", 1, 1))
    expect(keys).not.toContain(viewKey("grade", 2, 2))
    await client.close()
  })

  it("an entry that cannot fit even then is not stored, and the call still answers", async () => {
    const store = memoryStore({ quota: 100 })
    const client = clientOf(store, fakeApi())
    const result = await client.view("grade", 1, 1)
    expect(result.source).toBe("network")
    expect(await store.byLastAccess()).toEqual([])
    await client.close()
  })
})
