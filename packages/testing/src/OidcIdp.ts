/**
 * panva's `oidc-provider` (a certified OpenID Provider; its 8.x line, which supports Node 20, where
 * 9.x warns on import that it wants Node 22) in process on a loopback port, for the
 * `idp` end-to-end tests: a static `client_secret_post` client, dev interactions for login and
 * consent, and accounts whose claims a test sets. The HTTP server starts first, so its URLs can
 * configure the service; the provider is attached once the service's callback URL is known.
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import Provider from "oidc-provider"
import type { Browser } from "./Browser.js"

export interface IdpAccount {
  readonly email?: string
  readonly email_verified?: unknown
}

export interface OidcIdp {
  readonly issuer: string
  readonly authorizeUrl: string
  readonly tokenUrl: string
  readonly userinfoUrl: string
  readonly clientId: string
  readonly clientSecret: string
  /** Claims per subject; a subject missing here still signs in, with no e-mail. */
  readonly accounts: Map<string, IdpAccount>
  /** Registers the service's callback and starts answering. */
  readonly attach: (redirectUri: string) => void
  /** Signs `subject` in at the provider's dev login form and consents, from the authorize URL on. */
  readonly approve: (browser: Browser, authorizeUrl: string, subject: string) => Promise<string>
}

/**
 * Runs `make` without the provider's three quick-start warnings (an in-memory adapter, development
 * keys, development interactions): that is what a test's provider is meant to be, and they were
 * printed for every test that starts one, burying what a run has to say. Any other warning passes.
 */
const withoutQuickStartWarnings = <A>(make: () => A): A => {
  const warn = console.warn
  console.warn = (...args: Array<unknown>) => {
    if (typeof args[0] === "string" && args[0].includes("oidc-provider WARNING: a quick start development-only")) return
    warn(...args)
  }
  try {
    return make()
  } finally {
    console.warn = warn
  }
}

export const make = Effect.acquireRelease(
  Effect.async<{ idp: OidcIdp; close: () => void }>((resume) => {
    let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined
    const server = createServer((req, res) => {
      if (handler === undefined) {
        res.writeHead(503).end()
        return
      }
      handler(req, res)
    })
    server.listen(0, "127.0.0.1", () => {
      const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const clientId = "climate-grade"
      const clientSecret = randomBytes(24).toString("hex")
      const accounts = new Map<string, IdpAccount>()
      const attach = (redirectUri: string) => {
        const provider = withoutQuickStartWarnings(() => new Provider(issuer, {
          clients: [
            {
              client_id: clientId,
              client_secret: clientSecret,
              redirect_uris: [redirectUri],
              grant_types: ["authorization_code"],
              response_types: ["code"],
              token_endpoint_auth_method: "client_secret_post"
            }
          ],
          claims: { openid: ["sub"], email: ["email", "email_verified"] },
          cookies: { keys: [randomBytes(16).toString("hex")] },
          features: { devInteractions: { enabled: true } },
          // Set, not left to the provider's defaults, which print a notice when first used.
          ttl: { AccessToken: 600, IdToken: 600, RefreshToken: 600, ClientCredentials: 600, Interaction: 600, Session: 600, Grant: 600 },
          findAccount: (_ctx, sub) => ({
            accountId: sub,
            claims: () => ({ sub, ...(accounts.get(sub) ?? {}) })
          })
        }))
        handler = provider.callback()
      }
      const approve = async (browser: Browser, authorizeUrl: string, subject: string) => {
        const atProvider = (url: URL) => url.origin === issuer
        // authorize → /interaction/:uid (login) → submit → /auth/:uid → /interaction/:uid (consent) → submit → callback
        let step = await browser.follow(authorizeUrl, { stop: (u) => !atProvider(u) })
        for (const prompt of ["login", "consent"] as const) {
          if (!atProvider(new URL(step.url))) break
          const body = new URLSearchParams(prompt === "login" ? { prompt, login: subject, password: "x" } : { prompt })
          step = await browser.follow(step.url, {
            init: {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: body.toString()
            },
            stop: (u) => !atProvider(u)
          })
        }
        return step.url
      }
      resume(
        Effect.succeed({
          idp: {
            issuer,
            authorizeUrl: `${issuer}/auth`,
            tokenUrl: `${issuer}/token`,
            userinfoUrl: `${issuer}/me`,
            clientId,
            clientSecret,
            accounts,
            attach,
            approve
          },
          close: () => {
            server.closeAllConnections()
            server.close()
          }
        })
      )
    })
  }),
  ({ close }) => Effect.sync(close)
).pipe(Effect.map(({ idp }) => idp))
