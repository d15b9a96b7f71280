import { Cookies, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as Duration from "effect/Duration"
import { SESSION_TTL_SECONDS } from "@climate-grade/core"
import * as KnownDevice from "@climate-grade/core/accounts/KnownDevice"
import { API_PREFIX } from "./ApiPrefix.js"
import { SESSION_COOKIE } from "./Authentication.js"
import { type SchemeTrust, scheme } from "../protocol/RequestInfo.js"

/** The session cookie: HttpOnly, SameSite=Lax, Path=/, 30 days, Secure over https. */
export const sessionCookie = (request: HttpServerRequest.HttpServerRequest, trust: SchemeTrust, token: string): Cookies.Cookie =>
  Cookies.unsafeMakeCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    maxAge: Duration.seconds(SESSION_TTL_SECONDS),
    secure: scheme(request, trust) === "https"
  })

export const clearedSessionCookie = (request: HttpServerRequest.HttpServerRequest, trust: SchemeTrust): Cookies.Cookie =>
  Cookies.unsafeMakeCookie(SESSION_COOKIE, "", {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    maxAge: Duration.zero,
    secure: scheme(request, trust) === "https"
  })

/**
 * The known-device cookie (core `KnownDevice`): sent only to the password login route, which alone
 * reads it; HttpOnly, SameSite=Strict (a login posted from another site is refused anyway),
 * Secure over https, kept `KnownDevice.TTL_SECONDS` after the last sign-in.
 */
export const KNOWN_DEVICE_COOKIE = "known_device"

export const knownDeviceCookie = (
  request: HttpServerRequest.HttpServerRequest,
  trust: SchemeTrust & { readonly basePath: string },
  value: string
): Cookies.Cookie =>
  Cookies.unsafeMakeCookie(KNOWN_DEVICE_COOKIE, value, {
    httpOnly: true,
    sameSite: "strict",
    path: `${trust.basePath}${API_PREFIX}/auth/login`,
    maxAge: Duration.seconds(KnownDevice.TTL_SECONDS),
    secure: scheme(request, trust) === "https"
  })

/** Adds already-validated cookies to a response. */
export const withCookies =
  (...cookies: ReadonlyArray<Cookies.Cookie>) =>
  (response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse =>
    HttpServerResponse.mergeCookies(response, Cookies.fromIterable(cookies))
