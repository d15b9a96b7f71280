/**
 * Text a client sends that no query could store as sent — a NUL character, an unpaired surrogate
 * (core `StorableText`) — is refused with 400 and a detail naming where it is, before any handler
 * runs, for every API route at once: path segments, query parameters (names and values, known or
 * not) and every string of a JSON body (RequestBody calls `bodyRefusal` on the parsed body).
 * Before this, PostgreSQL's refusal of a NUL read as a database outage (503), and a lone surrogate
 * was stored as U+FFFD.
 *
 * Headers and cookies need no check here: a session token is hashed before it is looked up, and
 * no other header value reaches a query. The sign-in callbacks are left to their own rule: their
 * `code` and `state` are never stored, and SPEC's answer to any bad state is a redirect, not a 400.
 */
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Refusal, StorableText } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import { API_PREFIX } from "./ApiPrefix.js"

/** Where a client's text meets SPEC's redirect answers rather than a 400 (a path or an OpenAPI template). */
export const isExempt = (pathname: string): boolean =>
  pathname === `${API_PREFIX}/chat/link/callback` ||
  (pathname.startsWith(`${API_PREFIX}/oauth/`) && /^\/oauth\/[^/]+\/callback$/.test(pathname.slice(API_PREFIX.length)))

/** How a flawed name shows in a detail: JSON-quoted (a NUL shows as \u0000), and short. */
const quoted = (name: string) => JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name)

const detail = (where: string, flaw: StorableText.Flaw) =>
  `${where} contains ${StorableText.describe(flaw)}, which cannot be stored; send text without it.`

const decoded = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment)
  } catch {
    // Malformed escapes are the router's to answer (404): they hold no text at all.
    return undefined
  }
}

/** The refusal of a request URL (path and query, below the mount), if any. */
export const urlRefusal = (url: string): string | undefined => {
  const question = url.indexOf("?")
  const pathname = question === -1 ? url : url.slice(0, question)
  if (!pathname.startsWith(`${API_PREFIX}/`) || isExempt(pathname)) return undefined
  for (const segment of pathname.split("/")) {
    const text = decoded(segment)
    const flaw = text === undefined ? undefined : StorableText.flaw(text)
    if (flaw !== undefined) return detail(`The path segment ${quoted(text!)}`, flaw)
  }
  if (question === -1) return undefined
  for (const [name, value] of new URLSearchParams(url.slice(question + 1))) {
    const flaw = StorableText.flaw(name) ?? StorableText.flaw(value)
    if (flaw !== undefined) return detail(`The query parameter ${quoted(name)}`, flaw)
  }
  return undefined
}

/** The refusal of a parsed JSON body, if any of its strings (keys too) cannot be stored. */
export const bodyRefusal = (json: unknown): string | undefined => {
  const found = StorableText.flawInJson(json)
  if (found === undefined) return undefined
  return detail(found.at === "" ? "The body" : `The body's ${quoted(found.at)}`, found.flaw)
}

export const refusal = (text: string) => HttpServerResponse.unsafeJson(Refusal.body("invalid-text", text), { status: 400 })

/** Refuses unstorable text in the URL; runs below the `BASE_PATH` mount, beside RequestBody. */
export const middleware = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const refused = urlRefusal(request.url)
    return refused === undefined ? app : Effect.succeed(refusal(refused))
  })

const DESCRIPTION = "A path segment, query parameter or body string holds a NUL character or an unpaired surrogate"

interface Document {
  readonly paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
}

/**
 * The OpenAPI document with this refusal listed on every operation it applies to (all but the
 * exempt callbacks), as the middleware applies it: a route added later is covered by both.
 */
export const documented = (spec: Record<string, unknown>): Record<string, unknown> => {
  const doc = structuredClone(spec) as unknown as Document
  for (const [template, item] of Object.entries(doc.paths)) {
    if (isExempt(template)) continue
    for (const operation of Object.values(item)) {
      operation.responses["400"] ??= {
        description: DESCRIPTION,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["detail", "code"],
              properties: { detail: { type: "string" }, code: { type: "string", enum: ["invalid-text"] } },
              additionalProperties: false,
              description: DESCRIPTION
            }
          }
        }
      }
    }
  }
  return doc as unknown as Record<string, unknown>
}
