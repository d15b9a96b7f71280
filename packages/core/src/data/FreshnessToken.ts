/**
 * Freshness tokens: a cached payload is valid only while its token equals one recomputed from
 * what could change its bytes (docs/api.md "Common rules", caching). No clock.
 */
import { contentToken } from "../Crypto.js"
import { PAYLOAD_VER, type View } from "./PayloadVersion.js"

export { PAYLOAD_VER, type View }

export interface TokenInputs {
  readonly view: View
  readonly cell: string
  /** Resolved parameters, with every date made explicit. */
  readonly params: Readonly<Record<string, string | number | null>>
  /** The cell's label, which the payload carries. */
  readonly label: string | null
  readonly timezone: string
  /** The history record's last day (YYYY-MM-DD). */
  readonly recordEnd: string
  /** The forecast stamp (epoch ms) where the view uses the forecast; null where it does not or has none. */
  readonly forecastStamp: number | null
}

/** Stable JSON: keys sorted, so equal inputs always hash alike. */
const canonical = (value: unknown): string =>
  value === null || typeof value !== "object"
    ? JSON.stringify(value)
    : `{${Object.keys(value)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
        .join(",")}}`

export const make = (inputs: TokenInputs): string =>
  contentToken(canonical({ ...inputs, v: PAYLOAD_VER[inputs.view] }))

/**
 * The ETag a payload is served under: `W/"<token>"`. Defined here, once, and
 * not only in the HTTP adapter, because the API makes it a payload value too: the bundle
 * the core assembles names each slice's ETag in its body, and the bundle's token hashes them.
 * The HTTP adapter makes its `ETag` headers with this same function (ConditionalGet.weakEtag),
 * so a slice's `etag` field is by construction what the view's own endpoint sends.
 */
export const etag = (token: string): string => `W/"${token}"`

/** The bundle's token: a hash of its slices' ETags (`etag` of their tokens), in slice order; null for an absent slice. */
export const combine = (tokens: ReadonlyArray<string | null>): string =>
  contentToken(canonical({ view: "bundle", v: PAYLOAD_VER.bundle, etags: tokens.map((t) => (t === null ? null : etag(t))) }))
