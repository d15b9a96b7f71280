/**
 * The places the demo's fake geocoder knows: well-known cities, found by name in the search box
 * and named on the page (reverse lookups of their cells). Anywhere else is labeled by its
 * coordinates, as the real service does where Nominatim knows no place.
 */
import { Cell } from "@climate-grade/core"
import type * as FakeNominatim from "@climate-grade/testing/FakeNominatim"

export interface Place {
  readonly name: string
  readonly country: string
  readonly code: string
  readonly lat: number
  readonly lon: number
}

export const PLACES: ReadonlyArray<Place> = [
  { name: "Berlin", country: "Deutschland", code: "de", lat: 52.52, lon: 13.4 },
  { name: "Paris", country: "France", code: "fr", lat: 48.857, lon: 2.352 },
  { name: "Lisboa", country: "Portugal", code: "pt", lat: 38.722, lon: -9.139 },
  { name: "London", country: "United Kingdom", code: "gb", lat: 51.507, lon: -0.128 },
  { name: "Reykjavík", country: "Ísland", code: "is", lat: 64.146, lon: -21.942 },
  { name: "New York", country: "United States", code: "us", lat: 40.713, lon: -74.006 },
  { name: "Seattle", country: "United States", code: "us", lat: 47.606, lon: -122.332 },
  { name: "São Paulo", country: "Brasil", code: "br", lat: -23.551, lon: -46.633 },
  { name: "Cape Town", country: "South Africa", code: "za", lat: -33.925, lon: 18.424 },
  { name: "Mumbai", country: "India", code: "in", lat: 19.076, lon: 72.878 },
  { name: "Tokyo", country: "Japan", code: "jp", lat: 35.682, lon: 139.692 },
  { name: "Sydney", country: "Australia", code: "au", lat: -33.869, lon: 151.209 }
]

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
      name: p.name
    }))
}
