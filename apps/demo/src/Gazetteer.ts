/**
 * The places the demo's fake geocoder knows: well-known cities, found by name in the search box
 * and named on the page (reverse lookups of their cells). Anywhere else is labeled by its
 * coordinates, as the real service does where Nominatim knows no place.
 */
import { Cell } from "@climate-grade/core"
import type * as FakeNominatim from "@climate-grade/testing/FakeNominatim"
import type * as FakeOpenMeteo from "@climate-grade/testing/FakeOpenMeteo"

export interface Place {
  readonly name: string
  readonly country: string
  readonly code: string
  readonly lat: number
  readonly lon: number
  /** The place's own time zone and a rough likeness of its climate, for the fake weather. */
  readonly timezone: string
  readonly climate: FakeOpenMeteo.Climate
}

const climate = (meanHigh: number, swing: number, dailyRange: number, wetShare: number, wetAmount: number): FakeOpenMeteo.Climate => ({
  meanHigh,
  swing,
  dailyRange,
  wetShare,
  wetAmount
})

export const PLACES: ReadonlyArray<Place> = [
  { name: "Berlin", country: "Deutschland", code: "de", lat: 52.52, lon: 13.4, timezone: "Europe/Berlin", climate: climate(14, 10, 8, 0.45, 3) },
  { name: "Paris", country: "France", code: "fr", lat: 48.857, lon: 2.352, timezone: "Europe/Paris", climate: climate(16, 9, 8, 0.45, 3) },
  { name: "Lisboa", country: "Portugal", code: "pt", lat: 38.722, lon: -9.139, timezone: "Europe/Lisbon", climate: climate(21, 6, 8, 0.3, 6) },
  { name: "London", country: "United Kingdom", code: "gb", lat: 51.507, lon: -0.128, timezone: "Europe/London", climate: climate(15, 7, 7, 0.5, 3) },
  { name: "Reykjavík", country: "Ísland", code: "is", lat: 64.146, lon: -21.942, timezone: "Atlantic/Reykjavik", climate: climate(7, 6, 5, 0.6, 3) },
  { name: "New York", country: "United States", code: "us", lat: 40.713, lon: -74.006, timezone: "America/New_York", climate: climate(17, 12, 8, 0.35, 8) },
  { name: "Seattle", country: "United States", code: "us", lat: 47.606, lon: -122.332, timezone: "America/Los_Angeles", climate: climate(16, 8, 7, 0.45, 4) },
  { name: "São Paulo", country: "Brasil", code: "br", lat: -23.551, lon: -46.633, timezone: "America/Sao_Paulo", climate: climate(25, 3, 9, 0.4, 10) },
  { name: "Cape Town", country: "South Africa", code: "za", lat: -33.925, lon: 18.424, timezone: "Africa/Johannesburg", climate: climate(22, 4, 9, 0.25, 6) },
  { name: "Mumbai", country: "India", code: "in", lat: 19.076, lon: 72.878, timezone: "Asia/Kolkata", climate: climate(31, 2, 7, 0.3, 25) },
  { name: "Tokyo", country: "Japan", code: "jp", lat: 35.682, lon: 139.692, timezone: "Asia/Tokyo", climate: climate(20, 10, 7, 0.35, 9) },
  { name: "Sydney", country: "Australia", code: "au", lat: -33.869, lon: 151.209, timezone: "Australia/Sydney", climate: climate(22, 4, 7, 0.35, 7) }
]

/**
 * The fake weather's time zone and climate for a coordinate: the nearest city within 2°, else the
 * zone of the longitude's hour and a climate from the latitude (warm at the equator, cold near the
 * poles; seasons turned round south of the equator by the fake itself).
 */
export const localOf = (lat: number, lon: number): FakeOpenMeteo.Local => {
  let nearest: Place | undefined
  let best = 2
  for (const place of PLACES) {
    const d = Math.hypot(place.lat - lat, place.lon - lon)
    if (d <= best) {
      best = d
      nearest = place
    }
  }
  if (nearest !== undefined) return { timezone: nearest.timezone, climate: nearest.climate }
  const hours = Math.round(lon / 15)
  // "Etc/GMT-9" is nine hours ahead of UTC (the POSIX sign).
  const timezone = hours === 0 ? "UTC" : `Etc/GMT${hours > 0 ? "-" : "+"}${Math.abs(hours)}`
  const a = Math.abs(lat)
  return { timezone, climate: climate(31 - 0.42 * a, Math.min(16, 0.28 * a), 7 + 0.05 * a, 0.35, a < 25 ? 12 : 4) }
}

/** Where the demo's weather has an extreme coming day, so that watching it brings an alert. */
export const EXTREME = PLACES[0]!

/** The cell key as the service sends it to Nominatim (`lat` and `lon` of the cell's centre, two decimals). */
const sent = (place: Place) => {
  const cell = Cell.fromCoordinates(place.lat, place.lon)
  return `${cell.lat.toFixed(2)},${cell.lon.toFixed(2)}`
}

/** Teaches the fake geocoder the gazetteer: reverse lookups by cell, searches by name (accents optional). */
export const install = (geocoder: FakeNominatim.FakeNominatim): void => {
  const fold = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase()
  for (const place of PLACES) geocoder.addresses.set(sent(place), { city: place.name, country: place.country, country_code: place.code })
  geocoder.fallback = "unable"
  geocoder.searchFallback = (q) =>
    PLACES.filter((p) => fold(p.name).includes(fold(q.trim())) || fold(q).includes(fold(p.name))).map((p) => ({
      display_name: `${p.name}, ${p.country}`,
      lat: String(p.lat),
      lon: String(p.lon),
      name: p.name,
      address: { city: p.name, country: p.country, country_code: p.code }
    }))
}
