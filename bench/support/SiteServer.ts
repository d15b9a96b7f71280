/**
 * The built service as `pnpm start` runs it (apps/server/dist/main.js serving apps/site/dist), on
 * in-memory PGlite, with fake Open-Meteo, Nominatim and `chat` provider on loopback; and Chromium.
 * For `pnpm screenshots` and `pnpm bench:site`, which look at the real pages without the internet.
 */
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import * as BuiltServer from "@climate-grade/server/test/BuiltServer"
import { Chromium, FakeChatProvider, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import * as Effect from "effect/Effect"

export const root = join(import.meta.dirname, "..", "..")

/** The built server in its own process, with `nodeFlags` before its script; resolves once it listens, with its port. */
export const startService = (env: Record<string, string>, nodeFlags: ReadonlyArray<string> = []) =>
  BuiltServer.spawnListening([...nodeFlags, BuiltServer.main], env)

export const siteServer = Effect.gen(function* () {
  const weather = yield* FakeOpenMeteo.make
  const geocoder = yield* FakeNominatim.make
  const chat = yield* FakeChatProvider.make()
  // What `pnpm start` builds: the server bundle and the site.
  execFileSync(process.execPath, ["build.mjs"], { cwd: join(root, "apps/server"), stdio: "inherit" })
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: join(root, "apps/site"), stdio: "inherit" })
  const service = yield* Effect.acquireRelease(
    Effect.promise(() =>
      startService({
        PORT: "0",
        DATABASE_URL: "memory://",
        AUTH_SECRET: "s".repeat(40),
        LOG_FORMAT: "json",
        ...FakeEnv.upstreams(weather, geocoder),
        HISTORY_START: "1940-01-01",
        ...FakeEnv.provider("CHAT", chat),
        CHAT_LABEL: "Chat"
      })
    ),
    ({ child }) => Effect.sync(() => child.kill("SIGKILL"))
  )
  const browser = yield* Effect.acquireRelease(Effect.promise(Chromium.launch), (b) => Effect.promise(() => b.close()))
  const origin = `http://127.0.0.1:${service.port}`
  // The service's output so far: its JSON log lines, the access log among them.
  const serverLog = () => service.stdout()
  return { origin, url: (path: string) => `${origin}${path}`, weather, geocoder, chat, browser, serverLog }
})
