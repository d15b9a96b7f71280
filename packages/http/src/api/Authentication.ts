import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import type { User } from "@climate-grade/core"
import * as Context from "effect/Context"
import { UnauthorizedSchema } from "./Errors.js"

/** The signed-in, active user of the request. */
export class CurrentUser extends Context.Tag("@climate-grade/http/CurrentUser")<CurrentUser, User>() {}

export const SESSION_COOKIE = "session"

/**
 * A session travels as the `session` cookie or as `Authorization: Bearer <token>`
 * (docs/api.md "Accounts and sign-in"); the cookie is tried first.
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("@climate-grade/http/Authentication", {
  failure: UnauthorizedSchema,
  provides: CurrentUser,
  security: {
    cookie: HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE }),
    bearer: HttpApiSecurity.bearer
  }
}) {}
