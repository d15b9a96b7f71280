import * as Context from "effect/Context"
import type * as Redacted from "effect/Redacted"

/** The service's HMAC key for signed states and PKCE verifiers. */
export class AuthSecret extends Context.Tag("@climate-grade/core/AuthSecret")<AuthSecret, Redacted.Redacted<string>>() {}
