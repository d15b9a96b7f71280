/**
 * Every data call goes through `@climate-grade/client`. Kept apart from api.ts so the
 * account page, which needs no data view, does not load the client.
 */
import { createClient, indexedDbStore } from "@climate-grade/client"
import { apiBase } from "./api.js"
import { laterWords, w } from "./i18n/index.js"

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

/**
 * What a failed load means, for a person: the server's detail and the wait (refusal.ts), in the
 * device's time. Its words are a chunk of their own, fetched only when something failed.
 */
export const describeError = (error: unknown): Promise<string> =>
  Promise.all([import("./refusal.js"), laterWords()]).then(
    ([m]) => m.loadFailureWords(error, { now: Date.now() }),
    // The words' own chunk did not come (the network went with the data): say the plainest thing.
    () => w("unreachable")
  )
