/**
 * The deployment of docs/deploy.md, run: three built instances on one PostgreSQL behind Debian's
 * nginx, which includes the repository's own `deploy/nginx/climate-grade-proxy.conf` (the test
 * writes only the parts that name its ports and temporary paths; no TLS). nginx runs as an
 * unprivileged process (as `nobody` when the suite runs as root) on loopback ports, its prefix,
 * pid and logs in a temporary directory. PostgreSQL-only: skipped without DATABASE_URL.
 *
 * Shown through the proxy: sign-in (the redirect URI from the forwarded host and scheme), ETag/304
 * and gzip intact, the sign-in throttle keyed on the real client address (clients on 127.0.0.5
 * and 127.0.0.6), one alert sent once across the three, no failed GET while an instance is
 * killed with SIGKILL, and no failed request of any kind (POSTs included) across a rolling
 * restart (SIGTERM one at a time, each started again) but, at most once, the POST that the race of a
 * connection queued as a listener closes can cost (docs/deploy.md), and a place's data held by nginx's cache
 * for its s-maxage, so 10,000 requests for it reach the instances a handful of times. Then a
 * rolling upgrade between two versions: this tree's build, and the next release made from it with
 * one more, expand-only migration (BuiltServer.buildNext); one instance upgraded (its start runs
 * the migration while the other serves), both answering side by side, then the other; no request
 * through nginx fails, signed-in ones included (but for that same race). Counts are printed.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { Agent, request } from "node:http"
import { join, resolve } from "node:path"
import { gunzipSync } from "node:zlib"
import { CivilDate, Cell } from "@climate-grade/core"
import { Browser, FakeChatBot, FakeChatProvider, FakeEnv, FakeNominatim, FakeOpenMeteo, Skips } from "@climate-grade/testing"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as BuiltServer from "./support/BuiltServer.js"

const admin = process.env.DATABASE_URL
const onPostgres = admin?.startsWith("postgres") === true
const nginxBinary = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((path) => existsSync(path))
const repository = resolve(BuiltServer.root, "..", "..")

if (onPostgres && nginxBinary === undefined && process.env.CI === "true") throw new Error("nginx is not installed; .ci/run installs it")

const left = BuiltServer.leftovers("cg-nginx-")
const databases: Array<string> = []
/** A new database on the test's PostgreSQL, dropped after the file; its URL. */
const newDatabase = (purpose: string) => {
  const name = `cg_${purpose}_${process.pid}_${Date.now()}`
  execFileSync("psql", [admin!, "-qc", `create database ${name}`])
  databases.push(name)
  const url = new URL(admin!)
  url.pathname = `/${name}`
  return url
}

beforeAll(async () => {
  if (onPostgres && nginxBinary !== undefined) await BuiltServer.build()
}, 60_000)
/** nginx's master, stopped by SIGTERM so it stops its workers: a SIGKILL would leave them running, orphaned. */
const masters: Array<ChildProcess> = []
afterAll(async () => {
  for (const master of masters) {
    if (master.exitCode !== null || master.signalCode !== null) continue
    const exited = new Promise<void>((done) => master.once("exit", () => done()))
    master.kill("SIGTERM")
    await Promise.race([exited, new Promise((done) => setTimeout(done, 5_000))])
  }
  left.cleanup()
  for (const name of databases) execFileSync("psql", [admin!, "-qc", `drop database if exists ${name} with (force)`])
})

interface Outcome {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: Buffer
}

/** One request through node:http (it sends the Host given, and can leave from another loopback address). */
const send = (
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; agent?: Agent; localAddress?: string } = {}
) =>
  new Promise<Outcome>((done, fail) => {
    const req = request(
      url,
      {
        method: options.method ?? "GET",
        headers: options.headers ?? {},
        ...(options.agent === undefined ? { agent: false } : { agent: options.agent }),
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress })
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
        res.on("error", fail)
      }
    )
    req.setTimeout(30_000, () => req.destroy(new Error("timeout")))
    req.on("error", fail)
    req.end(options.body)
  })

/** A temporary directory nginx (perhaps as `nobody`) can read and write. */
const nginxDirectory = () => {
  const dir = left.tempDir()
  for (const sub of ["logs", "tmp"]) mkdirSync(join(dir, sub))
  if (process.getuid?.() === 0) for (const path of [dir, join(dir, "logs"), join(dir, "tmp")]) chmodSync(path, 0o777)
  return dir
}

/** The repository's http-level cache settings, the cache in `dir`. */
const cacheConf = (dir: string) =>
  readFileSync(join(repository, "deploy/nginx/climate-grade-cache.conf"), "utf8").replaceAll("/var/cache/nginx/climate-grade", `${dir}/cache`)

/**
 * The upstream block's keep-alive lines as deploy/nginx/climate-grade.conf has them: how long nginx
 * keeps an idle connection decides whether a stopping instance ever closes one under it.
 */
const upstreamKeepalive = () => {
  const upstream = /^upstream climate_grade \{$[^}]*^\}$/m.exec(readFileSync(join(repository, "deploy/nginx/climate-grade.conf"), "utf8"))?.[0] ?? ""
  const lines = upstream.match(/^\s*keepalive(_timeout)? [^;]+;$/gm) ?? []
  expect(lines.length).toBe(2)
  return lines.map((line) => `    ${line.trim()}`).join("\n")
}

/** nginx on a loopback port, before the given instances, with the repository's proxy settings. */
const startNginx = async (ports: ReadonlyArray<number>) => {
  const dir = nginxDirectory()
  const port = await BuiltServer.freePort()
  // The snippet as the repository ships it, copied so that an unprivileged nginx can read it.
  writeFileSync(join(dir, "climate-grade-proxy.conf"), readFileSync(join(repository, "deploy/nginx/climate-grade-proxy.conf")))
  writeFileSync(join(dir, "climate-grade-cache.conf"), cacheConf(dir))
  writeFileSync(
    join(dir, "nginx.conf"),
    `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log info;
events { worker_connections 4096; }
http {
  access_log ${dir}/logs/access.log;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  include ${dir}/climate-grade-cache.conf;
  upstream climate_grade {
${ports.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join("\n")}
${upstreamKeepalive()}
  }
  server {
    listen 127.0.0.1:${port};
    include ${dir}/climate-grade-proxy.conf;
  }
}
`
  )
  for (const file of ["nginx.conf", "climate-grade-proxy.conf", "climate-grade-cache.conf"]) chmodSync(join(dir, file), 0o644)
  const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
  const child = spawn(nginxBinary!, ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "logs/error.log")], {
    stdio: ["ignore", "pipe", "pipe"],
    ...asNobody
  })
  let output = ""
  child.stdout!.on("data", (d: Buffer) => (output += d))
  child.stderr!.on("data", (d: Buffer) => (output += d))
  masters.push(child)
  left.track({ child })
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${output}`)
    const up = await send(`http://127.0.0.1:${port}/api/v2/health`).then(
      (r) => r.status,
      () => 0
    )
    if (up === 200) break
    await new Promise((r) => setTimeout(r, 100))
  }
  return { port, child, errorLog: () => readFileSync(join(dir, "logs/error.log"), "utf8") }
}

/**
 * What a rolling restart may lose, given the load's failures and nginx's error log over the roll:
 * nothing but, at most once, the race docs/deploy.md names. A connection nginx opened in the
 * instant an instance's listener closed sat in the kernel's queue and was reset by the close; nginx
 * passes such a GET on, but not a POST it has already written (502). A few loaded runs met it once
 * (1 POST of 8,305). Any other failure, a second one, a 502 without its reset in nginx's log, or a
 * connection an instance closed under a request it had taken ("prematurely closed") fails.
 */
const expectOnlyTheQueueRace = (failures: ReadonlyArray<string>, log: string) => {
  const lines = log.split("\n")
  const errors = lines.filter((line) => line.includes("[error]") && !line.includes("(111: Connection refused)"))
  const queueResets = lines.filter((line) => /\(104: Connection reset by peer\) while reading response header from upstream/.test(line))
  const lostPosts = failures.filter((failure) => failure.startsWith("POST 502 "))
  expect({ failures: failures.filter((failure) => !failure.startsWith("POST 502 ")), nginx: errors }).toEqual({ failures: [], nginx: expect.any(Array) })
  expect(lostPosts.length, `POSTs lost in the roll; nginx said:\n${errors.join("\n")}`).toBeLessThanOrEqual(Math.min(1, queueResets.length))
  expect(log).not.toMatch(/prematurely closed/)
}

/**
 * Requests in a loop from `workers` callers until `stop()`: GETs of a held place (with
 * `getHeaders`), and (with `posts`) every third request a POST /auth/logout, which answers 204
 * however often it is sent.
 */
const load = (origin: string, workers: number, posts: boolean, gets: ReadonlyArray<string>, getHeaders: Record<string, string> = {}) => {
  const agent = new Agent({ keepAlive: true, maxSockets: workers })
  const counts = { get: 0, post: 0, failedGet: 0, failedPost: 0 }
  const failures: Array<string> = []
  let running = true
  const worker = async (w: number) => {
    for (let i = 0; running; i++) {
      const post = posts && (i + w) % 3 === 0
      try {
        const answer = post
          ? await send(`${origin}/api/v2/auth/logout`, { method: "POST", agent })
          : await send(`${origin}${gets[i % gets.length]!}`, { agent, headers: getHeaders })
        const ok = post ? answer.status === 204 : answer.status === 200
        if (post) counts.post++
        else counts.get++
        if (!ok) {
          if (post) counts.failedPost++
          else counts.failedGet++
          failures.push(`${post ? "POST" : "GET"} ${answer.status} ${answer.body.toString().slice(0, 120)}`)
        }
      } catch (e) {
        if (post) counts.failedPost++
        else counts.failedGet++
        failures.push(`${post ? "POST" : "GET"} ${(e as Error).message}`)
      }
    }
  }
  const all = Promise.all(Array.from({ length: workers }, (_, w) => worker(w)))
  return {
    counts,
    failures,
    stop: async () => {
      running = false
      await all
      agent.destroy()
      return counts
    }
  }
}

describe.runIf(
  Skips.unless(onPostgres, "the deployment test (three instances behind nginx)", "it needs DATABASE_URL (postgres://…): the three share one PostgreSQL") &&
    Skips.unless(nginxBinary !== undefined, "the deployment test (three instances behind nginx)", "no nginx (Debian's nginx)")
)("three instances behind nginx (deploy/nginx)", () => {
  it("sign-in, 304 and gzip through the proxy, limits per real client, one alert, no request lost to kill -9 or a rolling restart", async () => {
    const scope = Effect.runSync(Scope.make())
    try {
      const weather = await Effect.runPromise(Scope.extend(FakeOpenMeteo.make, scope))
      const geocoder = await Effect.runPromise(Scope.extend(FakeNominatim.make, scope))
      const chat = await Effect.runPromise(Scope.extend(FakeChatProvider.make(), scope))
      const bot = await Effect.runPromise(Scope.extend(FakeChatBot.make(), scope))
      const url = newDatabase("nginx")

      // The watched place: record heat tomorrow, whatever its normal.
      const hot = Cell.fromCoordinates(47.5, 8.5)
      weather.forecastOverride = (lat, lon, day) => {
        if (Math.abs(lat - hot.lat) > 1e-9 || Math.abs(lon - hot.lon) > 1e-9) return undefined
        const today = CivilDate.todayIn(weather.now(), weather.timezone)
        const normal = FakeOpenMeteo.weather(lat, lon, day)
        return day === today + 1 ? { tmax: Math.round((normal.tmax + 16) * 10) / 10 } : undefined
      }

      const ports = await Promise.all([0, 1, 2].map(() => BuiltServer.freePort()))
      const env = {
        DATABASE_URL: url.href,
        AUTH_SECRET: "a secret shared by the three instances, long enough",
        TRUSTED_PROXY_HOPS: "1",
        HISTORY_START: "2015-01-01",
        LOGIN_ADDRESS_FAILURES: "3",
        ...FakeEnv.upstreams(weather, geocoder),
        ...FakeEnv.provider("CHAT", chat),
        CHAT_BOT_TOKEN: bot.token,
        CHAT_API_URL: bot.apiUrl,
        ALERT_EVALUATE_EVERY_MS: "1000",
        ALERT_POLL_MS: "200"
      }
      const instances: Array<BuiltServer.Running> = []
      const logFiles: Array<string> = []
      const startInstance = async (i: number) => {
        const logFile = join(left.tempDir(), "server.log")
        logFiles.push(logFile)
        instances[i] = left.track(await BuiltServer.start({ ...env, PORT: String(ports[i]) }, { logFile, timeoutMs: 120_000 }))
      }
      // One first (it migrates), then the other two.
      await startInstance(0)
      await Promise.all([startInstance(1), startInstance(2)])
      const nginx = await startNginx(ports)
      const origin = `http://127.0.0.1:${nginx.port}`

      // Sign-in through the proxy: the redirect URI names the proxy's host and port (Host passed
      // whole), and its scheme is what nginx says, not what the client claims.
      chat.profile = { id: "nginx-user", username: "n", global_name: "N", email: "nginx@example.org", verified: true }
      const browser = new Browser()
      const start = await browser.fetch(`${origin}/api/v2/oauth/chat/login/start`, { headers: { "x-forwarded-proto": "https" } })
      expect(start.status).toBe(303)
      const redirectUri = new URL(start.headers.get("location")!).searchParams.get("redirect_uri")
      expect(redirectUri).toBe(`${origin}/api/v2/chat/link/callback`)
      const signedIn = await browser.follow(start.headers.get("location")!, { stop: (u) => u.pathname === "/alerts" })
      expect(new URL(signedIn.url).searchParams.get("oauth")).toBe("created")
      const me = await browser.fetch(`${origin}/api/v2/users/me`)
      expect(((await me.json()) as { chat_id: string }).chat_id).toBe("nginx-user")

      // ETag/304 and gzip through nginx, whichever instance answers.
      const place = "/api/v2/cell?lat=40.1&lon=-3.7"
      const first = await send(`${origin}${place}`, { headers: { "accept-encoding": "gzip" } })
      expect(first.status).toBe(200)
      expect(first.headers["content-encoding"]).toBe("gzip")
      expect(JSON.parse(gunzipSync(first.body).toString())).toHaveProperty("calendar")
      const etag = String(first.headers.etag)
      expect(etag).toMatch(/^W\/"/)
      for (let i = 0; i < 6; i++) {
        const again = await send(`${origin}${place}`, { headers: { "accept-encoding": "gzip", "if-none-match": etag } })
        expect([again.status, again.body.length, again.headers.etag]).toEqual([304, 0, etag])
      }

      // A link that goes viral: 10,000 requests for one new place within a minute, half of them
      // revalidations as browsers send, paced over about 30 s. nginx holds the data answers for
      // their s-maxage: the instances see the first request and about one per view per window.
      const viral = "/api/v2/cell?lat=45.1&lon=7.7"
      // Counted from the instances' own access lines.
      const reached = () => logFiles.reduce((n, file) => n + readFileSync(file, "utf8").split(viral).length - 1, 0)
      const reachedBefore = reached()
      const sharedMaxAge = Number(/s-maxage=(\d+)/.exec(String((await send(`${origin}${place}`)).headers["cache-control"]))?.[1])
      expect(sharedMaxAge).toBeGreaterThanOrEqual(1)
      const viralAgent = new Agent({ keepAlive: true, maxSockets: 32 })
      const cacheStatus = new Map<string, number>()
      const viralStatus = new Map<number, number>()
      let viralEtag = ""
      let next = 0
      const viralStart = Date.now()
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          for (let i = next++; i < 10_000; i = next++) {
            const due = viralStart + i * 3
            if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()))
            const revalidate = i % 2 === 1 && viralEtag !== ""
            const answer = await send(`${origin}${viral}`, {
              agent: viralAgent,
              headers: { "accept-encoding": "gzip", ...(revalidate ? { "if-none-match": viralEtag } : {}) }
            })
            if (answer.status === 200 && viralEtag === "") viralEtag = String(answer.headers.etag)
            viralStatus.set(answer.status, (viralStatus.get(answer.status) ?? 0) + 1)
            const cached = String(answer.headers["x-cache-status"])
            cacheStatus.set(cached, (cacheStatus.get(cached) ?? 0) + 1)
          }
        })
      )
      viralAgent.destroy()
      const viralSeconds = (Date.now() - viralStart) / 1000
      // The access lines are written as the answers go out: give the last a moment.
      await new Promise((r) => setTimeout(r, 500))
      const atInstances = reached() - reachedBefore
      const allowed = Math.ceil(viralSeconds / sharedMaxAge) + 1
      console.log(
        `nginx: a viral place: 10,000 requests in ${viralSeconds.toFixed(1)} s (${[...viralStatus].map(([k, v]) => `${v} × ${k}`).join(", ")}; ` +
          `cache ${[...cacheStatus].map(([k, v]) => `${k} ${v}`).join(", ")}) reached the instances ${atInstances} times ` +
          `(s-maxage ${sharedMaxAge} s: at most ${allowed})`
      )
      expect([...viralStatus.keys()].every((status) => status === 200 || status === 304)).toBe(true)
      expect(viralSeconds).toBeLessThan(60)
      expect(atInstances).toBeGreaterThanOrEqual(1)
      expect(atInstances).toBeLessThanOrEqual(allowed)

      // The throttle counts the client nginx saw, not nginx: 127.0.0.5 is refused after three
      // failures (on any instance: the count is in the database), 127.0.0.6 is not.
      const badLogin = (from: string, n: number) =>
        send(`${origin}/api/v2/auth/login`, {
          method: "POST",
          localAddress: from,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: `nobody-${n}@example.org`, password: "wrong password" })
        })
      const fromFive = []
      for (let n = 0; n < 4; n++) fromFive.push((await badLogin("127.0.0.5", n)).status)
      expect(fromFive).toEqual([400, 400, 400, 429])
      expect((await badLogin("127.0.0.6", 9)).status).toBe(400)

      // An alert, sent once though three instances evaluate the watch every second.
      const dm = await browser.fetch(`${origin}/api/v2/chat/dm`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ enabled: true })
      })
      expect(dm.status).toBe(200)
      const watch = await browser.fetch(`${origin}/api/v2/alerts/watches`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ lat: hot.lat, lon: hot.lon, kinds: ["heat"] })
      })
      expect(watch.status).toBe(201)
      const alertDeadline = Date.now() + 60_000
      while (bot.delivered.length === 0 && Date.now() < alertDeadline) await new Promise((r) => setTimeout(r, 200))
      // Several more passes on every instance.
      await new Promise((r) => setTimeout(r, 4_000))
      expect(bot.delivered.map((d) => d.recipientId)).toEqual(["nginx-user"])

      // GETs while one instance is killed outright: nginx retries each on another.
      const gets = ["/api/v2/grade?lat=40.1&lon=-3.7", place, "/api/v2/calendar?lat=40.1&lon=-3.7"]
      const killLoad = load(origin, 8, false, gets)
      await new Promise((r) => setTimeout(r, 2_000))
      instances[1]!.child.kill("SIGKILL")
      await instances[1]!.exited
      await new Promise((r) => setTimeout(r, 3_000))
      const killed = await killLoad.stop()
      await startInstance(1)

      // A rolling restart under GETs and POSTs: each instance stopped with SIGTERM, started again,
      // and answering before the next one stops.
      const logBeforeRoll = nginx.errorLog().length
      const rollLoad = load(origin, 8, true, gets)
      await new Promise((r) => setTimeout(r, 1_000))
      for (const i of [0, 1, 2]) {
        instances[i]!.child.kill("SIGTERM")
        expect(await instances[i]!.exited).toBe(0)
        await startInstance(i)
        await new Promise((r) => setTimeout(r, 1_000))
      }
      const rolled = await rollLoad.stop()

      const retried = (text: string) => (text.match(/while reading response header from upstream|while connecting to upstream/g) ?? []).length
      console.log(
        `nginx: kill -9 of one instance under GET load: ${killed.get} GETs, ${killed.failedGet} failed ` +
          `(nginx passed ${retried(nginx.errorLog().slice(0, logBeforeRoll))} on to another instance); ` +
          `rolling restart (SIGTERM, 3 instances): ${rolled.get} GETs, ${rolled.failedGet} failed, ` +
          `${rolled.post} POSTs, ${rolled.failedPost} failed (nginx passed ${retried(nginx.errorLog().slice(logBeforeRoll))} on, ` +
          `refused connections only); alert messages sent: ${bot.delivered.length}`
      )
      // What nginx said of a failed request, but for the refused connects it passes on.
      const said = nginx
        .errorLog()
        .split("\n")
        .filter((line) => line.includes("[error]") && !line.includes("(111: Connection refused)"))
      expect({ failures: killLoad.failures, nginx: said }).toEqual({ failures: [], nginx: expect.any(Array) })
      expect(killed.get).toBeGreaterThan(100)
      expect(rolled.post).toBeGreaterThan(50)
      expectOnlyTheQueueRace(rollLoad.failures, nginx.errorLog().slice(logBeforeRoll))
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 300_000)
})

describe.runIf(
  Skips.unless(onPostgres, "the rolling upgrade behind nginx", "it needs DATABASE_URL (postgres://…): the instances share one PostgreSQL") &&
    Skips.unless(nginxBinary !== undefined, "the rolling upgrade behind nginx", "no nginx (Debian's nginx)")
)("a rolling upgrade with a migration behind nginx (deploy/nginx)", () => {
  let next: BuiltServer.NextRelease | undefined
  afterAll(() => next?.remove())

  it("an instance of this release beside one of the next, whose start runs one more (expand-only) migration, then the other upgraded: no request through nginx fails", async () => {
    const scope = Effect.runSync(Scope.make())
    try {
      const weather = await Effect.runPromise(Scope.extend(FakeOpenMeteo.make, scope))
      const geocoder = await Effect.runPromise(Scope.extend(FakeNominatim.make, scope))
      const chat = await Effect.runPromise(Scope.extend(FakeChatProvider.make(), scope))
      const url = newDatabase("upgrade")
      // The next release: this one's bundle with one more migration (test/support/NextMigration.ts).
      next = await BuiltServer.buildNext(join(BuiltServer.root, "test/support/NextMigration.ts"), "upgrade_notes")
      const ports = await Promise.all([0, 1].map(() => BuiltServer.freePort()))
      const env = {
        DATABASE_URL: url.href,
        AUTH_SECRET: "a secret shared by every instance, long enough",
        TRUSTED_PROXY_HOPS: "1",
        HISTORY_START: "2015-01-01",
        ...FakeEnv.upstreams(weather, geocoder),
        ...FakeEnv.provider("CHAT", chat)
      }
      const instances: Array<BuiltServer.Running> = []
      const logFiles: Array<string> = []
      const startInstance = async (i: number, release: "this" | "next") => {
        const logFile = join(left.tempDir(), "server.log")
        logFiles[i] = logFile
        instances[i] = left.track(
          await BuiltServer.start(
            { ...env, PORT: String(ports[i]), INSTANCE_ID: `${release}-${i}` },
            { logFile, timeoutMs: 120_000, ...(release === "next" ? { main: next!.main } : {}) }
          )
        )
      }
      const stopInstance = async (i: number) => {
        instances[i]!.child.kill("SIGTERM")
        expect(await instances[i]!.exited).toBe(0)
      }
      const migrations = () =>
        execFileSync("psql", [url.href, "-Atc", "select lpad(migration_id::text, 4, '0') || '_' || name from schema_migrations order by migration_id"]).toString().trim().split("\n")
      await startInstance(0, "this")
      await startInstance(1, "this")
      const before = migrations()
      expect(before).not.toContain(next.migration)
      const nginx = await startNginx(ports)
      const origin = `http://127.0.0.1:${nginx.port}`

      // A signed-in user: their session is read from the users and sessions tables on every
      // /users/me, by whichever instance nginx picks, old or new.
      chat.profile = { id: "upgrade-user", username: "u", global_name: "U", email: "upgrade@example.org", verified: true }
      const browser = new Browser()
      const start = await browser.fetch(`${origin}/api/v2/oauth/chat/login/start`)
      expect(start.status).toBe(303)
      await browser.follow(start.headers.get("location")!, { stop: (u) => u.pathname === "/alerts" })
      const session = browser.cookie(origin, "session")
      expect(session).toBeDefined()
      const place = "/api/v2/cell?lat=40.1&lon=-3.7"
      expect((await send(`${origin}${place}`)).status).toBe(200)

      // GETs of a place and of the signed-in user, and POSTs, throughout.
      const logBeforeUpgrade = nginx.errorLog().length
      const upgradeLoad = load(origin, 8, true, [place, "/api/v2/users/me", "/api/v2/grade?lat=40.1&lon=-3.7", "/api/v2/users/me"], {
        cookie: `session=${session}`
      })
      await new Promise((r) => setTimeout(r, 1_000))
      // The second instance upgraded: stopped, started as the next release, which migrates while
      // the first instance (this release) keeps answering.
      await stopInstance(1)
      await startInstance(1, "next")
      const after = migrations()
      expect(after).toEqual([...before, next.migration])
      // Side by side: both answer, the old one on the expanded schema.
      const answered = () => logFiles.map((file) => readFileSync(file, "utf8").split("/api/v2/users/me").length - 1)
      const sideBySide = answered()
      const since = () => answered().map((n, i) => n - sideBySide[i]!)
      // Until each has answered a few signed-in requests (a loaded machine serves few a second).
      const sideBySideUntil = Date.now() + 60_000
      while (Math.min(...since()) < 5 && Date.now() < sideBySideUntil) await new Promise((r) => setTimeout(r, 250))
      const byInstance = since()
      // Then the first: the migration is already there, so its start has nothing to run.
      await stopInstance(0)
      await startInstance(0, "next")
      await new Promise((r) => setTimeout(r, 1_000))
      const upgraded = await upgradeLoad.stop()
      expect(migrations()).toEqual(after)

      console.log(
        `nginx: rolling upgrade with migration ${next.migration} (two instances): ${upgraded.get} GETs, ${upgraded.failedGet} failed, ` +
          `${upgraded.post} POSTs, ${upgraded.failedPost} failed; /users/me answered side by side by this release ${byInstance[0]} times, by the next ${byInstance[1]} times`
      )
      expectOnlyTheQueueRace(upgradeLoad.failures, nginx.errorLog().slice(logBeforeUpgrade))
      expect(byInstance[0]).toBeGreaterThanOrEqual(5)
      expect(byInstance[1]).toBeGreaterThanOrEqual(5)
      expect(upgraded.post).toBeGreaterThan(50)
      // The session made before the upgrade is still good after it.
      const me = await browser.fetch(`${origin}/api/v2/users/me`)
      expect(((await me.json()) as { chat_id: string }).chat_id).toBe("upgrade-user")
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 300_000)
})

describe.runIf(
  Skips.unless(nginxBinary !== undefined && existsSync("/usr/bin/openssl"), "nginx -t on deploy/nginx/climate-grade.conf", "no nginx or no openssl")
)("deploy/nginx: climate-grade-http.conf, then climate-grade.conf", () => {
  it("installed in docs/deploy.md's order: port 80 alone serves the ACME challenge path before any certificate exists (not redirected), then the whole site passes nginx -t", async () => {
    const dir = nginxDirectory()
    // nginx binds the listen addresses: ports an unprivileged process may take.
    const [http, https] = [await BuiltServer.freePort(), await BuiltServer.freePort()]
    const shipped = (name: string) =>
      readFileSync(join(repository, "deploy/nginx", name), "utf8")
        .replaceAll("/etc/letsencrypt/live/grades.example.org/", `${dir}/`)
        .replaceAll("/etc/nginx/snippets/climate-grade-proxy.conf", join(dir, "climate-grade-proxy.conf"))
        .replaceAll("/var/www/letsencrypt", join(dir, "webroot"))
        .replaceAll("/var/log/nginx/", `${dir}/logs/`)
        .replace(/^\s*listen \[::\]:.*$/gm, "")
        .replace(/listen 80\b/g, `listen 127.0.0.1:${http}`)
        .replace(/listen 443\b/g, `listen 127.0.0.1:${https}`)
    const nginxConf = (sites: ReadonlyArray<string>) =>
      `pid ${dir}/nginx.pid;\nerror_log ${dir}/logs/error.log;\ndaemon off;\nevents {}\nhttp {\n  access_log off;\n  proxy_temp_path ${dir}/tmp/proxy;\n  client_body_temp_path ${dir}/tmp/body;\n  fastcgi_temp_path ${dir}/tmp/fastcgi;\n  uwsgi_temp_path ${dir}/tmp/uwsgi;\n  scgi_temp_path ${dir}/tmp/scgi;\n  include ${dir}/climate-grade-cache.conf;\n${sites.map((site) => `  include ${dir}/${site};\n`).join("")}}\n`
    const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
    writeFileSync(join(dir, "climate-grade-proxy.conf"), readFileSync(join(repository, "deploy/nginx/climate-grade-proxy.conf")))
    writeFileSync(join(dir, "climate-grade-cache.conf"), cacheConf(dir))
    writeFileSync(join(dir, "climate-grade-http.conf"), shipped("climate-grade-http.conf"))
    writeFileSync(join(dir, "climate-grade.conf"), shipped("climate-grade.conf"))
    // What certbot --webroot writes before it asks the CA to fetch it.
    mkdirSync(join(dir, "webroot/.well-known/acme-challenge"), { recursive: true })
    writeFileSync(join(dir, "webroot/.well-known/acme-challenge/token-1"), "token-1.key-authorization")
    for (const path of ["webroot", "webroot/.well-known", "webroot/.well-known/acme-challenge"]) chmodSync(join(dir, path), 0o755)

    // Stage 1: port 80 alone, no certificate anywhere yet.
    writeFileSync(join(dir, "nginx.conf"), nginxConf(["climate-grade-http.conf"]))
    for (const file of ["climate-grade-http.conf", "climate-grade.conf", "climate-grade-proxy.conf", "climate-grade-cache.conf", "nginx.conf", "webroot/.well-known/acme-challenge/token-1"]) {
      chmodSync(join(dir, file), 0o644)
    }
    const child = spawn(nginxBinary!, ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "logs/error.log")], {
      stdio: "ignore",
      ...asNobody
    })
    masters.push(child)
    left.track({ child })
    const at = (path: string, host: string) => send(`http://127.0.0.1:${http}${path}`, { headers: { host } })
    const deadline = Date.now() + 20_000
    while ((await at("/", "grades.example.org").then((r) => r.status, () => 0)) === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100))
    }
    const challenge = await at("/.well-known/acme-challenge/token-1", "grades.example.org")
    expect([challenge.status, challenge.body.toString()]).toEqual([200, "token-1.key-authorization"])
    const page = await at("/alerts?x=1", "grades.example.org")
    expect([page.status, page.headers.location]).toEqual([301, "https://grades.example.org/alerts?x=1"])
    // Another name: the connection is closed without an answer (444).
    await expect(at("/", "other.example.org")).rejects.toThrow()
    const stopped = new Promise<void>((done) => child.once("exit", () => done()))
    child.kill("SIGTERM")
    await stopped

    // Stage 2: the certificate issued (a throwaway one here), the whole site enabled.
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=grades.example.org",
      "-keyout", join(dir, "privkey.pem"), "-out", join(dir, "fullchain.pem")], { stdio: "ignore" })
    writeFileSync(join(dir, "nginx.conf"), nginxConf(["climate-grade-http.conf", "climate-grade.conf"]))
    for (const file of ["nginx.conf", "privkey.pem", "fullchain.pem"]) chmodSync(join(dir, file), 0o644)
    const result = spawnSync(nginxBinary!, ["-t", "-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "logs/error.log")], {
      encoding: "utf8",
      ...asNobody
    })
    expect([result.status, result.stderr]).toEqual([0, expect.stringMatching(/test is successful/)])
  })
})

describe.runIf(Skips.unless(existsSync("/usr/bin/systemd-analyze"), "systemd-analyze verify on deploy/systemd", "no systemd-analyze (Debian's systemd)"))("deploy/systemd", () => {
  it("the unit has no key or value systemd does not know (systemd-analyze verify)", () => {
    const dir = left.tempDir()
    writeFileSync(join(dir, "climate-grade@.service"), readFileSync(join(repository, "deploy/systemd/climate-grade@.service")))
    symlinkSync("climate-grade@.service", join(dir, "climate-grade@8081.service"))
    const result = spawnSync("systemd-analyze", ["verify", join(dir, "climate-grade@8081.service")], { encoding: "utf8" })
    // It says what it ignores on stderr and still exits 0.
    expect([result.status, result.stderr]).toEqual([0, ""])
  })
})
