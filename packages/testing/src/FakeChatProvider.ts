/**
 * A small Discord-like OAuth provider on a loopback port for the `chat` end-to-end tests:
 * `/oauth2/authorize` (the user approves at once, or denies), `/oauth2/token` (form-encoded,
 * client secret in the body, single-use codes, redirect_uri and PKCE checked), and
 * `/users/@me` (bearer). Faults can be queued for the token and userinfo calls.
 */
import { createHash, randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"

/** The profile `/users/@me` answers with; fields may be missing or odd on purpose. */
export type ChatProfile = Readonly<Record<string, unknown>>

export type Fault =
  | "status-500"
  | "status-400"
  | "status-302"
  | "no-access-token"
  | "malformed-json"
  | "not-an-object"
  | "hang"
  | "reset"

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly query: Readonly<Record<string, string>>
  readonly form: Readonly<Record<string, string>>
  readonly authorization: string | undefined
}

export interface FakeChatProvider {
  readonly origin: string
  readonly authorizeUrl: string
  readonly tokenUrl: string
  readonly userinfoUrl: string
  readonly clientId: string
  readonly clientSecret: string
  /** Who approves at the next authorize step; `undefined` denies (no code). */
  profile: ChatProfile | undefined
  readonly faults: { token: Array<Fault>; userinfo: Array<Fault> }
  readonly requests: Array<RecordedRequest>
  /** Access tokens the provider has issued, to check none leaks. */
  readonly accessTokens: Array<string>
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((done) => {
    let body = ""
    req.on("data", (chunk) => (body += chunk))
    req.on("end", () => done(body))
  })

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}

/** Plays a queued fault; true when the response has been dealt with. */
const playFault = (fault: Fault | undefined, res: ServerResponse): boolean => {
  switch (fault) {
    case undefined:
      return false
    case "status-500":
      json(res, 500, { message: "internal" })
      return true
    case "status-400":
      json(res, 400, { error: "invalid_grant" })
      return true
    case "status-302":
      res.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" })
      res.end()
      return true
    case "no-access-token":
      json(res, 200, { token_type: "Bearer" })
      return true
    case "malformed-json":
      res.writeHead(200, { "content-type": "application/json" })
      res.end("{not json")
      return true
    case "not-an-object":
      json(res, 200, ["a", "list"])
      return true
    case "hang":
      return true // never answers; the client's timeout must fire
    case "reset":
      res.socket?.destroy()
      return true
  }
}

export const make = (options: { readonly clientId?: string; readonly clientSecret?: string } = {}) =>
  Effect.acquireRelease(
    Effect.async<{ provider: FakeChatProvider; close: () => void }>((resume) => {
      const codes = new Map<string, { redirectUri: string; challenge: string | undefined; profile: ChatProfile }>()
      const tokens = new Map<string, ChatProfile>()
      const state = {
        profile: undefined as ChatProfile | undefined,
        faults: { token: [] as Array<Fault>, userinfo: [] as Array<Fault> },
        requests: [] as Array<RecordedRequest>,
        accessTokens: [] as Array<string>
      }
      const clientId = options.clientId ?? "chat-client"
      const clientSecret = options.clientSecret ?? `chat-secret-${randomBytes(8).toString("hex")}`

      const server = createServer(async (req, res) => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1")
        const body = req.method === "POST" ? await readBody(req) : ""
        const form = Object.fromEntries(new URLSearchParams(body))
        state.requests.push({
          method: req.method ?? "GET",
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          form,
          authorization: req.headers.authorization
        })
        if (url.pathname === "/oauth2/authorize" && req.method === "GET") {
          const redirectUri = url.searchParams.get("redirect_uri") ?? ""
          const target = new URL(redirectUri)
          const stateParam = url.searchParams.get("state")
          if (stateParam !== null) target.searchParams.set("state", stateParam)
          if (url.searchParams.get("client_id") !== clientId || state.profile === undefined) {
            target.searchParams.set("error", "access_denied")
          } else {
            const code = randomBytes(12).toString("hex")
            codes.set(code, {
              redirectUri,
              challenge: url.searchParams.get("code_challenge") ?? undefined,
              profile: state.profile
            })
            target.searchParams.set("code", code)
          }
          res.writeHead(302, { location: target.href })
          res.end()
          return
        }
        if (url.pathname === "/oauth2/token" && req.method === "POST") {
          if (playFault(state.faults.token.shift(), res)) return
          const grant = codes.get(form.code ?? "")
          codes.delete(form.code ?? "")
          const verifierOk =
            grant?.challenge === undefined ||
            createHash("sha256").update(form.code_verifier ?? "").digest("base64url") === grant.challenge
          if (
            req.headers["content-type"] !== "application/x-www-form-urlencoded" ||
            form.client_id !== clientId ||
            form.client_secret !== clientSecret ||
            form.grant_type !== "authorization_code" ||
            grant === undefined ||
            grant.redirectUri !== form.redirect_uri ||
            !verifierOk
          ) {
            json(res, 400, { error: "invalid_grant" })
            return
          }
          const accessToken = `chat-at-${randomBytes(16).toString("hex")}`
          tokens.set(accessToken, grant.profile)
          state.accessTokens.push(accessToken)
          json(res, 200, { access_token: accessToken, token_type: "Bearer", expires_in: 604800, scope: "identify email" })
          return
        }
        if (url.pathname === "/users/@me" && req.method === "GET") {
          if (playFault(state.faults.userinfo.shift(), res)) return
          const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]
          const profile = token === undefined ? undefined : tokens.get(token)
          if (profile === undefined) {
            json(res, 401, { message: "401: Unauthorized" })
            return
          }
          json(res, 200, profile)
          return
        }
        json(res, 404, { message: "404: Not Found" })
      })
      server.listen(0, "127.0.0.1", () => {
        const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
        const provider: FakeChatProvider = Object.assign(state, {
          origin,
          authorizeUrl: `${origin}/oauth2/authorize`,
          tokenUrl: `${origin}/oauth2/token`,
          userinfoUrl: `${origin}/users/@me`,
          clientId,
          clientSecret
        })
        resume(
          Effect.succeed({
            provider,
            // Faults that hang keep sockets open; the test's end must not wait for them.
            close: () => {
              server.closeAllConnections()
              server.close()
            }
          })
        )
      })
    }),
    ({ close }) =>
      Effect.sync(() => {
        close()
      })
  ).pipe(Effect.map(({ provider }) => provider))
