/**
 * Direct messages in the reader's language and units, end to end on PGlite and PostgreSQL: a user
 * who signs in with the fake chat provider from a German page (`login/start?lang=de`, as the site's
 * sign-in link sends it) gets the alert's message in German through the fake chat bot; a user who
 * picked °F on the site (`PATCH /users/me`) gets °F and the pages' percentile; `PATCH /users/me`
 * refuses bad bodies with a 400 in words.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Cell } from "@climate-grade/core"
import { backends, Browser, FakeChatBot, FakeChatProvider, FakeEnv, FakeNominatim, FakeOpenMeteo } from "@climate-grade/testing"
import { TestServer, testServerLayer } from "@climate-grade/server/test/TestServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

class World extends Context.Tag("test/MessageVoiceWorld")<
  World,
  {
    readonly chat: FakeChatProvider.FakeChatProvider
    readonly bot: FakeChatBot.FakeChatBot
    /** Cells whose forecast days are record hot (60 °C highs). */
    readonly hot: Set<string>
  }
>() {}

const world = (backend: (typeof backends)[number]) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const chat = yield* FakeChatProvider.make()
      const bot = yield* FakeChatBot.make()
      const weather = yield* FakeOpenMeteo.make
      const geocoder = yield* FakeNominatim.make
      const hot = new Set<string>()
      // Every forecast day record hot, so whichever day's message comes first, it is a record's.
      weather.forecastOverride = (lat, lon) => (hot.has(Cell.fromCoordinates(lat, lon).key) ? { tmax: 60 } : undefined)
      const env = {
        ...FakeEnv.upstreams(weather, geocoder),
        ...FakeEnv.provider("CHAT", chat),
        HISTORY_START: "1980-01-01",
        CHAT_BOT_TOKEN: bot.token,
        CHAT_API_URL: bot.apiUrl,
        ALERT_EVALUATE_EVERY_MS: "150",
        ALERT_RETRY_BASE_MS: "100",
        ALERT_POLL_MS: "100"
      }
      return Layer.merge(testServerLayer(env, backend.layer), Layer.succeed(World, { chat, bot, hot }))
    })
  )

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)
let counter = 0

/** Signs a new user in with the chat provider from `start` (the sign-in link's query) and `headers`. */
const signIn = (query: string, headers: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const { chat } = yield* World
    const subject = `voice-${Date.now()}-${++counter}`
    const browser = new Browser()
    const status = yield* promise(async () => {
      chat.profile = { id: subject, email: `${subject}@example.org`, verified: true }
      const start = await browser.fetch(server.url(`/api/v2/oauth/chat/login/start${query}`), { headers })
      const done = await browser.follow(start.headers.get("location")!, { stop: (u) => u.pathname.endsWith("/alerts") })
      return new URL(done.url).searchParams.get("oauth")
    })
    expect(status).toBe("created")
    return { browser, subject }
  })

const me = (browser: Browser) =>
  Effect.flatMap(TestServer, (server) =>
    promise(() => browser.fetch(server.url("/api/v2/users/me")).then((r) => r.json() as Promise<Record<string, unknown>>))
  )

const patchMe = (browser: Browser, body: string) =>
  Effect.flatMap(TestServer, (server) =>
    promise(async () => {
      const r = await browser.fetch(server.url("/api/v2/users/me"), {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body
      })
      return { status: r.status, body: (await r.json()) as Record<string, unknown> }
    })
  )

/** Watches a fresh, record-hot place for heat and waits for the one message the bot receives. */
const alertOf = (browser: Browser, subject: string) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const { bot, hot } = yield* World
    const place = { lat: Number((-30 + counter * 3 + 0.1).toFixed(2)), lon: Number((-120 + counter * 3 + 0.05).toFixed(2)) }
    hot.add(Cell.fromCoordinates(place.lat, place.lon).key)
    const watch = yield* promise(() =>
      browser.fetch(server.url("/api/v2/alerts/watches"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...place, kinds: ["heat"] })
      })
    )
    expect(watch.status).toBe(201)
    const until = Date.now() + 30_000
    while (!bot.delivered.some((d) => d.recipientId === subject) && Date.now() < until) {
      yield* promise(() => new Promise((r) => setTimeout(r, 50)))
    }
    const sent = bot.delivered.filter((d) => d.recipientId === subject)
    expect(sent.length).toBeGreaterThanOrEqual(1)
    return sent[0]!.content
  })

for (const backend of backends) {
  describe(`messages in the reader's voice on ${backend.name}`, () => {
    layer(world(backend), { timeout: 180_000 })((it) => {
      it.effect("signed in from a German page: the direct message is in German, its number with a decimal comma", () =>
        Effect.gen(function* () {
          // The page's language wins over the browser's.
          const { browser, subject } = yield* signIn("?lang=de", { "accept-language": "fr-FR,fr;q=0.9" })
          expect(yield* me(browser)).toMatchObject({ lang: "de", units: null })
          const content = yield* alertOf(browser, subject)
          expect(content).toMatch(/^Hitzewarnung für .+ am \S+, \d+\. \S+ \d{4}: Höchsttemperatur 60,0 °C, ein Wärmerekord für diesen Ort und diese Jahreszeit\. \S+\/\?lat=[-0-9.]+&lon=[-0-9.]+&date=\d{4}-\d{2}-\d{2}$/)
        })
      )

      it.effect("no lang= on the start: Accept-Language's best; a later sign-in from another page's language replaces it", () =>
        Effect.gen(function* () {
          const { browser } = yield* signIn("", { "accept-language": "pt-BR,pt;q=0.9,en;q=0.5" })
          expect(yield* me(browser)).toMatchObject({ lang: "pt" })
          const { browser: other } = yield* signIn("?lang=xx&units=imperial")
          expect(yield* me(other)).toMatchObject({ lang: "en", units: "imperial" })
        })
      )

      it.effect("a user who chose °F gets °F and the pages' percentile; PATCH /users/me checks its body", () =>
        Effect.gen(function* () {
          const { browser, subject } = yield* signIn("?lang=en")
          const set = yield* patchMe(browser, JSON.stringify({ units: "imperial" }))
          expect(set.status).toBe(200)
          expect(set.body).toMatchObject({ lang: "en", units: "imperial", chat_dm: true })
          const content = yield* alertOf(browser, subject)
          expect(content).toMatch(/^Heat alert for .+ on [A-Z][a-z]{2} \d{1,2} [A-Z][a-z]+ \d{4}: high temperature 140\.0 °F, a record high for this place and time of year\. /)
          expect(content).not.toMatch(/°C|percentile 100/)

          for (const [body, detail] of [
            ["[]", /JSON object/],
            ["{}", /Nothing to set/],
            ['{"units": "kelvin"}', /'units' must be/],
            ['{"lang": "xx"}', /'lang' must be one of en, de, fr, es, pt, ja, ar/],
            ['{"lang": "de", "theme": "dark"}', /Unknown member "theme"/],
            ["not json", /JSON/]
          ] as const) {
            const answer = yield* patchMe(browser, body)
            expect([body, answer.status]).toEqual([body, 400])
            expect(answer.body.detail).toMatch(detail)
          }
          // Nothing the refusals carried was kept.
          expect(yield* me(browser)).toMatchObject({ lang: "en", units: "imperial" })
          const server = yield* TestServer
          const anonymous = yield* promise(() =>
            fetch(server.url("/api/v2/users/me"), { method: "PATCH", headers: { "content-type": "application/json" }, body: '{"units":"metric"}' })
          )
          expect(anonymous.status).toBe(401)
        })
      )
    })
  })
}
