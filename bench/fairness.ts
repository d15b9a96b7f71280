/**
 * Fair use, measured as an attacker would try it, against the built server with the upstreams
 * faked on loopback (an archive answer takes a second, as Open-Meteo's does; the free tier's
 * 10,000 cost units a day; the default shares). It prints:
 *   1. one anonymous client asking for 14 new places in a row: what it got, what it spent, and
 *      whether another client's new place still loads;
 *   2. one signed-in user posting 20 watches of new places at once: the answers, what they spent,
 *      and how many histories were loading at once;
 *   3. one client's 30 place searches at once: how long another client's search and a new
 *      place's label then take;
 *   4. with DATABASE_URL=postgres://…: three instances on that database, one client's 9 new places
 *      spread over them at once: how many load at once;
 *   5. the upkeep attack: 208 places held, a scan for held places with prefetch=1 (how many a client
 *      can test in 20 s), then 8 anonymous clients touching every held place once an hour for a
 *      whole UTC day (the service's clock moved by libfaketime, the fake upstream's with it): the
 *      day's spending, and whether a signed-in user and an anonymous client can still load a new
 *      place (the part kept for signed-in users);
 *   6. 45 client addresses × 3 place searches at once: how long another client's search waits.
 *   pnpm bench:fairness            (embedded PGlite in a temporary DATA_DIR; parts 1-3, 5, 6)
 *   DATABASE_URL=postgres://… pnpm bench:fairness
 *   FAIRNESS_PARTS=5,6 pnpm bench:fairness   (only those parts)
 *   FAIRNESS_PLACES=26 …                      (part 5 with 26 places and a day of 1,250 units)
 *   FAIRNESS_DAY=6000 …                       (part 5 with a day of 6,000 units, its places as they are)
 */
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as BuiltServer from "@climate-grade/server/test/BuiltServer"
import { FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"

const PASSWORD = "a fairness bench password"
const postgres = process.env.DATABASE_URL

interface Answer {
  readonly status: number
  readonly ms: number
  readonly body: { readonly detail?: string; readonly cell?: { readonly label: string | null } }
}

const ask = async (url: string, client: string, init: RequestInit = {}): Promise<Answer> => {
  const t0 = performance.now()
  const response = await fetch(url, { ...init, headers: { "x-forwarded-for": client, ...(init.headers as Record<string, string>) } })
  const body = (await response.json()) as Answer["body"]
  return { status: response.status, ms: performance.now() - t0, body }
}

const histogram = (answers: ReadonlyArray<Answer>) => {
  const counts = new Map<number, number>()
  for (const a of answers) counts.set(a.status, (counts.get(a.status) ?? 0) + 1)
  return [...counts].sort(([a], [b]) => a - b).map(([status, n]) => `${n}×${status}`).join(", ")
}

/** The most archive calls in flight at once, from the fake's log of arrivals and answer times. */
const mostAtOnce = (calls: ReadonlyArray<FakeOpenMeteo.FakeOpenMeteo["requests"]["archive"][number]>) => {
  const edges = calls.flatMap((c) => [
    [c.at, 1],
    [c.at + (c.ms ?? 0), -1]
  ] as const)
  edges.sort(([a, da], [b, db]) => a - b || da - db)
  let now = 0
  let most = 0
  for (const [, delta] of edges) {
    now += delta
    most = Math.max(most, now)
  }
  return most
}

const METRICS_TOKEN = "fairness-bench-metrics-token"

/** Cost units spent today, as the instance's `/metrics` says (of a day of `daily` units). */
const unitsSpent = async (origin: string, daily = 10_000) => {
  const text = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()
  const left = /^weather_budget_units_left(?:\{[^}]*\})? ([\d.e+]+)$/m.exec(text)
  return left === null ? Number.NaN : daily - Number(left[1])
}

/** A database of its own on the PostgreSQL server, dropped afterwards, so parts do not share a day's ledger. */
const scratchDatabase = (adminUrl: string) =>
  Effect.gen(function* () {
    const name = `cg_fairness_${randomBytes(4).toString("hex")}`
    const run = (statement: string) =>
      Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(adminUrl), maxConnections: 1 }), (sql) => sql.unsafe(statement))).pipe(
        Effect.provide(Reactivity.layer),
        Effect.orDie
      )
    yield* Effect.acquireRelease(run(`create database ${name}`), () => run(`drop database if exists ${name} with (force)`).pipe(Effect.ignore))
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    return url.href
  })

/** A fresh service (its own DATA_DIR, or its own database on the PostgreSQL server) with an account. */
const service = (env: Record<string, string>, email: string) =>
  Effect.gen(function* () {
    const dataDir = mkdtempSync(join(tmpdir(), "cg-fair-"))
    const database = postgres === undefined ? {} : { DATABASE_URL: yield* scratchDatabase(postgres) }
    const full = {
      PORT: "0",
      DATA_DIR: dataDir,
      AUTH_SECRET: "f".repeat(40),
      LOG_FORMAT: "json",
      TRUSTED_PROXY_HOPS: "1",
      METRICS_TOKEN,
      HISTORY_START: "1940-01-01",
      ...env,
      ...database
    }
    execFileSync(process.execPath, [BuiltServer.cli, "--email", email], {
      env: { PATH: process.env.PATH ?? "", ...full },
      input: PASSWORD,
      stdio: ["pipe", "ignore", "inherit"]
    })
    const running = yield* Effect.acquireRelease(
      Effect.promise(() => BuiltServer.spawnListening([BuiltServer.main], full, { logFile: join(dataDir, "out.log") })),
      (r) =>
        Effect.promise(
          () =>
            new Promise<void>((done) => {
              r.child.once("exit", () => done())
              r.child.kill("SIGTERM")
            })
        ).pipe(Effect.ensuring(Effect.sync(() => rmSync(dataDir, { recursive: true, force: true }))))
    )
    const origin = `http://127.0.0.1:${running.port}`
    const login = yield* Effect.promise(() =>
      fetch(`${origin}/api/v2/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "10.99.0.1" },
        body: JSON.stringify({ email, password: PASSWORD })
      })
    )
    const cookie = /session=[^;]+/.exec(login.headers.get("set-cookie") ?? "")?.[0] ?? ""
    return { origin, api: (path: string) => `${origin}/api/v2${path}`, cookie, full }
  })

const upstreams = Effect.gen(function* () {
  const weather = yield* FakeOpenMeteo.make
  const geocoder = yield* FakeNominatim.make
  // The free tier's budget and the default shares, not the fakes' unlimited default.
  return { weather, geocoder, env: { ...FakeEnv.upstreams(weather, geocoder), WEATHER_DAILY_UNITS: "10000" } }
})

const anonymousClient = Effect.scoped(
  Effect.gen(function* () {
    const { env, weather } = yield* upstreams
    weather.delayMs = 1_000
    const s = yield* service(env, "anon@example.org")
    const t0 = performance.now()
    const answers: Array<Answer> = []
    for (let i = 0; i < 14; i++) answers.push(yield* Effect.promise(() => ask(s.api(`/cell?lat=${10 + i}&lon=${10 + i}`), "10.1.0.1")))
    const seconds = (performance.now() - t0) / 1000
    const spent = yield* Effect.promise(() => unitsSpent(s.origin))
    const other = yield* Effect.promise(() => ask(s.api("/cell?lat=-10&lon=-10"), "10.1.0.2"))
    console.log(
      `1. one anonymous client, 14 new places in a row: ${histogram(answers)} in ${seconds.toFixed(1)} s; ` +
        `${spent.toFixed(0)} of 10,000 units spent; another client's new place: ${other.status}`
    )
    const refused = answers.find((a) => a.status !== 200)
    if (refused !== undefined) console.log(`   refusal: ${refused.status} ${refused.body.detail}`)
  })
)

const watchingUser = Effect.scoped(
  Effect.gen(function* () {
    const { env, weather } = yield* upstreams
    weather.delayMs = 1_000
    const s = yield* service(env, "watcher@example.org")
    const t0 = performance.now()
    const answers = yield* Effect.promise(() =>
      Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          ask(s.api("/alerts/watches"), "10.2.0.1", {
            method: "POST",
            headers: { cookie: s.cookie, "content-type": "application/json" },
            body: JSON.stringify({ lat: 20 + i, lon: -20 - i, kinds: ["heat"] })
          })
        )
      )
    )
    const answered = (performance.now() - t0) / 1000
    // Whatever the watches started in the background too: until no history has been asked for 10 s.
    let seen = -1
    while (seen !== weather.requests.archive.length) {
      seen = weather.requests.archive.length
      yield* Effect.sleep("10 seconds")
    }
    const lastCall = Math.max(...weather.requests.archive.map((c) => c.at + (c.ms ?? 0)))
    const spent = yield* Effect.promise(() => unitsSpent(s.origin))
    const other = yield* Effect.promise(() => ask(s.api("/cell?lat=-20&lon=-20"), "10.2.0.2"))
    console.log(
      `2. one signed-in user, 20 watches of new places at once: ${histogram(answers)}, answered in ${answered.toFixed(1)} s; ` +
        `${weather.requests.archive.length} histories loaded, the last ${((lastCall - t0 - performance.timeOrigin) / 1000).toFixed(1)} s after ` +
        `the first watch; ${spent.toFixed(0)} of 10,000 units spent; at most ${mostAtOnce(weather.requests.archive)} loading at once; ` +
        `another client's new place: ${other.status}`
    )
    const kinds = new Map<string, number>()
    for (const a of answers) if (a.status >= 400) kinds.set(`${a.status} ${a.body.detail}`, (kinds.get(`${a.status} ${a.body.detail}`) ?? 0) + 1)
    for (const [what, n] of kinds) console.log(`   ${n}× ${what}`)
  })
)

const searchBurst = Effect.scoped(
  Effect.gen(function* () {
    const { env } = yield* upstreams
    const s = yield* service(env, "search@example.org")
    const burst = Promise.all(Array.from({ length: 30 }, (_, i) => ask(s.api(`/places?q=burst+${i}`), "10.3.0.1")))
    // The burst has arrived and is being served.
    yield* Effect.sleep("1500 millis")
    const [other, label, answers] = yield* Effect.promise(() =>
      Promise.all([
        ask(s.api("/places?q=elsewhere"), "10.3.0.2"),
        (async () => {
          const t0 = performance.now()
          for (;;) {
            const answer = await ask(s.api("/grade?lat=-30&lon=-30"), "10.3.0.3")
            if (answer.status !== 200 || answer.body.cell?.label !== null) return { ...answer, ms: performance.now() - t0 }
            await new Promise((resolve) => setTimeout(resolve, 100))
          }
        })(),
        burst
      ])
    )
    const slowest = Math.max(...answers.map((a) => a.ms))
    console.log(
      `3. one client's 30 place searches at once (${histogram(answers)}, the last in ${(slowest / 1000).toFixed(1)} s): ` +
        `another client's search ${(other.ms / 1000).toFixed(1)} s (${other.status}), a new place's label ${(label.ms / 1000).toFixed(1)} s`
    )
  })
)

const threeInstances = Effect.scoped(
  Effect.gen(function* () {
    const { env, weather } = yield* upstreams
    weather.delayMs = 3_000
    const first = yield* service({ ...env, WEATHER_DAILY_UNITS: "unlimited" }, "three@example.org")
    const others = yield* Effect.forEach([1, 2], () =>
      Effect.acquireRelease(
        Effect.promise(() => BuiltServer.spawnListening([BuiltServer.main], first.full)),
        (r) => Effect.sync(() => r.child.kill("SIGTERM"))
      )
    )
    const origins = [first.origin, ...others.map((r) => `http://127.0.0.1:${r.port}`)]
    const answers = yield* Effect.promise(() =>
      Promise.all(Array.from({ length: 9 }, (_, i) => ask(`${origins[i % 3]}/api/v2/cell?lat=${40 + i}&lon=${40 + i}`, "10.4.0.1")))
    )
    console.log(
      `4. three instances on one PostgreSQL, one client's 9 new places spread over them at once: ${histogram(answers)}; ` +
        `at most ${mostAtOnce(weather.requests.archive)} loading at once`
    )
  })
)

const FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
const HOUR_MS = 3_600_000

/** `n` held places' coordinates, a degree apart, away from the other parts'. */
const heldPlaces = (n: number) => Array.from({ length: n }, (_, i) => ({ lat: -50 + Math.floor(i / 20), lon: -170 + (i % 20) }))

/**
 * Part 5's scale: FAIRNESS_PLACES held places (208 by default) and a day's budget scaled with
 * them (10,000 units for 208), so a smaller run keeps the attack's proportions. FAIRNESS_DAY sets
 * the day instead: touching 208 places hourly costs about 6,300 units, under the anonymous part of
 * 10,000 (7,500), so a smaller day is how the run shows that part's cap at work.
 */
const PLACES = Number(process.env.FAIRNESS_PLACES ?? 208)
const UPKEEP_DAY = Number(process.env.FAIRNESS_DAY ?? Math.round((10_000 * PLACES) / 208))

const upkeepAttack = Effect.scoped(
  Effect.gen(function* () {
    const { env, weather } = yield* upstreams
    // The service's clock is real time plus an offset read from a file (libfaketime); the fake
    // upstream's "now" takes the same offset, so the days they speak of agree.
    const clockFile = join(mkdtempSync(join(tmpdir(), "cg-clock-")), "offset")
    let offsetMs = 0
    const moveClock = (ms: number) => {
      offsetMs = ms
      writeFileSync(clockFile, `+${Math.round(ms / 1000)}`)
    }
    moveClock(0)
    weather.now = () => Date.now() + offsetMs
    // A short history, so that loading the held places costs little on the day before.
    const s = yield* service(
      {
        ...env,
        WEATHER_DAILY_UNITS: String(UPKEEP_DAY),
        HISTORY_START: new Date(Date.now() - 60 * 86_400_000).toISOString().slice(0, 10),
        LD_PRELOAD: FAKETIME,
        FAKETIME_TIMESTAMP_FILE: clockFile,
        FAKETIME_NO_CACHE: "1",
        FAKETIME_DONT_FAKE_MONOTONIC: "1"
      },
      "upkeep@example.org"
    )
    const places = heldPlaces(PLACES)
    // The day before: each place loaded once, by many clients (as people would).
    yield* Effect.forEach(places, (p, i) => Effect.promise(() => ask(s.api(`/cell?lat=${p.lat}&lon=${p.lon}`), `10.50.${i >> 8}.${i & 255}`)), {
      concurrency: 4
    })
    // The next UTC day, five minutes in.
    const dayStart = (Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000
    const at = (ms: number) => moveClock(dayStart + ms - Date.now())
    at(5 * 60_000)

    // The scan: one client's prefetch=1 over a grid of places, for 20 s.
    const scanStatuses = new Map<number, number>()
    const scanStart = performance.now()
    for (let i = 0; performance.now() - scanStart < 20_000; i++) {
      const response = yield* Effect.promise(() =>
        fetch(s.api(`/cell?lat=${(i % 160) - 80}&lon=${Math.floor(i / 160) - 179}&prefetch=1`), { headers: { "x-forwarded-for": "10.60.0.1" } })
      )
      yield* Effect.promise(() => response.arrayBuffer())
      scanStatuses.set(response.status, (scanStatuses.get(response.status) ?? 0) + 1)
    }
    const scanned = (scanStatuses.get(200) ?? 0) + (scanStatuses.get(204) ?? 0)
    const scanSeconds = (performance.now() - scanStart) / 1000
    const statuses = [...scanStatuses].sort(([a], [b]) => a - b).map(([status, n]) => `${n}×${status}`).join(", ")
    console.log(
      `5. a scan for held places with prefetch=1, one client for ${scanSeconds.toFixed(0)} s: ${statuses}; ${scanned} places tested ` +
        `(12,800 would take ${((12_800 / Math.max(1, scanned)) * scanSeconds / 3600).toFixed(2)} h at that pace)`
    )

    // The touch: 8 anonymous clients, each a share of the held places, every place once an hour.
    const attackers = Array.from({ length: 8 }, (_, i) => `10.70.${i}.1`)
    const answers: Array<number> = []
    for (let hour = 0; hour < 24; hour++) {
      at(5 * 60_000 + hour * HOUR_MS + 60_000)
      const round = yield* Effect.forEach(
        places,
        (p, i) => Effect.promise(() => ask(s.api(`/cell?lat=${p.lat}&lon=${p.lon}`), attackers[i % attackers.length]!)),
        { concurrency: 4 }
      )
      answers.push(...round.map((a) => a.status))
    }
    const spent = yield* Effect.promise(() => unitsSpent(s.origin, UPKEEP_DAY))
    const calls = weather.requests.archive.length + weather.requests.forecast.length
    const signedInNew = yield* Effect.promise(() => ask(s.api("/cell?lat=60&lon=60"), "10.80.0.1", { headers: { cookie: s.cookie } }))
    const anonymousNew = yield* Effect.promise(() => ask(s.api("/cell?lat=61&lon=61"), "10.80.0.2"))
    const counts = new Map<number, number>()
    for (const a of answers) counts.set(a, (counts.get(a) ?? 0) + 1)
    console.log(
      `   8 anonymous clients touching the ${PLACES} held places hourly for a day: ${[...counts].map(([st, n]) => `${n}×${st}`).join(", ")}; ` +
        `the day's spending ${spent.toFixed(0)} of ${UPKEEP_DAY} units (the part kept for signed-in users: the last ${Math.round(UPKEEP_DAY / 4)}); ` +
        `${calls} upstream calls in all; then a signed-in user's new place: ${signedInNew.status} in ${(signedInNew.ms / 1000).toFixed(1)} s, ` +
        `an anonymous client's: ${anonymousNew.status} in ${(anonymousNew.ms / 1000).toFixed(1)} s`
    )
    if (signedInNew.status !== 200) console.log(`   refusal: ${signedInNew.status} ${signedInNew.body.detail}`)
  })
)

const searchCrowd = Effect.scoped(
  Effect.gen(function* () {
    const { env } = yield* upstreams
    const s = yield* service(env, "crowd@example.org")
    const crowd = Promise.all(
      Array.from({ length: 45 * 3 }, (_, i) => ask(s.api(`/places?q=crowd+${i}`), `10.90.${Math.floor(i / 3)}.1`))
    )
    yield* Effect.sleep("1500 millis")
    const [victim, answers] = yield* Effect.promise(() => Promise.all([ask(s.api("/places?q=victim"), "10.91.0.1"), crowd]))
    console.log(
      `6. 45 client addresses × 3 searches at once (${histogram(answers)}, the last in ${(Math.max(...answers.map((a) => a.ms)) / 1000).toFixed(1)} s): ` +
        `another client's search ${(victim.ms / 1000).toFixed(1)} s (${victim.status})`
    )
  })
)

const parts = new Set((process.env.FAIRNESS_PARTS ?? "1,2,3,4,5,6").split(",").map((p) => p.trim()))

const main = Effect.gen(function* () {
  yield* Effect.promise(() => BuiltServer.build())
  console.log(`fairness on ${postgres === undefined ? "PGlite (a DATA_DIR per part)" : "PostgreSQL"}; figures from a shared machine are noisy`)
  if (parts.has("1")) yield* anonymousClient
  if (parts.has("2")) yield* watchingUser
  if (parts.has("3")) yield* searchBurst
  if (parts.has("4")) {
    if (postgres !== undefined) yield* threeInstances
    else console.log("4. three instances: needs DATABASE_URL=postgres://…")
  }
  if (parts.has("5")) yield* upkeepAttack
  if (parts.has("6")) yield* searchCrowd
})

Effect.runPromise(Effect.scoped(main)).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
