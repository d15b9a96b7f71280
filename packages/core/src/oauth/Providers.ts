/** The fixed registry of the two providers (`chat` and `idp`) and their deployment settings. */
import * as Context from "effect/Context"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { ProviderName } from "../accounts/Domain.js"

export interface ProviderDescriptor {
  readonly name: ProviderName
  readonly scopeLink: string
  readonly scopeLogin: string
  /** Below `{BASE_PATH}`; the registered redirect address. */
  readonly callbackPath: string
  readonly extraAuthorizeParams: Readonly<Record<string, string>>
  readonly idField: string
  readonly emailField: string
  /** Whether the provider vouches for the profile's address. */
  readonly verified: (profile: Readonly<Record<string, unknown>>) => boolean
}

export const chat: ProviderDescriptor = {
  name: "chat",
  scopeLink: "identify",
  scopeLogin: "identify email",
  callbackPath: "/api/v2/chat/link/callback",
  extraAuthorizeParams: { prompt: "consent" },
  idField: "id",
  emailField: "email",
  verified: (profile) => profile.verified === true
}

export const idp: ProviderDescriptor = {
  name: "idp",
  scopeLink: "openid email",
  scopeLogin: "openid email",
  callbackPath: "/api/v2/oauth/idp/callback",
  extraAuthorizeParams: { prompt: "consent", access_type: "online", include_granted_scopes: "true" },
  idField: "sub",
  emailField: "email",
  verified: (profile) => profile.email_verified === true || String(profile.email_verified).toLowerCase() === "true"
}

export const registry: Readonly<Record<ProviderName, ProviderDescriptor>> = { chat, idp }

export const names: ReadonlyArray<ProviderName> = ["chat", "idp"]

/** `chat` or `idp`; anything else is an unknown provider. */
export const parseName = (name: string): Option.Option<ProviderName> =>
  name === "chat" || name === "idp" ? Option.some(name) : Option.none()

/**
 * A provider's `redirect_uri`: an origin, then `{BASE_PATH}`, then
 * the provider's callback path. The origin is the deployment's `PUBLIC_ORIGIN` when it names one
 * (request headers can be forged), else the request's own scheme and
 * host, which only the HTTP adapter can read.
 */
export const redirectUri = (input: {
  readonly provider: ProviderName
  readonly basePath: string
  readonly publicOrigin: Option.Option<string>
  readonly requestOrigin: () => string
}): string =>
  `${Option.getOrElse(input.publicOrigin, input.requestOrigin)}${input.basePath}${registry[input.provider].callbackPath}`

/**
 * What the core's sign-in rules need of a deployed provider: whether it is enabled, and its
 * public client id (an authorize parameter). Its secret, its addresses (authorize, token,
 * userinfo) and its label stay in the adapters' configuration (packages/oauth, packages/http),
 * composed in apps/server; the core decides the authorize parameters, the adapter makes the URL.
 */
export interface ProviderConfig {
  readonly enabled: boolean
  readonly clientId: string
}

/**
 * Enabled when both the client id and the client secret are non-empty after trimming. Applied
 * where the configuration is read, which hands the core only the outcome.
 */
export const isEnabled = (credentials: {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
}): boolean => credentials.clientId.trim() !== "" && Redacted.value(credentials.clientSecret).trim() !== ""

export class ProviderSettings extends Context.Tag("@climate-grade/core/ProviderSettings")<
  ProviderSettings,
  Readonly<Record<ProviderName, ProviderConfig>>
>() {}
