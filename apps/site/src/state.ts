/**
 * The main page's state as signals, driven by the address. `go()` changes the address (pushState)
 * and `popstate` reads it back, so the same code path serves a click, a shared link and Back.
 *
 * Requests: loading a place is one `client.load()` (one `/cell`, then the client warms neighbours);
 * a `date=` other than the cell's today adds one `client.view("day", …, {date})`.
 */
import { batch, computed, signal } from "@preact/signals"
import { type Address, addressProblem, defaultUnits, formatAddress, parseAddress } from "./address.js"
import type { Loaded } from "@climate-grade/client"
import { dataClient, describeError, type Result } from "./data.js"
import { Cell as Grid } from "@climate-grade/core/rules"
import { placeName } from "./format.js"
import type { CalendarPayload, Cell, DayPayload, ForecastPayload, GradePayload, Units } from "./payloads.js"
import { basePathOf } from "./returnPath.js"
import { api, siteBase } from "./api.js"
import { maybeSignedIn, type RecentPlace, recentPlaces, rememberPlace, storedUnits, storeUnits } from "./storage.js"
import { localDate, topDay } from "./today.js"

export interface PlaceData {
  readonly key: string
  readonly cell: Cell
  readonly grade: Result<GradePayload> | null
  readonly forecast: Result<ForecastPayload> | null
  readonly calendar: Result<CalendarPayload>
  readonly day: Result<DayPayload>
}

const initial = parseAddress(location.search)

export const address = signal<Address>(initial)
/** Why the address shows no place (coordinates out of range, not numbers, one of the two missing). */
export const problem = signal<string | null>(addressProblem(location.search))
export const units = signal<Units>(initial.units ?? storedUnits() ?? defaultUnits(navigator.languages ?? [navigator.language]))
export const place = signal<PlaceData | null>(null)
/** The day view for a `date=` that is not today; null shows the bundle's day (today). */
export const otherDay = signal<Result<DayPayload> | null>(null)
export const loading = signal(false)
export const dayLoading = signal(false)
export const failure = signal<string | null>(null)
export const dayFailure = signal<string | null>(null)
export const recent = signal<ReadonlyArray<RecentPlace>>(recentPlaces())

/** This device's clock, read again every minute and when the page is shown again, so "today" moves at midnight. */
export const now = signal(Date.now())
const tick = () => {
  now.value = Date.now()
}

/** The day the bundle's day view was built for (its today when stored): the day shown without `date=`. */
export const baseDay = computed(() => place.value?.day.data.date ?? null)

/** The cell's today: its local date by this device's clock, in the cell's time zone. */
export const today = computed(() => {
  const p = place.value
  return p === null ? null : localDate(now.value, p.cell.timezone)
})

/** The day at the top of the page and its grades: today's when the grade or the stored forecast holds it. */
export const top = computed(() => {
  const p = place.value
  const t = today.value
  if (p === null || t === null) return null
  return topDay(p.grade?.data ?? null, p.forecast?.data ?? null, p.day.data.date, t)
})

/** The day shown in the day view. */
export const shownDay = computed<Result<DayPayload> | null>(() => otherDay.value ?? place.value?.day ?? null)

/** Some of what is shown is a stored copy because the network failed. */
export const offline = computed(() => {
  const p = place.value
  if (p === null) return false
  const results = [p.grade, p.forecast, p.calendar, p.day, otherDay.value]
  return results.some((r) => r !== null && r.source === "stale")
})

const cellKey = (lat: number, lon: number) => Grid.fromCoordinates(lat, lon).key

let generation = 0

const loadDay = async (lat: number, lon: number, date: string | null, mine: number) => {
  const p = place.value
  if (p === null) return
  if (date === null || date === p.day.data.date) {
    batch(() => {
      otherDay.value = null
      dayFailure.value = null
      dayLoading.value = false
    })
    return
  }
  if (otherDay.value?.data.date === date) return
  dayLoading.value = true
  try {
    const result = (await dataClient().view("day", lat, lon, { date })) as Result<DayPayload>
    if (mine !== generation) return
    batch(() => {
      otherDay.value = result
      dayFailure.value = null
    })
  } catch (error) {
    const words = await describeError(error)
    if (mine !== generation) return
    dayFailure.value = words
  } finally {
    if (mine === generation) dayLoading.value = false
  }
}

/** Brings the data in line with the address. */
const sync = async () => {
  const { lat, lon, date } = address.value
  const mine = ++generation
  if (lat === null || lon === null) {
    batch(() => {
      place.value = null
      otherDay.value = null
      failure.value = null
      loading.value = false
    })
    return
  }
  const key = cellKey(lat, lon)
  if (place.value?.key !== key) {
    batch(() => {
      // Another place: what was shown belongs to the old one, so it goes at once.
      place.value = null
      loading.value = true
      failure.value = null
      otherDay.value = null
      dayFailure.value = null
    })
    const client = dataClient()
    const placeData = (loaded: Loaded): PlaceData => ({
      key,
      cell: loaded.cell,
      grade: loaded.grade as Result<GradePayload> | null,
      forecast: loaded.forecast as Result<ForecastPayload> | null,
      calendar: loaded.calendar as Result<CalendarPayload>,
      day: loaded.day as Result<DayPayload>
    })
    // The stored copy is shown at once (no request), while load() revalidates it with one /cell.
    void client.peek(lat, lon).then(
      (stored) => {
        if (stored === null || mine !== generation || place.value !== null) return
        batch(() => {
          place.value = placeData(stored)
          loading.value = false
        })
      },
      () => undefined
    )
    try {
      const loaded = await client.load(lat, lon)
      if (mine !== generation) return
      const data = placeData(loaded)
      batch(() => {
        place.value = data
        loading.value = false
        const name = address.value.name
        recent.value = rememberPlace({ label: placeName(loaded.cell, name), lat: loaded.cell.lat, lon: loaded.cell.lon, name })
      })
    } catch (error) {
      const words = await describeError(error)
      if (mine !== generation) return
      batch(() => {
        place.value = null
        loading.value = false
        failure.value = words
      })
      return
    }
  }
  await loadDay(lat, lon, date, mine)
}

/** Moves to a new address (a new history entry unless `replace`), then loads what it names. */
export const go = (next: Partial<Address>, options: { readonly replace?: boolean } = {}) => {
  const merged: Address = { ...address.value, ...next }
  const href = formatAddress(merged)
  if (options.replace === true) history.replaceState(null, "", href)
  else history.pushState(null, "", href)
  address.value = merged
  void sync()
}

/**
 * A place picked on the map, in the search (with the name picked), or from a link: a new history
 * entry, today's view. A place without a name (the map, coordinates) drops the last one's.
 */
export const pick = (lat: number, lon: number, name: string | null = null) => {
  problem.value = null
  go({ lat: Number(lat.toFixed(4)), lon: Number(lon.toFixed(4)), name, date: null })
}

/** A day picked in the forecast, the calendar or the date field; the bundle's day is no `date=`. */
export const pickDate = (date: string) => go({ date: date === baseDay.value ? null : date })

/** The address of a place in the current units, for links that work in a new tab too. */
export const hrefFor = (p: { readonly lat: number; readonly lon: number; readonly name?: string | null }) =>
  formatAddress({ lat: p.lat, lon: p.lon, name: p.name ?? null, date: null, units: address.value.units })

/** The main page's path for the place shown (named as its heading names it), for the account page's way back. */
export const returnPath = (shownName: string | null): string => {
  const a = address.value
  const query = formatAddress({ ...a, name: a.lat === null ? null : shownName, date: null })
  return `${basePathOf(siteBase)}/${query === "./" ? "" : query}`
}

export const setUnits = (next: Units) => {
  units.value = next
  storeUnits(next)
  // Signed in, the account keeps the choice too: its direct messages are written in these units.
  if (maybeSignedIn()) {
    void fetch(api("users/me"), {
      method: "PATCH",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ units: next })
    }).catch(() => undefined)
  }
  // The address keeps the choice, so a shared link shows the same units.
  const merged: Address = { ...address.value, units: next }
  history.replaceState(null, "", formatAddress(merged))
  address.value = merged
}

/** Whether this page came from the service worker's copy because the network failed (sw.ts). */
const servedOffline = (): boolean => {
  const navigation = performance.getEntriesByType?.("navigation")[0] as PerformanceNavigationTiming | undefined
  return navigation?.serverTiming?.some((t) => t.name === "offline") ?? false
}

/**
 * With no network, `{BASE_PATH}/` alone (no place in the address: e.g. an installed app's start)
 * reopens the last place shown, from what the browser kept. Online, the address still holds the
 * state: the root is the welcome page.
 */
const reopenLastPlace = () => {
  const q = new URLSearchParams(location.search)
  const last = recent.value[0]
  if (q.has("lat") || q.has("lon") || last === undefined || !servedOffline()) return
  const merged: Address = { ...address.value, lat: last.lat, lon: last.lon, name: last.name ?? null, date: null }
  history.replaceState(null, "", formatAddress(merged))
  address.value = merged
}

export const start = () => {
  reopenLastPlace()
  setInterval(tick, 60_000)
  addEventListener("visibilitychange", tick)
  addEventListener("popstate", () => {
    const next = parseAddress(location.search)
    address.value = next
    problem.value = addressProblem(location.search)
    if (next.units !== null) units.value = next.units
    void sync()
  })
  void sync()
}
