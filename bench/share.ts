/**
 * `pnpm bench:share`: what a shared link costs.
 * (a) The card: `CardPng.render` (layout, rasterising on the thread pool, PNG encoding) over many
 *     renders of varied grades — wall-clock median and p99, and the process CPU time per card; then
 *     `CardPng.drawSync` (what the card pool's worker runs) in English, Arabic and Japanese, each
 *     for a place named in its own script: the CPU time of the first such card (the script font's
 *     character map read, nothing measured yet) and the median over varied ones.
 * (b) A shared-link visit: the main page for a held place's address with its head, as a chat
 *     client or a browser fetches it (gzip admitted) — bytes on the wire (status line, headers and
 *     body) — and the time the server takes to answer it, against the plain page.
 * Runs the real service in-process on in-memory PGlite with the fake weather and geocoder; needs
 * the site built (`pnpm --filter @climate-grade/site build`, done here).
 */
import { execFileSync } from "node:child_process"
import { request } from "node:http"
import { loadavg } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { CardPng } from "@climate-grade/card"
import type { Payloads } from "@climate-grade/core"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import { backends, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Effect from "effect/Effect"

const root = join(import.meta.dirname, "..")
const RENDERS = Number(process.env.RENDERS ?? 300)
const LANGUAGE_RENDERS = Number(process.env.LANGUAGE_RENDERS ?? 100)
const VISITS = Number(process.env.VISITS ?? 500)

const quantile = (sorted: ReadonlyArray<number>, q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
const summary = (xs: Array<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return `median ${quantile(s, 0.5).toFixed(1)} ms, p99 ${quantile(s, 0.99).toFixed(1)} ms (n = ${s.length})`
}

/** A raw GET: the bytes that came over the socket for the answer (status line, headers, body). */
const fetchRaw = (url: string, headers: Record<string, string>) =>
  new Promise<{ status: number; wire: number; body: number; ms: number }>((done, fail) => {
    const start = performance.now()
    const req = request(url, { headers }, (res) => {
      let body = 0
      res.on("data", (c: Buffer) => (body += c.length))
      res.on("end", () => {
        const head = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n${res.rawHeaders.map((v, i) => (i % 2 === 0 ? `${v}: ` : `${v}\r\n`)).join("")}\r\n`
        done({ status: res.statusCode ?? 0, wire: Buffer.byteLength(head) + body, body, ms: performance.now() - start })
      })
    })
    req.on("error", fail)
    req.end()
  })

const program = Effect.gen(function* () {
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: join(root, "apps/site"), stdio: "inherit" })
  const weather = yield* FakeOpenMeteo.make
  const geocoder = yield* FakeNominatim.make
  geocoder.addresses.set("52.50,13.50", { city: "Berlin", country_code: "de" })
  const env = { ...FakeEnv.upstreams(weather, geocoder), DATABASE_URL: "memory://" }
  yield* Effect.gen(function* () {
    const server = yield* TestServer
    const place = "lat=52.52&lon=13.4"
    const grade = (yield* Effect.promise(() => fetch(server.url(`/api/v2/grade?${place}`)).then((r) => r.json()))) as Payloads.GradePayload

    // (a) The card, with values and percentiles varied so no two renders draw the same picture.
    const vary = (i: number, label = grade.cell.label): Payloads.GradePayload => {
      const p = (i * 37) % 101
      return {
        ...grade,
        cell: { ...grade.cell, label },
        variables: {
          tmax: { ...grade.variables.tmax, value: -10 + (i % 50), percentile: p },
          tmin: { ...grade.variables.tmin, value: -20 + (i % 30), percentile: 100 - p },
          precip: { ...grade.variables.precip, value: (i % 7) * 3.3, percentile: (p * 3) % 100 }
        }
      }
    }
    const walls: Array<number> = []
    const cpus: Array<number> = []
    for (let i = 0; i < RENDERS; i++) {
      const cpu = process.cpuUsage()
      const rendered = yield* Effect.promise(() => CardPng.render(vary(i), i % 2 === 0 ? "metric" : "imperial"))
      const used = process.cpuUsage(cpu)
      walls.push(rendered.ms)
      cpus.push((used.user + used.system) / 1000)
    }
    console.log(`card render, wall:        ${summary(walls)}`)
    console.log(`card render, process CPU: ${summary(cpus)}`)
    for (const [lang, label] of [["en", "Berlin, DE"], ["ar", "القاهرة, EG"], ["ja", "札幌市, JP"]] as const) {
      const drawn: Array<number> = []
      for (let i = 0; i <= LANGUAGE_RENDERS; i++) {
        const cpu = process.cpuUsage()
        CardPng.drawSync(vary(i, label), i % 2 === 0 ? "metric" : "imperial", null, lang)
        const used = process.cpuUsage(cpu)
        drawn.push((used.user + used.system) / 1000)
      }
      const [first, ...rest] = drawn
      console.log(`card drawn in ${lang} (${label}), process CPU: first ${first!.toFixed(1)} ms, then ${summary(rest)}`)
    }
    console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`)

    // (b) A shared-link visit.
    const gzip = { "accept-encoding": "gzip, deflate, br" }
    const page = yield* Effect.promise(() => fetchRaw(server.url(`/?${place}`), gzip))
    const plain = yield* Effect.promise(() => fetchRaw(server.url("/"), gzip))
    const identity = yield* Effect.promise(() => fetchRaw(server.url(`/?${place}`), {}))
    console.log(
      `shared-link page: ${page.wire} bytes on the wire (${page.body} gzip body; ${identity.body} bytes of HTML), ` +
        `against ${plain.wire} for the plain page`
    )
    const card = yield* Effect.promise(() => fetchRaw(server.url(`/api/v2/card.png?${place}`), gzip))
    console.log(`its card: ${card.wire} bytes on the wire (status ${card.status})`)
    for (const [label, path] of [["place page", `/?${place}`], ["plain page", "/"]] as const) {
      const times: Array<number> = []
      for (let i = 0; i < VISITS; i++) times.push((yield* Effect.promise(() => fetchRaw(server.url(path), gzip))).ms)
      console.log(`${label} answered in ${summary(times)}`)
    }
  }).pipe(Effect.provide(testServerLayer(env, backends[0]!.layer)))
})

Effect.runPromise(Effect.scoped(program)).then(
  () => process.exit(0),
  (e) => {
    console.error(e)
    process.exit(1)
  }
)
