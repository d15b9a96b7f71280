/**
 * A fake Nominatim on loopback: `/reverse` in jsonv2, addresses per cell, "Unable to geocode";
 * `/search` in jsonv2 with results per query (honouring `limit`); faults queued for either, or for
 * searches alone (`searchFaults`, played first), which a cell's label looked up meanwhile cannot take.
 */
import * as Effect from "effect/Effect"
import { type Fault, type Logged, play, record, send, serve } from "./FakeUpstream.js"

/** A `/search` result as Nominatim's jsonv2 gives it (coordinates as strings). */
export interface SearchResult {
  readonly display_name: string
  readonly lat: string
  readonly lon: string
  readonly name?: string
  /** Given when asked with `addressdetails=1`, as Nominatim does. */
  readonly address?: Readonly<Record<string, string>>
}

export interface FakeNominatim {
  readonly origin: string
  readonly reverseUrl: string
  readonly searchUrl: string
  /** Results by `q` as sent; other queries get `searchFallback(q)`. */
  readonly searches: Map<string, ReadonlyArray<SearchResult>>
  searchFallback: (q: string) => ReadonlyArray<SearchResult>
  readonly requests: Array<Logged>
  readonly faults: Array<Fault>
  /** Faults for `/search` only, played before `faults`. */
  readonly searchFaults: Array<Fault>
  /** Cells (`"lat,lon"` as sent) whose lookups fail with a 500, whatever else is queued. */
  readonly failing: Set<string>
  /** Address by `"lat,lon"` as sent; others get `fallback`. */
  readonly addresses: Map<string, Readonly<Record<string, string>>>
  fallback: Readonly<Record<string, string>> | "unable"
  /** Added to every answer: a slow geocoder. */
  delayMs: number
}

export const make = Effect.gen(function* () {
  const state = {
    requests: [] as Array<Logged>,
    faults: [] as Array<Fault>,
    searchFaults: [] as Array<Fault>,
    addresses: new Map<string, Readonly<Record<string, string>>>(),
    failing: new Set<string>(),
    fallback: { city: "Testville", state: "Test State", country: "Testland", country_code: "tl" } as FakeNominatim["fallback"],
    searches: new Map<string, ReadonlyArray<SearchResult>>(),
    // By default any name is found once, in Seattle's cell, so pages can be searched without set-up.
    searchFallback: (q: string): ReadonlyArray<SearchResult> => [
      { display_name: `${q}, Test State, Testland`, lat: "47.6062", lon: "-122.3321", name: q }
    ],
    delayMs: 0
  }
  const { origin } = yield* serve((req, res, url) => {
    if (url.pathname === "/search") {
      const { query } = record(state.requests, req, res, url)
      if (play(state.searchFaults.shift() ?? state.faults.shift(), res)) return
      const q = query.q ?? ""
      const limit = Number(query.limit ?? "10")
      const results = (state.searches.get(q) ?? state.searchFallback(q)).slice(0, Number.isFinite(limit) ? limit : 10)
      return send(
        res,
        200,
        results.map((r, i) => ({
          place_id: 1000 + i,
          licence: "Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright",
          osm_type: "relation",
          category: "boundary",
          type: "administrative",
          place_rank: 16,
          importance: 0.5 - i / 100,
          addresstype: "city",
          boundingbox: ["0", "0", "0", "0"],
          name: r.name ?? r.display_name.split(",")[0],
          ...r
        }))
      )
    }
    if (url.pathname !== "/reverse") return send(res, 404, { error: "Not found" })
    const { query } = record(state.requests, req, res, url)
    const answer = () => {
      if (state.failing.has(`${query.lat},${query.lon}`)) return send(res, 500, { error: "Internal error" })
      if (play(state.faults.shift(), res)) return
      const address = state.addresses.get(`${query.lat},${query.lon}`) ?? state.fallback
      if (address === "unable") return send(res, 200, { error: "Unable to geocode" })
      send(res, 200, {
        place_id: 1,
        licence: "Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright",
        osm_type: "relation",
        lat: query.lat,
        lon: query.lon,
        category: "boundary",
        type: "administrative",
        place_rank: 16,
        addresstype: "city",
        name: Object.values(address)[0] ?? "",
        display_name: Object.values(address).join(", "),
        address,
        boundingbox: ["0", "0", "0", "0"]
      })
    }
    if (state.delayMs > 0) setTimeout(answer, state.delayMs)
    else answer()
  })
  return Object.assign(state, { origin, reverseUrl: `${origin}/reverse`, searchUrl: `${origin}/search` }) as FakeNominatim
})
