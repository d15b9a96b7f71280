/**
 * Every data call goes through `@climate-grade/client` (CONTRACT.md §8). Kept apart from api.ts so the
 * account page, which needs no data view, does not load the client.
 */
import { createClient, indexedDbStore } from "@climate-grade/client"
import { apiBase } from "./api.js"

export type Source = "network" | "revalidated" | "cache" | "stale"

export interface Result<A> {
  readonly data: A
  readonly etag: string | null
  readonly source: Source
  readonly storedAt: number
}

let client: ReturnType<typeof createClient> | undefined

/** One client for the page's life: its store is IndexedDB, so a reload or an offline visit finds the data. */
export const dataClient = () => {
  client ??= createClient({ baseUrl: apiBase.href.replace(/\/$/, ""), store: indexedDbStore("climate-grade") })
  return client
}

/** What a failed load means, for a person. The client rejects with its tagged errors (CONTRACT.md §7). */
export const describeError = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const e = error as { _tag?: unknown; detail?: unknown; status?: unknown }
    if (e._tag === "RequestRejected" && typeof e.detail === "string" && e.detail.length > 0) return e.detail
    if (e._tag === "ServerError") {
      return e.status === 503
        ? "The weather source is busy right now. Try again in a minute."
        : e.status === 504
          ? "The weather source took too long to answer. Try again in a minute."
          : `The weather service answered with an error (${String(e.status)}). Try again later.`
    }
    if (e._tag === "BadPayload") return "The weather service sent an answer this page does not understand. Reload the page."
  }
  return "The weather service could not be reached. Check the connection and try again."
}
