/**
 * A cell's local midnight, lived through by the built server: in the day's last minute a client
 * revalidating today's bundle is still answered from the response index (held until that midnight
 * exactly, not dropped a minute early), and from midnight on the same ETag gets the new day's
 * bundle. The server's clock is moved with Debian's libfaketime (an `LD_PRELOAD` library that
 * offsets the wall clock a process reads; its timers keep the real monotonic clock), by a
 * timestamp file it rereads every second; the fake Open-Meteo follows the same offset.
 */
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { FakeEnv, FakeNominatim, FakeOpenMeteo, Skips } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as BuiltServer from "./support/BuiltServer.js"
import { sampleValue } from "./support/Prometheus.js"

const LIBFAKETIME = ["/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"].find(
  (path) => existsSync(path)
)
if (LIBFAKETIME === undefined) {
  if (process.env.CI === "true") throw new Error("libfaketime is not installed; .ci/run installs it")
  Skips.note("the test that lives through a cell's midnight", "no libfaketime (Debian's libfaketime)")
}

// Berlin (the fake's zone) on 15 December 2026 is UTC+1: its midnight is 23:00 UTC.
const MIDNIGHT = Date.UTC(2026, 11, 15, 23, 0, 0)
const METRICS_TOKEN = "midnight-metrics-token"
const CELL = "/api/v2/cell?lat=52.52&lon=13.41"

const left = BuiltServer.leftovers("cg-midnight-")
const scope = Effect.runSync(Scope.make())

beforeAll(async () => {
  if (LIBFAKETIME !== undefined) await BuiltServer.build()
}, 60_000)
afterAll(async () => {
  left.cleanup()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const sleep = (ms: number) => new Promise((done) => setTimeout(done, Math.max(0, ms)))

const indexAnswers = (metrics: string) => sampleValue(metrics, 'http_cache_answers_total{tier="index"}')

describe.skipIf(LIBFAKETIME === undefined)("the cell's local midnight", () => {
  it("in the day's last minute revalidations are answered from the index; from midnight the same ETag gets the new day", async () => {
    const weather = await Effect.runPromise(Scope.extend(FakeOpenMeteo.make, scope))
    const geocoder = await Effect.runPromise(Scope.extend(FakeNominatim.make, scope))
    const clockFile = join(left.tempDir(), "faketime")
    writeFileSync(clockFile, "+0s")
    const server = left.track(
      await BuiltServer.start(
        {
          DATABASE_URL: "memory://",
          ...FakeEnv.upstreams(weather, geocoder),
          HISTORY_START: "1980-01-01",
          METRICS_TOKEN,
          LD_PRELOAD: LIBFAKETIME!,
          FAKETIME_TIMESTAMP_FILE: clockFile,
          FAKETIME_CACHE_DURATION: "1",
          FAKETIME_DONT_FAKE_MONOTONIC: "1"
        },
        { timeoutMs: 120_000 }
      )
    )
    const url = (path: string) => `http://127.0.0.1:${server.port}${path}`

    // Once it listens, the server's clock (and the fake upstream's) moves to 25 s before midnight.
    const offset = MIDNIGHT - 25_000 - Date.now()
    writeFileSync(clockFile, `${offset >= 0 ? "+" : ""}${(offset / 1000).toFixed(3)}s`)
    weather.now = () => Date.now() + offset
    const now = () => Date.now() + offset
    for (let tries = 0; ; tries++) {
      const said = Date.parse((await fetch(url("/api/v2/health"))).headers.get("date") ?? "")
      if (Math.abs(said - now()) < 2_000) break
      if (tries > 50) throw new Error(`the server's clock did not move: it says ${new Date(said).toISOString()}`)
      await sleep(200)
    }

    const first = await fetch(url(CELL))
    expect(first.status).toBe(200)
    const etag = first.headers.get("etag")!
    expect(((await first.json()) as { grade: { data: { date: string } } }).grade.data.date).toBe("2026-12-15")

    const metrics = async () => indexAnswers(await (await fetch(url("/metrics"), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text())
    const before = await metrics()
    const statuses: Array<number> = []
    for (let i = 0; i < 3; i++) statuses.push((await fetch(url(CELL), { headers: { "if-none-match": etag } })).status)
    const answered = now()
    expect(statuses).toEqual([304, 304, 304])
    // All three within the day's last minute, and all three from the index.
    if (answered >= MIDNIGHT) throw new Error(`the cold bundle took too long: revalidated ${answered - MIDNIGHT} ms after midnight`)
    expect(MIDNIGHT - answered).toBeLessThan(60_000)
    expect((await metrics()) - before).toBe(3)

    // Past midnight, the ETag of the day before is no longer today's.
    await sleep(MIDNIGHT + 1_000 - now())
    const next = await fetch(url(CELL), { headers: { "if-none-match": etag } })
    expect(next.status).toBe(200)
    expect(next.headers.get("etag")).not.toBe(etag)
    expect(((await next.json()) as { grade: { data: { date: string } } }).grade.data.date).toBe("2026-12-16")
  }, 180_000)
})
