/**
 * The OAuth 2.0 authorization-code exchange over HTTP: a
 * form-encoded token request with the client id and secret in the body (a confidential client),
 * then the userinfo call with the access token as a bearer. Each call has 10 seconds. Every
 * failure — a status of 300 or more, no access token, a body that is not a JSON object, a
 * network fault, a timeout — is a value with a reason, never a defect, so the callback can
 * answer `error`. The access token is used once and never stored or logged.
 */
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import * as Core from "@climate-grade/core"
import * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

export const TIMEOUT = Duration.seconds(10)

export interface ExchangeRequest {
  readonly tokenUrl: string
  readonly userinfoUrl: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly code: string
  readonly redirectUri: string
  /** The PKCE verifier, sent when the flow sent a challenge; a provider may ignore it. */
  readonly codeVerifier: Option.Option<string>
}

export class ExchangeError extends Schema.TaggedError<ExchangeError>()("ExchangeError", {
  step: Schema.Literal("token", "userinfo"),
  reason: Schema.String
}) {}

const TokenResponse = Schema.Struct({ access_token: Schema.NonEmptyString })
const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const call = (
  client: HttpClient.HttpClient,
  step: "token" | "userinfo",
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<unknown, ExchangeError> =>
  client.execute(request).pipe(
    Effect.flatMap((response: HttpClientResponse.HttpClientResponse) =>
      response.status >= 300
        ? Effect.fail(new ExchangeError({ step, reason: `status ${response.status}` }))
        : Effect.mapError(response.json, () => new ExchangeError({ step, reason: "the body is not JSON" }))
    ),
    Effect.scoped,
    Effect.timeoutFail({ duration: TIMEOUT, onTimeout: () => new ExchangeError({ step, reason: "timed out" }) }),
    Effect.catchTags({
      RequestError: (e) => Effect.fail(new ExchangeError({ step, reason: `request failed: ${e.reason}` })),
      ResponseError: (e) => Effect.fail(new ExchangeError({ step, reason: `response failed: ${e.reason}` }))
    })
  )

/** The provider's profile: the userinfo answer, a JSON object. */
export const exchange = (request: ExchangeRequest) =>
  Effect.gen(function* () {
    // A 3xx is a failure (as is any status of 300 or more): the client must not follow redirects,
    // which the server's node:http client (NodeHttpClient.layer) does not.
    const client = yield* HttpClient.HttpClient
    const token = yield* call(
      client,
      "token",
      HttpClientRequest.post(request.tokenUrl).pipe(
        HttpClientRequest.acceptJson,
        HttpClientRequest.bodyUrlParams({
          client_id: request.clientId,
          client_secret: Redacted.value(request.clientSecret),
          grant_type: "authorization_code",
          code: request.code,
          redirect_uri: request.redirectUri,
          ...Option.match(request.codeVerifier, { onNone: () => ({}), onSome: (verifier) => ({ code_verifier: verifier }) })
        })
      )
    ).pipe(
      Effect.flatMap(Schema.decodeUnknown(TokenResponse)),
      Effect.mapError((e) =>
        e._tag === "ExchangeError" ? e : new ExchangeError({ step: "token", reason: "no access_token in the answer" })
      )
    )
    const profile = yield* call(
      client,
      "userinfo",
      HttpClientRequest.get(request.userinfoUrl).pipe(
        HttpClientRequest.acceptJson,
        HttpClientRequest.bearerToken(token.access_token)
      )
    ).pipe(
      Effect.flatMap(Schema.decodeUnknown(JsonObject)),
      Effect.mapError((e) =>
        e._tag === "ExchangeError" ? e : new ExchangeError({ step: "userinfo", reason: "the profile is not a JSON object" })
      )
    )
    return profile
  }).pipe(Effect.withSpan("ProviderExchange.exchange"))

/** A provider's side of the exchange: where to call and the confidential client's credentials. */
export interface ProviderEndpoints {
  readonly tokenUrl: string
  readonly userinfoUrl: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
}

/**
 * The core's `ProviderExchange` port over this HTTP exchange. The providers' addresses and
 * secrets are this adapter's configuration (composed in apps/server), never the core's.
 */
export const layer = (providers: Readonly<Record<Core.ProviderName, ProviderEndpoints>>) =>
  Layer.effect(
    Core.ProviderExchange,
    Effect.gen(function* () {
      const client = yield* HttpClient.HttpClient
      return Core.ProviderExchange.of({
        exchange: (input) => {
          const endpoints = providers[input.provider]
          return exchange({
            tokenUrl: endpoints.tokenUrl,
            userinfoUrl: endpoints.userinfoUrl,
            clientId: endpoints.clientId,
            clientSecret: endpoints.clientSecret,
            code: input.code,
            redirectUri: input.redirectUri,
            codeVerifier: input.codeVerifier
          }).pipe(
            Effect.provideService(HttpClient.HttpClient, client),
            Effect.tapError((e) => Effect.logWarning(`${input.provider} exchange failed at ${e.step}: ${e.reason}`)),
            Effect.mapError((e) => new Core.ExchangeFailed({ reason: `${e.step}: ${e.reason}` }))
          )
        }
      })
    })
  )
