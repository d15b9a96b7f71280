/**
 * A request the API cannot decode answers 400 with a `{detail}` in plain words that names the
 * field: `email: is missing`, `enabled: expected a boolean, got "yes"`. The
 * platform's own answer is its schema printout (`{ readonly email: string; … } └─ ["email"] is
 * missing`), which no user can read. Runs as the API's middleware, where the `HttpApiDecodeError`
 * is still a value, before the platform encodes it.
 */
import { HttpApiBuilder, HttpApiError, type HttpApp, HttpServerResponse } from "@effect/platform"
import { Refusal } from "@climate-grade/core"
import * as Effect from "effect/Effect"
import * as DataQuery from "./DataQuery.js"

type Issue = HttpApiError.HttpApiDecodeError["issues"][number]

/** The platform's messages, reworded where they are schema notation. */
const reword = (issue: Issue): string => {
  const expected = /^Expected (.+), actual (.+)$/s.exec(issue.message)
  if (expected === null) return issue.message.replace(/\s+/g, " ").trim()
  const [, type, actual] = expected
  const plain: Record<string, string> = { string: "a string", number: "a number", boolean: "a boolean" }
  const wanted = plain[type!] ?? (type!.startsWith("{") ? "an object" : type!.startsWith("ReadonlyArray") ? "an array" : type!)
  return `expected ${wanted}, got ${actual!.length > 40 ? `${actual!.slice(0, 40)}…` : actual}`
}

export const describe = (error: HttpApiError.HttpApiDecodeError): string => {
  // A query value's refusal is written for the client already (DataQuery): said whole, alone.
  const first = error.issues[0]?.message
  if (first?.startsWith(DataQuery.PREFIX)) return first
  const parts = error.issues.slice(0, 3).map((issue) => {
    const field = issue.path.map(String).join(".")
    return field === "" ? `body: ${reword(issue)}` : `${field}: ${reword(issue)}`
  })
  return parts.length === 0 ? "The request could not be decoded." : parts.join("; ")
}

/** A query value's refusal (DataQuery's words) is `invalid-query`; anything else a body's. */
export const codeOf = (error: HttpApiError.HttpApiDecodeError): Refusal.Code =>
  error.issues[0]?.message.startsWith(DataQuery.PREFIX) === true ? "invalid-query" : "invalid-body"

const isDecodeError = (u: unknown): u is HttpApiError.HttpApiDecodeError => u instanceof HttpApiError.HttpApiDecodeError

export const layer = HttpApiBuilder.middleware(
  (app) =>
    // The app's other failures pass through untouched to the platform, which encodes them by the
    // API's error schemas; its signature types them as `unknown`, this middleware's as `never`.
    Effect.catchIf(app, isDecodeError, (error) =>
      Effect.succeed(HttpServerResponse.unsafeJson(Refusal.body(codeOf(error), describe(error)), { status: 400 }))
    ) as HttpApp.Default<never>
)
