/**
 * The pace of `prefetch=1` misses per client network: a prefetch of a cell with no history held
 * answers 204 and costs no upstream call, but it tells whether a cell is held, so a client could
 * scan the world for held cells (and then keep them fresh at the operator's cost) in seconds. Each
 * miss takes a token from its client network's bucket (`ClientNetwork`: IPv6 by /64); a client
 * with no token left is refused every prefetch, held or not (so the refusal says nothing of the
 * cell), until a token has come back. A held cell's prefetch takes none. (An answer the response
 * index holds — the same URL answered within the last minute — is served before any count; it
 * only tells of a cell someone asked for then.)
 *
 * The defaults let a person's page warm the 8 neighbours of five places at once and one more
 * neighbour every 2 s (1,800 an hour); a scan of 12,800 cells takes a client about 7 hours, not
 * 30 s. Counted in each process (a few hundred bytes per client, the most recent `clients` kept).
 */
import * as Lru from "../Lru.js"

export interface Options {
  /** Tokens a client starts with and holds at most. */
  readonly burst: number
  /** One token comes back every this many milliseconds. */
  readonly refillMs: number
  /** Clients remembered at most (the least recently seen is forgotten: it starts full again). */
  readonly clients: number
}

export const DEFAULTS: Options = { burst: 40, refillMs: 2_000, clients: 100_000 }

export interface Pace {
  /** Whole seconds until `network` has a token (0: it has one now). */
  readonly waitSeconds: (network: string, now: number) => number
  /** Takes one token from `network` (none left: stays empty). */
  readonly take: (network: string, now: number) => void
}

export const make = ({ burst, clients, refillMs }: Options = DEFAULTS): Pace => {
  const buckets = Lru.make<string, { readonly tokens: number; readonly at: number }>({ capacity: clients })
  const level = (network: string, now: number) => {
    const bucket = buckets.get(network)
    return bucket === undefined ? burst : Math.min(burst, bucket.tokens + Math.max(0, now - bucket.at) / refillMs)
  }
  return {
    waitSeconds: (network, now) => {
      const tokens = level(network, now)
      return tokens >= 1 ? 0 : Math.max(1, Math.ceil(((1 - tokens) * refillMs) / 1000))
    },
    take: (network, now) => buckets.set(network, { tokens: Math.max(0, level(network, now) - 1), at: now })
  }
}

/** The 429's detail. */
export const detail = (seconds: number): string =>
  `This client has asked for too many places not yet loaded with prefetch=1; try again in ${seconds} s.`
