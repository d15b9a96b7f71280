/**
 * `pnpm demo`: the real service (the built `apps/server/dist/main.js`, serving the built site) on a
 * persistent embedded database, with everything it talks to faked on loopback — Open-Meteo,
 * Nominatim, a `chat` sign-in provider and its bot — so a newcomer can sign in, watch a place and
 * see an alert arrive with no network at all. The bot's direct messages are listed on a page of
 * the demo's own (Inbox.ts). One place (Gazetteer.EXTREME) has a record-hot coming day, so
 * watching it brings an alert within seconds.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, openSync, closeSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { Cell, CivilDate } from "@climate-grade/core"
// Each fake by its own module: the package's index also loads the OIDC provider, which the demo does not use.
import * as FakeChatBot from "@climate-grade/testing/FakeChatBot"
import * as FakeChatProvider from "@climate-grade/testing/FakeChatProvider"
import * as FakeEnv from "@climate-grade/testing/FakeEnv"
import * as FakeNominatim from "@climate-grade/testing/FakeNominatim"
import * as FakeOpenMeteo from "@climate-grade/testing/FakeOpenMeteo"
import * as Effect from "effect/Effect"
import * as Gazetteer from "./Gazetteer.js"
import * as Inbox from "./Inbox.js"

/** The repository's root (this file is apps/demo/src/Demo.ts). */
export const ROOT = resolve(import.meta.dirname, "..", "..", "..")
export const SERVER_MAIN = join(ROOT, "apps", "server", "dist", "main.js")

export interface DemoOptions {
  /** Where the demo keeps its database (`data/`) and the service's log; default `.demo` in the repository. */
  readonly dir?: string
  readonly port?: number
  readonly inboxPort?: number
}

export interface Demo {
  readonly siteUrl: string
  readonly inboxUrl: string
  readonly dataDir: string
  readonly logFile: string
  readonly bot: FakeChatBot.FakeChatBot
  readonly server: ChildProcess
}

/** Who the fake provider signs in: the same person every time, so the demo's account persists. */
export const PROFILE = { id: "demo-user", username: "demo", global_name: "Demo User", email: "demo@example.org", verified: true }

/** The extreme place's today (+9 °C) and tomorrow (+16 °C, and a warm night): records, whatever its normal. */
const extremeDays = (weather: FakeOpenMeteo.FakeOpenMeteo) => {
  const cell = Cell.fromCoordinates(Gazetteer.EXTREME.lat, Gazetteer.EXTREME.lon)
  weather.forecastOverride = (lat, lon, day) => {
    if (Math.abs(lat - cell.lat) > 1e-9 || Math.abs(lon - cell.lon) > 1e-9) return undefined
    const local = Gazetteer.localOf(lat, lon)
    const today = CivilDate.todayIn(weather.now(), local.timezone)
    const normal = FakeOpenMeteo.weather(lat, lon, day, local.climate)
    if (day === today) return { tmax: Math.round((normal.tmax + 9) * 10) / 10 }
    if (day === today + 1) return { tmax: Math.round((normal.tmax + 16) * 10) / 10, tmin: Math.round((normal.tmin + 12) * 10) / 10 }
    return undefined
  }
}

const health = async (url: string) => {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).status === 200
  } catch {
    // Not listening yet.
    return false
  }
}

/** The service as a process of its own, its output in `logFile`; stopped (SIGTERM, then SIGKILL after 15 s) with the scope. */
const service = (env: Record<string, string>, logFile: string, siteUrl: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const log = openSync(logFile, "a")
        // A process group of its own: Ctrl-C in the terminal reaches the demo, which stops the service
        // with one SIGTERM. (Signalled by both, the service would take the second signal mid-drain.)
        const child = spawn(process.execPath, [SERVER_MAIN], {
          env: { PATH: process.env.PATH ?? "", ...env },
          stdio: ["ignore", log, log],
          detached: true
        })
        // Should the demo itself die abruptly, the service does not outlive it.
        const orphaned = () => child.kill("SIGKILL")
        process.once("exit", orphaned)
        void new Promise((done) => child.once("exit", done)).then(() => process.removeListener("exit", orphaned))
        closeSync(log)
        const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
        const started = Date.now()
        while (!(await health(`${siteUrl}api/v2/health`))) {
          if (child.exitCode !== null || child.signalCode !== null || Date.now() - started > 120_000) {
            child.kill("SIGKILL")
            await exited
            const tail = readFileSync(logFile, "utf8").trim().split("\n").slice(-5).join("\n")
            throw new Error(`the service did not start (its log, ${logFile}, ends with):\n${tail}`)
          }
          await new Promise((r) => setTimeout(r, 200))
        }
        return { child, exited }
      },
      catch: (error) => (error instanceof Error ? error : new Error(String(error)))
    }),
    ({ child, exited }) =>
      Effect.promise(async () => {
        if (child.exitCode !== null || child.signalCode !== null) return
        child.kill("SIGTERM")
        const timer = setTimeout(() => child.kill("SIGKILL"), 15_000)
        await exited
        clearTimeout(timer)
      })
  )

/** Starts everything; it all stops with the scope. */
export const start = (options: DemoOptions = {}) =>
  Effect.gen(function* () {
    const dir = resolve(options.dir ?? join(ROOT, ".demo"))
    const dataDir = join(dir, "data")
    const logFile = join(dir, "server.log")
    // The database's own directory is the service's to create (owner-only, as it wants it).
    mkdirSync(dir, { recursive: true })
    const port = options.port ?? 8088
    const siteUrl = `http://127.0.0.1:${port}/`

    const weather = yield* FakeOpenMeteo.make
    const geocoder = yield* FakeNominatim.make
    const chat = yield* FakeChatProvider.make({ clientId: "demo-chat" })
    const bot = yield* FakeChatBot.make("demo-bot-token")
    chat.profile = PROFILE
    Gazetteer.install(geocoder)
    // Each city its own time zone and climate; anywhere else the zone of its longitude.
    weather.local = Gazetteer.localOf
    extremeDays(weather)

    const env: Record<string, string> = {
      HOST: "127.0.0.1",
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_FORMAT: "json",
      // The weather is made up: every page, shared head and card says so.
      DEMO_DATA: "on",
      ...FakeEnv.upstreams(weather, geocoder),
      ...FakeEnv.provider("CHAT", chat),
      CHAT_LABEL: "Chat",
      CHAT_BOT_TOKEN: bot.token,
      CHAT_API_URL: bot.apiUrl,
      // The fake weather costs nothing: no daily budget, so any number of places may be opened.
      WEATHER_DAILY_UNITS: "unlimited",
      // Demo pace: the outbox looked at every second, a failed send retried after 2 s, every watched
      // place evaluated every minute (besides at once when watched).
      ALERT_POLL_MS: "1000",
      ALERT_RETRY_BASE_MS: "2000",
      ALERT_EVALUATE_EVERY_MS: "60000"
    }
    const server = yield* service(env, logFile, siteUrl)
    const inbox = yield* Inbox.serve(bot, siteUrl, options.inboxPort ?? port + 1)
    return { siteUrl, inboxUrl: inbox.url, dataDir, logFile, bot, server: server.child } satisfies Demo
  })

/** What the demo prints once it runs. */
export const banner = (demo: Demo): string => {
  const dataDir = relative(ROOT, demo.dataDir) || "."
  return [
    "",
    "Climate grade demo: the real service, fake weather, geocoder, sign-in and chat bot, all on this machine.",
    "",
    `  Site:     ${demo.siteUrl}`,
    `  Account:  ${demo.siteUrl}alerts   ("Sign in with Chat" signs you in as ${PROFILE.username}, ${PROFILE.email})`,
    `  Inbox:    ${demo.inboxUrl}   (the direct messages the chat bot received)`,
    "",
    `  Try: sign in, open ${Gazetteer.EXTREME.name} (${demo.siteUrl}?lat=${Gazetteer.EXTREME.lat}&lon=${Gazetteer.EXTREME.lon}), press`,
    "  'Watch this place', and watch the inbox: its coming days are record-hot, so an alert arrives within seconds.",
    `  Places the fake geocoder knows: ${Gazetteer.PLACES.map((p) => p.name).join(", ")}.`,
    "",
    `  A password account, through the running service:`,
    `    printf '%s' 'a long password' | DATA_DIR=${dataDir} pnpm user:create --email you@example.org`,
    "",
    `  (paths from the repository root) The database persists in ${dataDir}; the service's log is ${relative(ROOT, demo.logFile)}.`,
    "  Ctrl-C stops everything.",
    ""
  ].join("\n")
}
