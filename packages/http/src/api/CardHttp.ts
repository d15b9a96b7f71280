/**
 * `GET /card.png` — a place's today as a picture for link previews. Only what is held: the core's
 * `heldGrade` (no upstream or geocoder call), 404 without it. The ETag is made from the grade's
 * freshness token, the card's layout version and the units, so a 304 costs no drawing; a drawn
 * card is kept by that tag (bounded in bytes), and concurrent requests for one share one drawing.
 * Drawings run on the card pool's worker threads (CardPool: bounded in threads, in drawings waiting
 * and in time), never on the event loop; a drawing nobody waits for any more (every request for it
 * closed) is dropped; one client has at most `PER_CLIENT` drawings under way. Each drawing is
 * logged with how long it took.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { CardPool, CardSvg } from "@climate-grade/card"
import { ClientNetwork, Crypto, DataViews, HeldSpell, Languages, Lru, type NotableSpells, type Payloads, SingleFlight } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import { Api } from "./Api.js"
import { CACHE_CONTROL, ifNoneMatchMatches, weakEtag } from "../protocol/ConditionalGet.js"
import * as DataQuery from "./DataQuery.js"
import { failWithRetryAfter, NotFound, retryAfter, ServiceUnavailable, TooManyRequests } from "./Errors.js"
import { HttpSettings } from "./HttpSettings.js"
import { DemoData } from "../edge/Demo.js"
import { clientAddress } from "../protocol/RequestInfo.js"

/** Bytes of PNG kept at most (a card is ~40 KB: a few hundred places). */
export const CACHE_BYTES = 16 * 1024 * 1024

/** How long a client is asked to wait when its card could not be drawn (the pool full, or too slow). */
const DRAW_RETRY_SECONDS = 5

/** Drawings one client (its network: ClientNetwork) may have under way at once; past it, 429. */
export const PER_CLIENT = 2

export const NOT_HELD =
  "No grades are held for this place today. Open the place on the site first; its card can be drawn once its weather is loaded."

/**
 * The card's token: the grade's token, the units, the language, the spell, whether the weather is
 * a demo's and the layout version (a new layout is a new picture).
 */
export const cardToken = (
  gradeToken: string,
  units: "metric" | "imperial",
  spell: NotableSpells.NotableSpell | null = null,
  lang: Languages.Language = "en",
  demo = false
) => Crypto.contentToken(`card:${CardSvg.VERSION}:${units}:${lang}:${demo ? "demo:" : ""}${gradeToken}${spellKey(spell)}`)

/** What a card says of a spell, as part of its token: a spell that changes is a new picture. */
const spellKey = (notable: NotableSpells.NotableSpell | null) =>
  notable === null
    ? ""
    : `:${notable.spell.kind}|${notable.spell.start}|${notable.spell.severity}|${notable.spell.rank_peak}|${notable.spell.forecast}|${notable.since}`

export const make = Effect.gen(function* () {
  const views = yield* DataViews.DataViews
  const heldSpell = yield* HeldSpell.make
  const cards = Lru.make<string, Uint8Array>({ name: "cards", capacity: 1_000, maxWeight: CACHE_BYTES, weigh: (png) => png.byteLength })
  // The drawings are this layer's fibers: shutdown interrupts those under way.
  const flight = SingleFlight.makeWhileWanted<Uint8Array, ServiceUnavailable>(yield* FiberSet.make())
  const pool = yield* Effect.acquireRelease(
    Effect.sync(() => CardPool.make()),
    (pool) => Effect.promise(() => pool.close())
  )
  const { trustedProxyHops } = yield* HttpSettings
  const demo = yield* DemoData
  const underWay = new Map<string, number>()

  const draw = (
    token: string,
    plan: DataViews.Plan<Payloads.GradePayload>,
    units: "metric" | "imperial",
    spell: NotableSpells.NotableSpell | null,
    lang: Languages.Language
  ) =>
    Effect.gen(function* () {
      const grade = yield* plan.build
      // Interrupted (nobody waits any more), the signal takes the drawing out of the pool.
      const rendered = yield* Effect.tryPromise({
        try: (signal) => pool.draw(grade, units, signal, spell, lang, demo),
        catch: (cause) => cause
      }).pipe(
        Effect.tapError((cause) => Effect.logWarning(`card for ${plan.cell.lat},${plan.cell.lon} not drawn`, cause)),
        Effect.catchAll((cause) =>
          failWithRetryAfter(
            DRAW_RETRY_SECONDS,
            (retry_at) =>
              new ServiceUnavailable({
                detail:
                  cause instanceof CardPool.PoolFull
                    ? "Too many cards are waiting to be drawn; try again shortly."
                    : "The card could not be drawn in time; try again shortly.",
                code: "busy",
                retry_at
              })
          )
        )
      )
      yield* Effect.logInfo(`card drawn in ${rendered.ms.toFixed(1)} ms`).pipe(
        Effect.annotateLogs({ cell: `${plan.cell.lat},${plan.cell.lon}`, card_ms: Math.round(rendered.ms * 10) / 10 })
      )
      cards.set(token, rendered.png)
      return rendered.png
    })

  /** `effect` counted among the client's drawings under way, refused past `PER_CLIENT`. */
  const perClient = <A, E, R>(client: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | TooManyRequests, R> =>
    Effect.suspend((): Effect.Effect<A, E | TooManyRequests, R> => {
      const count = underWay.get(client) ?? 0
      if (count >= PER_CLIENT) {
        return failWithRetryAfter(
          2,
          (retry_at) =>
            new TooManyRequests({
              detail: `At most ${PER_CLIENT} cards are drawn at once for one client; try again shortly.`,
              code: "too-many-requests",
              retry_at
            })
        )
      }
      underWay.set(client, count + 1)
      return Effect.ensuring(
        effect,
        Effect.sync(() => {
          const left = (underWay.get(client) ?? 1) - 1
          if (left <= 0) underWay.delete(client)
          else underWay.set(client, left)
        })
      )
    })

  return (query: {
    readonly lat: number
    readonly lon: number
    readonly units?: "metric" | "imperial" | undefined
    readonly lang?: Languages.Language | undefined
  }) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const lang = Languages.choose({ query: query.lang, acceptLanguage: request.headers["accept-language"] })
      const cell = DataQuery.cellOf(query)
      const units = query.units ?? "metric"
      const held = yield* views.heldGrade(cell)
      if (Option.isNone(held)) return yield* new NotFound({ detail: NOT_HELD, code: "not-held" })
      const spell = Option.getOrNull(yield* heldSpell(cell))
      const token = cardToken(held.value.token, units, spell, lang, demo)
      const etag = weakEtag(token)
      // Without lang= the words follow Accept-Language.
      const headers = { etag, "cache-control": CACHE_CONTROL, vary: "Accept-Language" }
      if (ifNoneMatchMatches(request.headers["if-none-match"], etag)) return HttpServerResponse.empty({ status: 304, headers })
      // A drawing that finished while this request was on its way is not drawn again.
      const png =
        cards.get(token) ??
        (yield* perClient(
          ClientNetwork.of(clientAddress(request, trustedProxyHops)),
          flight(
            token,
            Effect.suspend(() => {
              const kept = cards.get(token)
              return kept === undefined ? draw(token, held.value, units, spell, lang) : Effect.succeed(kept)
            })
          ).pipe(
            // The drawing's refusal was made on the shared drawing's fiber: its Retry-After is set
            // again here, on this request's, whose answer it is.
            Effect.tapError(() => retryAfter(DRAW_RETRY_SECONDS))
          )
        ))
      return HttpServerResponse.uint8Array(png, { status: 200, contentType: "image/png", headers })
    })
})

export const layer = HttpApiBuilder.group(Api, "card", (handlers) =>
  Effect.map(make, (card) => handlers.handle("card", ({ urlParams }) => card(urlParams)))
)
