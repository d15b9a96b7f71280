/**
 * The chat provider's bot API (Discord's shape), implementing the core's `ChatBot` port
 * (docs/api.md "Alerts"): `POST {CHAT_API_URL}/users/@me/channels {"recipient_id"}` opens (or finds) the
 * direct-message channel and answers `{"id"}`; `POST {CHAT_API_URL}/channels/{id}/messages
 * {"content", "nonce", "enforce_nonce": true}` sends (the nonce makes a resend idempotent). Both carry `Authorization: Bot {CHAT_BOT_TOKEN}`. A 429 says how long to
 * wait — `retry_after` in the body (seconds, fractional), else `Retry-After` — and every other
 * failure (a status of 300 or more, a network fault, a timeout, an answer without an id) is a
 * value with a reason.
 */
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { ChatBot, ChatFailure, ChatRateLimited } from "@climate-grade/core"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

export interface ChatBotConfig {
  /** e.g. `https://discord.com/api/v10`, no trailing slash needed. */
  readonly apiUrl: string
  readonly token: Redacted.Redacted<string>
  /** Per call; 10 seconds unless set. */
  readonly timeout?: Duration.DurationInput
}

/** When a 429 names no wait. */
const DEFAULT_RETRY_AFTER_MS = 5_000

const Channel = Schema.Struct({ id: Schema.NonEmptyString })
const RateLimitBody = Schema.Struct({ retry_after: Schema.Number })

/** The wait a 429 asks for, in ms: the body's `retry_after` (seconds), else `Retry-After` (seconds or a date). */
export const retryAfterMs = (body: unknown, header: string | undefined, now: number): number => {
  const decoded = Schema.decodeUnknownOption(RateLimitBody)(body)
  if (decoded._tag === "Some" && Number.isFinite(decoded.value.retry_after) && decoded.value.retry_after >= 0) {
    return Math.ceil(decoded.value.retry_after * 1000)
  }
  if (header !== undefined) {
    const trimmed = header.trim()
    if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed) * 1000)
    const date = Date.parse(trimmed)
    if (!Number.isNaN(date)) return Math.max(0, date - now)
  }
  return DEFAULT_RETRY_AFTER_MS
}

export const make = (config: ChatBotConfig) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const base = config.apiUrl.replace(/\/+$/, "")
    const timeout = config.timeout ?? Duration.seconds(10)

    const call = (step: string, path: string, body: unknown) =>
      HttpClientRequest.post(`${base}${path}`).pipe(
        HttpClientRequest.setHeader("authorization", `Bot ${Redacted.value(config.token)}`),
        HttpClientRequest.acceptJson,
        HttpClientRequest.bodyUnsafeJson(body),
        client.execute,
        Effect.flatMap((response: HttpClientResponse.HttpClientResponse) =>
          Effect.gen(function* () {
            const json = yield* Effect.orElseSucceed(response.json, () => undefined as unknown)
            if (response.status === 429) {
              const now = yield* Clock.currentTimeMillis
              return yield* new ChatRateLimited({ retryAfterMs: retryAfterMs(json, response.headers["retry-after"], now) })
            }
            if (response.status >= 300) return yield* new ChatFailure({ reason: `${step}: status ${response.status}` })
            return json
          })
        ),
        Effect.scoped,
        Effect.timeoutFail({ duration: timeout, onTimeout: () => new ChatFailure({ reason: `${step}: timed out` }) }),
        Effect.catchTags({
          RequestError: (e) => Effect.fail(new ChatFailure({ reason: `${step}: request failed (${e.reason})` })),
          ResponseError: (e) => Effect.fail(new ChatFailure({ reason: `${step}: response failed (${e.reason})` }))
        })
      )

    return ChatBot.of({
      send: (recipientId, content, nonce) =>
        Effect.gen(function* () {
          const answer = yield* call("open channel", "/users/@me/channels", { recipient_id: recipientId })
          const channel = yield* Schema.decodeUnknown(Channel)(answer).pipe(
            Effect.mapError(() => new ChatFailure({ reason: "open channel: the answer has no channel id" }))
          )
          // `enforce_nonce`: a message with this nonce made in the last few minutes is answered
          // instead of a new one, so a resend after a crash does not repeat it.
          yield* call("send message", `/channels/${encodeURIComponent(channel.id)}/messages`, {
            content,
            nonce,
            enforce_nonce: true
          })
        }).pipe(Effect.withSpan("ChatBot.send"))
    })
  })

export const layer = (config: ChatBotConfig) => Layer.effect(ChatBot, make(config))
