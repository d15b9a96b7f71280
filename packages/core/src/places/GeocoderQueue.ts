/**
 * The order in which a process's geocoder calls take their turn. Nominatim allows one call a
 * second for the whole process, so calls wait; without an order of its own, one client's burst of
 * place searches would make everyone else's search, and every new cell's label, wait behind all
 * of it (30 searches: 30 s).
 *
 * - New cells' labels and place searches take turns: while both wait, a label goes every other
 *   turn, so a label waits behind one search at most (a view waits for its label), and a flood of
 *   new cells (an unlimited budget allows one) still leaves searches every other turn.
 * - Place searches take turns by client (round robin): a client with searches waiting gets one
 *   turn, then every other client waiting gets one, and so on; a client's own searches keep their
 *   order.
 * - A client may have at most `perClient` searches waiting or running; one more is refused at once
 *   (the HTTP adapter answers 429 with Retry-After), not queued.
 * - All clients together may have at most `SEARCHES_WAITING` searches waiting (the pacer refuses
 *   past it; the HTTP adapter answers 503 with Retry-After), so many addresses cannot queue
 *   everyone's next search behind minutes of theirs.
 *
 * One instance of this per process; the pacer (packages/weather) decides when a turn may start.
 */
import * as Schema from "effect/Schema"

/** Place searches one client may have waiting or running at the geocoder. */
export const SEARCHES_PER_CLIENT = 3

/** Place searches waiting at the geocoder, all clients together (at one call a second, half a minute). */
export const SEARCHES_WAITING = 30

export type Lane = { readonly _tag: "Label" } | { readonly _tag: "Search"; readonly client: string }

export const LABEL: Lane = { _tag: "Label" }
export const search = (client: string): Lane => ({ _tag: "Search", client })

/**
 * A place search refused because its client has `limit` searches waiting or running already, or
 * (`everyone`) because `limit` searches of all clients wait already.
 */
export class SearchesQueued extends Schema.TaggedError<SearchesQueued>()("SearchesQueued", {
  limit: Schema.Number,
  retryAfterSeconds: Schema.Number,
  everyone: Schema.optional(Schema.Boolean)
}) {}

/** The refusal's detail (429 for a client's own bound, 503 for everyone's). */
export const detail = (error: SearchesQueued): string =>
  error.everyone === true
    ? `${error.limit} place searches are waiting for the geocoder; try again in ${error.retryAfterSeconds} second${error.retryAfterSeconds === 1 ? "" : "s"}.`
    : `This client already has ${error.limit} place search${error.limit === 1 ? "" : "es"} waiting for the geocoder; ` +
  `try again in ${error.retryAfterSeconds} second${error.retryAfterSeconds === 1 ? "" : "s"}.`

export interface GeocoderQueue<T> {
  /** Queues `item` in its lane; false (nothing queued) when it is a search past its client's bound. */
  readonly offer: (lane: Lane, item: T) => boolean
  /**
   * The next item to run, taken off the queue: a label when one waits and the last turn was not a
   * label's (or no search waits), else the next client's oldest search.
   */
  readonly take: () => T | undefined
  /** A taken item's call has ended: its client may queue another. */
  readonly finished: (lane: Lane) => void
  /** Takes back an item still waiting (its caller gave up); false when it is not waiting (taken already). */
  readonly cancel: (lane: Lane, item: T) => boolean
  /**
   * Turns (calls, the one running included) until one of `client`'s searches has ended, as things
   * stand: the clients ahead of it and the labels between them go first. Retry-After for a refused search.
   */
  readonly turnsUntilFree: (client: string) => number
  /** Items waiting. */
  readonly waiting: () => number
  /** Searches waiting (not running), all clients together. */
  readonly searchesWaiting: () => number
}

export const make = <T>(perClient: number = SEARCHES_PER_CLIENT): GeocoderQueue<T> => {
  const labels: Array<T> = []
  // Waiting searches by client; `ring` holds the clients with any, in the order their turns come.
  const searches = new Map<string, Array<T>>()
  const ring: Array<string> = []
  // Searches waiting or running, by client.
  const held = new Map<string, number>()
  let lastWasLabel = false
  let waitingSearches = 0

  const drop = (client: string) => {
    const n = (held.get(client) ?? 1) - 1
    if (n > 0) held.set(client, n)
    else held.delete(client)
  }

  return {
    offer: (lane, item) => {
      if (lane._tag === "Label") {
        labels.push(item)
        return true
      }
      const { client } = lane
      const n = held.get(client) ?? 0
      if (n >= perClient) return false
      held.set(client, n + 1)
      waitingSearches++
      const own = searches.get(client)
      if (own === undefined) {
        searches.set(client, [item])
        ring.push(client)
      } else own.push(item)
      return true
    },
    take: () => {
      if (labels.length > 0 && (ring.length === 0 || !lastWasLabel)) {
        lastWasLabel = true
        return labels.shift()
      }
      const client = ring.shift()
      if (client === undefined) return undefined
      lastWasLabel = false
      const own = searches.get(client)!
      const item = own.shift()!
      waitingSearches--
      // Its next search, if any, waits for every other client's turn.
      if (own.length > 0) ring.push(client)
      else searches.delete(client)
      return item
    },
    finished: (lane) => {
      if (lane._tag === "Search") drop(lane.client)
    },
    cancel: (lane, item) => {
      if (lane._tag === "Label") {
        const at = labels.indexOf(item)
        if (at < 0) return false
        labels.splice(at, 1)
        return true
      }
      const own = searches.get(lane.client)
      const at = own === undefined ? -1 : own.indexOf(item)
      if (own === undefined || at < 0) return false
      own.splice(at, 1)
      waitingSearches--
      if (own.length === 0) {
        searches.delete(lane.client)
        ring.splice(ring.indexOf(lane.client), 1)
      }
      drop(lane.client)
      return true
    },
    turnsUntilFree: (client) => {
      const at = ring.indexOf(client)
      // Nothing of its own waiting: its search is the one running. Else the clients ahead of it,
      // each perhaps after a label, then its own.
      return at < 0 ? 1 : 1 + Math.min(labels.length, at + 1) + at + 1
    },
    waiting: () => labels.length + waitingSearches,
    searchesWaiting: () => waitingSearches
  }
}
