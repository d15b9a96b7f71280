/**
 * A fake chat bot API (Discord's shape) on loopback for the alert delivery tests:
 * `POST /users/@me/channels {"recipient_id"}` → `{"id"}` and `POST /channels/{id}/messages
 * {"content"}` → the message, both requiring `Authorization: Bot {token}`. Every call is recorded;
 * faults can be queued per call: a 429 with `retry_after` in the body (or only a `Retry-After`
 * header), a 500, no answer at all, or the message made and then no answer (a crash or a lost
 * answer after the provider accepted it).
 *
 * Like Discord, a message sent with `enforce_nonce: true` and a `nonce` that a message of this bot
 * had within the last few minutes (`nonceWindowMs`, 5 minutes) is answered with that message, and
 * no new one is made.
 */
import type { IncomingMessage } from "node:http"
import * as Effect from "effect/Effect"
import { send, serve } from "./FakeUpstream.js"

export type BotFault =
  | { readonly status: 429; readonly retryAfterSeconds?: number; readonly header?: string }
  | { readonly status: 500 }
  | "hang"
  /** The message is made (delivered), and then nothing is answered. */
  | "accept-then-hang"

export interface BotCall {
  readonly step: "channel" | "message" | "other"
  readonly path: string
  readonly body: unknown
  readonly authorization: string | undefined
  /** Epoch ms of arrival. */
  readonly at: number
  /** What was answered: a status, or "hang". */
  outcome?: number | "hang"
}

export interface Delivered {
  readonly recipientId: string
  readonly content: string
  readonly at: number
  /** The nonce it was sent with, if any. */
  readonly nonce: string | undefined
}

export interface FakeChatBot {
  readonly origin: string
  /** What CHAT_API_URL is set to. */
  readonly apiUrl: string
  readonly token: string
  readonly calls: Array<BotCall>
  /** Messages made, in order (a resend answered by its nonce makes none). */
  readonly delivered: Array<Delivered>
  /** How long a nonce is remembered: Discord says "the past few minutes". */
  nonceWindowMs: number
  /** Called as a message is made, before it is answered (a test may kill the sender then). */
  onMessage: ((message: Delivered) => void) | undefined
  readonly faults: { channel: Array<BotFault>; message: Array<BotFault> }
  /** Faults for one recipient's calls only, played before the shared ones. */
  readonly faultsFor: (recipientId: string) => { channel: Array<BotFault>; message: Array<BotFault> }
}

const readJson = (req: IncomingMessage) =>
  new Promise<unknown>((done) => {
    let text = ""
    req.on("data", (chunk) => (text += chunk))
    req.on("end", () => {
      try {
        done(JSON.parse(text))
      } catch {
        done(undefined)
      }
    })
  })

export const make = (token = "test-bot-token") =>
  Effect.gen(function* () {
    const state = {
      token,
      calls: [] as Array<BotCall>,
      delivered: [] as Array<Delivered>,
      faults: { channel: [] as Array<BotFault>, message: [] as Array<BotFault> },
      nonceWindowMs: 5 * 60_000,
      onMessage: undefined as ((message: Delivered) => void) | undefined
    }
    // Messages by nonce, for `enforce_nonce`.
    const byNonce = new Map<string, { readonly id: string; readonly at: number; readonly content: string }>()
    const channels = new Map<string, string>()
    const perRecipient = new Map<string, { channel: Array<BotFault>; message: Array<BotFault> }>()
    const faultsFor = (recipientId: string) => {
      let faults = perRecipient.get(recipientId)
      if (faults === undefined) {
        faults = { channel: [], message: [] }
        perRecipient.set(recipientId, faults)
      }
      return faults
    }
    const { origin } = yield* serve((req, res, url) => {
      void readJson(req).then((body) => {
        const channelMatch = /^\/api\/channels\/([^/]+)\/messages$/.exec(url.pathname)
        const step = url.pathname === "/api/users/@me/channels" ? "channel" : channelMatch !== null ? "message" : "other"
        const call: BotCall = { step, path: url.pathname, body, authorization: req.headers.authorization, at: Date.now() }
        state.calls.push(call)
        const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
          call.outcome = status
          send(res, status, payload, headers)
        }
        if (req.method !== "POST" || step === "other") return answer(404, { message: "404: Not Found", code: 0 })
        if (req.headers.authorization !== `Bot ${state.token}`) return answer(401, { message: "401: Unauthorized", code: 0 })
        const fields = (body ?? {}) as Record<string, unknown>
        const recipient =
          step === "channel" ? String(fields.recipient_id) : channels.get(decodeURIComponent(channelMatch![1]!))
        const fault = (recipient === undefined ? undefined : perRecipient.get(recipient)?.[step].shift()) ?? state.faults[step].shift()
        if (fault === "hang") {
          call.outcome = "hang"
          return
        }
        if (fault !== undefined && fault !== "accept-then-hang" && fault.status === 500) {
          return answer(500, { message: "500: Internal Server Error" })
        }
        if (fault !== undefined && fault !== "accept-then-hang" && fault.status === 429) {
          return answer(
            429,
            fault.retryAfterSeconds === undefined
              ? { message: "You are being rate limited." }
              : { message: "You are being rate limited.", retry_after: fault.retryAfterSeconds, global: false },
            fault.header === undefined ? {} : { "retry-after": fault.header }
          )
        }
        if (step === "channel") {
          if (typeof fields.recipient_id !== "string") return answer(400, { message: "Invalid Form Body", code: 50035 })
          const id = `dm-${fields.recipient_id}`
          channels.set(id, fields.recipient_id)
          return answer(200, { id, type: 1, recipients: [{ id: fields.recipient_id }] })
        }
        const recipientId = channels.get(decodeURIComponent(channelMatch![1]!))
        if (recipientId === undefined) return answer(404, { message: "Unknown Channel", code: 10003 })
        if (typeof fields.content !== "string" || fields.content === "") {
          return answer(400, { message: "Cannot send an empty message", code: 50006 })
        }
        const nonce = typeof fields.nonce === "string" || typeof fields.nonce === "number" ? String(fields.nonce) : undefined
        if (nonce !== undefined && nonce.length > 25) return answer(400, { message: "Invalid Form Body", code: 50035 })
        const earlier = nonce === undefined ? undefined : byNonce.get(nonce)
        if (fields.enforce_nonce === true && earlier !== undefined && Date.now() - earlier.at < state.nonceWindowMs) {
          // The message this nonce made: answered again, nothing new made.
          return answer(200, { id: earlier.id, channel_id: channelMatch![1], content: earlier.content, nonce })
        }
        const message: Delivered = { recipientId, content: fields.content, at: Date.now(), nonce }
        state.delivered.push(message)
        const id = String(state.delivered.length)
        if (nonce !== undefined) byNonce.set(nonce, { id, at: message.at, content: fields.content })
        state.onMessage?.(message)
        if (fault === "accept-then-hang") {
          call.outcome = "hang"
          return
        }
        return answer(200, { id, channel_id: channelMatch![1], content: fields.content, ...(nonce === undefined ? {} : { nonce }) })
      })
    })
    return Object.assign(state, { origin, apiUrl: `${origin}/api`, faultsFor }) as FakeChatBot
  })
