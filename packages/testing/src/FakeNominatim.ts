/** A fake Nominatim on loopback: `/reverse` in jsonv2, addresses per cell, "Unable to geocode", faults. */
import * as Effect from "effect/Effect"
import { type Fault, type Logged, play, record, send, serve } from "./FakeUpstream.js"

export interface FakeNominatim {
  readonly origin: string
  readonly reverseUrl: string
  readonly requests: Array<Logged>
  readonly faults: Array<Fault>
  /** Cells (`"lat,lon"` as sent) whose lookups fail with a 500, whatever else is queued. */
  readonly failing: Set<string>
  /** Address by `"lat,lon"` as sent; others get `fallback`. */
  readonly addresses: Map<string, Readonly<Record<string, string>>>
  fallback: Readonly<Record<string, string>> | "unable"
}

export const make = Effect.gen(function* () {
  const state = {
    requests: [] as Array<Logged>,
    faults: [] as Array<Fault>,
    addresses: new Map<string, Readonly<Record<string, string>>>(),
    failing: new Set<string>(),
    fallback: { city: "Testville", state: "Test State", country: "Testland", country_code: "tl" } as FakeNominatim["fallback"]
  }
  const { origin } = yield* serve((req, res, url) => {
    if (url.pathname !== "/reverse") return send(res, 404, { error: "Not found" })
    const { query } = record(state.requests, req, res, url)
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
  })
  return Object.assign(state, { origin, reverseUrl: `${origin}/reverse` }) as FakeNominatim
})
