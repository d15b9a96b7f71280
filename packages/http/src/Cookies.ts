import { Cookies, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Duration from "effect/Duration"
import { SESSION_TTL_SECONDS } from "@climate-grade/core"
import { SESSION_COOKIE } from "./Authentication.js"
import { scheme } from "./RequestInfo.js"

/** The session cookie of CONTRACT.md §2: HttpOnly, SameSite=Lax, Path=/, 30 days, Secure over https. */
export const sessionCookie = (request: HttpServerRequest.HttpServerRequest, token: string): Cookies.Cookie =>
  Cookies.unsafeMakeCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    maxAge: Duration.seconds(SESSION_TTL_SECONDS),
    secure: scheme(request) === "https"
  })

export const clearedSessionCookie = (request: HttpServerRequest.HttpServerRequest): Cookies.Cookie =>
  Cookies.unsafeMakeCookie(SESSION_COOKIE, "", {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    maxAge: Duration.zero,
    secure: scheme(request) === "https"
  })

/** Adds already-validated cookies to a response. */
export const withCookies =
  (...cookies: ReadonlyArray<Cookies.Cookie>) =>
  (response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse =>
    HttpServerResponse.mergeCookies(response, Cookies.fromIterable(cookies))
