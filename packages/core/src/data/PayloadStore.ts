import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { View } from "./FreshnessToken.js"

/**
 * A built payload: the token it was built under and its JSON bytes. How it is compressed for the
 * wire, or for the store's own storage, is the adapters' business.
 */
export interface StoredPayload {
  readonly token: string
  readonly json: Uint8Array
}

export interface PayloadKey {
  readonly cell: string
  readonly view: View
  /** The resolved parameters, e.g. `2024-11-23..2026-11-21` for a calendar, the date for a day. */
  readonly params: string
}

/** Built payloads, replayed while their token still equals the recomputed one. */
export class PayloadStore extends Context.Tag("@climate-grade/core/PayloadStore")<
  PayloadStore,
  {
    readonly get: (key: PayloadKey) => Effect.Effect<Option.Option<StoredPayload>>
    /** Several keys' payloads, in their order, read together (one statement where the store can). */
    readonly getAll: (keys: ReadonlyArray<PayloadKey>) => Effect.Effect<ReadonlyArray<Option.Option<StoredPayload>>>
    readonly put: (key: PayloadKey, payload: StoredPayload) => Effect.Effect<void>
    /** Several payloads written together (one statement where the store can). */
    readonly putAll: (entries: ReadonlyArray<readonly [PayloadKey, StoredPayload]>) => Effect.Effect<void>
  }
>() {}
