/**
 * Plans for the data views: the resolved parameters, the payload's key and freshness token, and
 * a build that runs only when nothing stored is still valid. A conditional request compares the
 * plan's token (served as its ETag by the HTTP adapter) and never builds or reads the payload
 * (docs/api.md "Common rules", caching).
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Cell } from "../Cell.js"
import * as CivilDate from "../CivilDate.js"
import { CellData, type Forecast, HOUR_MS, type History } from "../weather/CellData.js"
import type { NoHistory, UpstreamError } from "../weather/Errors.js"
import * as CalendarRange from "./CalendarRange.js"
import * as FreshnessToken from "./FreshnessToken.js"
import { GradingCache } from "./GradingCache.js"
import type { PayloadKey } from "./PayloadStore.js"
import type * as Payloads from "./Payloads.js"
import * as Views from "./Views.js"

export interface Plan<A> {
  /** The cell as the payload shows it (the bundle repeats it). */
  readonly cell: Payloads.CellInfo
  readonly key: PayloadKey
  /** The freshness token; the HTTP adapter serves it as the ETag `FreshnessToken.etag(token)`. */
  readonly token: string
  /** The calendar is not stored while the cell has no place label (it is rebuilt once it has one). */
  readonly storable: boolean
  readonly build: Effect.Effect<A>
  /**
   * Epoch ms until which this plan's token cannot change in this process: before the next
   * history top-up or forecast refetch, before the cell's local date turns, at most a minute.
   * A cache of answers in front of the views may trust the token (and the ETag made from it) until then.
   */
  readonly validUntil: number
}

/** A `date` outside what the day view can answer: from the record's first day to the last forecast day. */
export class DateOutOfRange extends Schema.TaggedError<DateOutOfRange>()("DateOutOfRange", {
  date: Schema.String,
  first: Schema.String,
  last: Schema.String
}) {}

export type DataError = UpstreamError | NoHistory

/** The bundle's slices, in the order of its payload and of its combined token. */
export interface BundleSlices<G, F, C, D> {
  readonly grade: G
  readonly forecast: F
  readonly calendar: C
  readonly day: D
}

/**
 * The bundle (`GET /cell`, docs/api.md "Weather data"): its four slices' own plans (grade and forecast
 * absent on a prefetch), its key, its token combined from theirs, whether it may be stored (only when
 * every slice may), until when it holds (the earliest of its slices), and how its payload is assembled
 * from the slices' data.
 */
export interface BundlePlan {
  readonly key: PayloadKey
  readonly token: string
  readonly storable: boolean
  readonly validUntil: number
  readonly slices: BundleSlices<
    Plan<Payloads.GradePayload> | null,
    Plan<Payloads.ForecastPayload> | null,
    Plan<Payloads.CalendarPayload>,
    Plan<Payloads.DayPayload>
  >
  /** The payload from the slices' data (null for a slice the plan does not carry). */
  readonly assemble: (
    data: BundleSlices<
      Payloads.GradePayload | null,
      Payloads.ForecastPayload | null,
      Payloads.CalendarPayload | null,
      Payloads.DayPayload | null
    >
  ) => Payloads.BundlePayload
}

/** The calendar the bundle carries: the last 24 months of the record. */
export const BUNDLE_CALENDAR: CalendarRequest = { start: Option.none(), end: Option.none(), months: Option.some(24) }

/** The bundle's plan from its slices' plans: token, storability, validity and assembly. */
export const bundlePlan = (cell: Cell, prefetch: boolean, slices: BundlePlan["slices"]): BundlePlan => {
  const order = [slices.grade, slices.forecast, slices.calendar, slices.day] as const
  const token = FreshnessToken.combine(order.map((p) => p?.token ?? null))
  // A slice's `etag` is a payload field: the ETag its own endpoint sends, made
  // by the same function the HTTP adapter makes that header with.
  const slice = <A>(plan: Plan<A> | null, data: A | null) =>
    plan === null || data === null ? null : { etag: FreshnessToken.etag(plan.token), data }
  return {
    key: { cell: cell.key, view: "bundle", params: prefetch ? "prefetch" : "full" },
    token,
    storable: order.every((p) => p === null || p.storable),
    validUntil: Math.min(...order.map((p) => (p === null ? Infinity : p.validUntil))),
    slices,
    assemble: (data) => ({
      v: FreshnessToken.PAYLOAD_VER.bundle,
      cell: slices.calendar.cell,
      grade: slice(slices.grade, data.grade),
      forecast: slice(slices.forecast, data.forecast),
      calendar: slice(slices.calendar, data.calendar),
      day: slice(slices.day, data.day)
    })
  }
}

export interface CalendarRequest {
  readonly start: Option.Option<CivilDate.EpochDay>
  readonly end: Option.Option<CivilDate.EpochDay>
  readonly months: Option.Option<number>
}

export class DataViews extends Context.Tag("@climate-grade/core/DataViews")<
  DataViews,
  {
    readonly grade: (cell: Cell) => Effect.Effect<Plan<Payloads.GradePayload>, DataError>
    /**
     * Today's grade from what is held (history, forecast, label), with no upstream or geocoder
     * call: a shared link's preview and card. None when the history or a forecast holding today
     * is not held. Its token is what `grade` would make from the same held record.
     */
    readonly heldGrade: (cell: Cell) => Effect.Effect<Option.Option<Plan<Payloads.GradePayload>>>
    readonly forecast: (cell: Cell) => Effect.Effect<Plan<Payloads.ForecastPayload>, DataError>
    readonly calendar: (cell: Cell, request: CalendarRequest) => Effect.Effect<Plan<Payloads.CalendarPayload>, DataError>
    readonly day: (
      cell: Cell,
      date: Option.Option<CivilDate.EpochDay>
    ) => Effect.Effect<Plan<Payloads.DayPayload>, DataError | DateOutOfRange>
    /** The climate context (`GET /trend`): from the history alone, no forecast. */
    readonly trend: (cell: Cell) => Effect.Effect<Plan<Payloads.TrendPayload>, DataError>
    /** Heat waves, cold spells, dry and wet spells (`GET /spells`): over the history, then the forecast. */
    readonly spells: (cell: Cell) => Effect.Effect<Plan<Payloads.SpellsPayload>, DataError>
    /**
     * Prefetch: the calendar (24 months) and the record's last day, from the history already
     * held, with no weather call; None when the cell has no history held. At most one geocoder
     * call, and only for a cell never labeled.
     */
    readonly prefetch: (
      cell: Cell
    ) => Effect.Effect<
      Option.Option<{ readonly calendar: Plan<Payloads.CalendarPayload>; readonly day: Plan<Payloads.DayPayload> }>
    >
    /**
     * The bundle: all four slices (their shared history, forecast and label each fetched once), or
     * on a prefetch the calendar and day from what is held (None when nothing is).
     */
    readonly bundle: (
      cell: Cell,
      options: { readonly prefetch: boolean }
    ) => Effect.Effect<Option.Option<BundlePlan>, DataError | DateOutOfRange>
  }
>() {}

export const make =
  Effect.gen(function* () {
    const data = yield* CellData
    const gradings = yield* GradingCache
    const gradingFor = (cell: Cell, history: History) => gradings.grading(cell.key, history)
    const thresholdsFor = (cell: Cell, history: History) => gradings.thresholds(cell.key, history)

    const cellInfo = (cell: Cell, label: string | null, timezone: string): Payloads.CellInfo => ({
      lat: cell.lat,
      lon: cell.lon,
      label,
      timezone
    })

    const plan = <A>(
      view: FreshnessToken.View,
      cell: Cell,
      inputs: Omit<FreshnessToken.TokenInputs, "view" | "cell">,
      params: string,
      build: Effect.Effect<A>,
      validUntil: number,
      storable = true
    ): Plan<A> => {
      const token = FreshnessToken.make({ view, cell: cell.key, ...inputs })
      return {
        validUntil: inputs.label === null ? 0 : validUntil,
        cell: cellInfo(cell, inputs.label, inputs.timezone),
        key: { cell: cell.key, view, params },
        token,
        storable,
        build
      }
    }


    const MINUTE = 60_000
    /**
     * At most a minute, never past the cell's local midnight (held until that instant, so that in
     * the day's last minute its revalidations are still answered from the index), never past the
     * given bounds.
     */
    const validity = (now: number, timezone: string, ...bounds: ReadonlyArray<number>) =>
      Math.min(now + MINUTE, CivilDate.dateChangeWithin(now, timezone, MINUTE) ?? Infinity, ...bounds)

    /** The grade or forecast view's plan over a record's parts, at `now`. */
    const forecastViewPlan = <A>(
      view: "grade" | "forecast",
      cell: Cell,
      parts: { readonly history: History; readonly forecast: Forecast; readonly label: string | null },
      now: number,
      build: (input: Parameters<typeof Views.grade>[0]) => A
    ) => {
      const { history, forecast, label } = parts
      const day = CivilDate.todayIn(now, history.timezone)
      const info = cellInfo(cell, label, history.timezone)
      return plan(
        view,
        cell,
        {
          params: { date: CivilDate.format(day) },
          label,
          timezone: history.timezone,
          recordEnd: CivilDate.format(history.end),
          forecastStamp: forecast.stamp
        },
        CivilDate.format(day),
        Effect.map(gradingFor(cell, history), (grading) =>
          build({ cell: info, today: day, forecast: forecast.series, stamp: forecast.stamp, grading })
        ),
        validity(now, history.timezone, history.checkedAt + HOUR_MS, forecast.checkedAt + HOUR_MS)
      )
    }

    const forecastPlan = <A>(
      view: "grade" | "forecast",
      cell: Cell,
      build: (input: Parameters<typeof Views.grade>[0]) => A
    ) =>
      Effect.gen(function* () {
        const [history, forecast, label] = yield* Effect.all([data.history(cell), data.forecast(cell), data.label(cell)], {
          concurrency: "unbounded"
        })
        return forecastViewPlan(view, cell, { history, forecast, label }, yield* Clock.currentTimeMillis, build)
      })

    const heldGrade = (cell: Cell) =>
      Effect.gen(function* () {
        const history = yield* data.heldHistory(cell)
        const forecast = yield* data.heldForecast(cell)
        if (Option.isNone(history) || Option.isNone(forecast)) return Option.none()
        const now = yield* Clock.currentTimeMillis
        const today = CivilDate.todayIn(now, history.value.timezone)
        // A forecast kept from long ago may not reach today: then there is no grade of today held.
        const held = (["tmax", "tmin", "precip"] as const).some(
          (v) => !Number.isNaN(Views.valueOn(forecast.value.series, v, today))
        )
        if (!held) return Option.none()
        const label = yield* data.heldLabel(cell)
        return Option.some(
          forecastViewPlan("grade", cell, { history: history.value, forecast: forecast.value, label }, now, Views.grade)
        )
      })

    const calendarPlan = (cell: Cell, history: History, label: string | null, request: CalendarRequest, now: number) => {
      const range = CalendarRange.resolve(
        {
          start: Option.getOrUndefined(request.start),
          end: Option.getOrUndefined(request.end),
          months: Option.getOrUndefined(request.months)
        },
        { start: history.series.start, end: history.end }
      )
      const start = CivilDate.format(range.start)
      const end = CivilDate.format(range.end)
      return plan(
        "calendar",
        cell,
        { params: { start, end }, label, timezone: history.timezone, recordEnd: CivilDate.format(history.end), forecastStamp: null },
        `${start}..${end}`,
        Effect.map(gradingFor(cell, history), (grading) =>
          Views.calendar({ cell: cellInfo(cell, label, history.timezone), start: range.start, end: range.end, grading })
        ),
        Math.min(now + MINUTE, history.checkedAt + HOUR_MS),
        label !== null
      )
    }

    const dayPlan = (
      cell: Cell,
      history: History,
      label: string | null,
      date: CivilDate.EpochDay,
      forecast: Option.Option<Forecast>,
      now: number,
      defaultDate: boolean
    ) => {
      const series = Option.getOrNull(Option.map(forecast, (f) => f.series))
      const source = Views.daySource(date, history.series, series)
      // The forecast stamp matters only when the day's values come from the forecast, or when
      // there is none, so that a forecast arriving later changes the token.
      const stamp = source === "history" ? null : Option.getOrNull(Option.map(forecast, (f) => f.stamp))
      // When that forecast can next change: an hour after it was fetched or last tried.
      const recheck = source === "history" ? Infinity : Option.match(forecast, { onNone: () => 0, onSome: (f) => f.checkedAt + HOUR_MS })
      return plan(
        "day",
        cell,
        {
          params: { date: CivilDate.format(date), source },
          label,
          timezone: history.timezone,
          recordEnd: CivilDate.format(history.end),
          forecastStamp: stamp
        },
        CivilDate.format(date),
        Effect.map(gradingFor(cell, history), (grading) =>
          Views.day({
            cell: cellInfo(cell, label, history.timezone),
            date,
            history: history.series,
            forecast: source === "history" ? null : series,
            grading
          })
        ),
        // Without a forecast the next request tries again, and may change the token.
        source !== "history" && Option.isNone(forecast)
          ? 0
          : defaultDate
            ? validity(now, history.timezone, history.checkedAt + HOUR_MS, recheck)
            : Math.min(now + MINUTE, history.checkedAt + HOUR_MS, recheck)
      )
    }

    const prefetch = (cell: Cell) =>
      Effect.gen(function* () {
        const held = yield* data.heldHistory(cell)
        if (Option.isNone(held)) return Option.none()
        const history = held.value
        const known = yield* data.heldLabel(cell)
        const label = known ?? (yield* data.label(cell))
        const now = yield* Clock.currentTimeMillis
        return Option.some({
          calendar: calendarPlan(cell, history, label, BUNDLE_CALENDAR, now),
          day: dayPlan(cell, history, label, history.end, Option.none(), now, false)
        })
      })

    const calendar = (cell: Cell, request: CalendarRequest) =>
      Effect.gen(function* () {
        const [history, label] = yield* Effect.all([data.history(cell), data.label(cell)], { concurrency: "unbounded" })
        return calendarPlan(cell, history, label, request, yield* Clock.currentTimeMillis)
      })

    const day = (cell: Cell, requested: Option.Option<CivilDate.EpochDay>) =>
      Effect.gen(function* () {
        const history = yield* data.history(cell)
        const label = yield* data.label(cell)
        const now = yield* Clock.currentTimeMillis
        const date = Option.getOrElse(requested, () => CivilDate.todayIn(now, history.timezone))
        // The day view never fails because of the forecast: without one it is climatology alone.
        const forecast =
          date <= history.end
            ? Option.none<Forecast>()
            : yield* Effect.option(data.forecast(cell))
        // As far as the weather source's forecast reaches. A forecast kept after failed
        // refetches may end sooner; those days are then climatology alone, as with none.
        const last = Math.max(
          CivilDate.todayIn(now, history.timezone) + data.forecastReach,
          Option.match(forecast, { onNone: () => 0, onSome: (f) => Views.lastDay(f.series) })
        )
        if (date < history.series.start || date > last) {
          return yield* new DateOutOfRange({
            date: CivilDate.format(date),
            first: CivilDate.format(history.series.start),
            last: CivilDate.format(last)
          })
        }
        return dayPlan(cell, history, label, date, forecast, now, Option.isNone(requested))
      })

    const trend = (cell: Cell) =>
      Effect.gen(function* () {
        const [history, label] = yield* Effect.all([data.history(cell), data.label(cell)], { concurrency: "unbounded" })
        const now = yield* Clock.currentTimeMillis
        // Like the calendar's: the record's end (and the cell as shown) is all that can change it.
        return plan(
          "trend",
          cell,
          { params: {}, label, timezone: history.timezone, recordEnd: CivilDate.format(history.end), forecastStamp: null },
          "all",
          Effect.sync(() => Views.trend({ cell: cellInfo(cell, label, history.timezone), history: history.series })),
          Math.min(now + MINUTE, history.checkedAt + HOUR_MS)
        )
      })

    const spells = (cell: Cell) =>
      Effect.gen(function* () {
        const [history, forecast, label] = yield* Effect.all([data.history(cell), data.forecast(cell), data.label(cell)], {
          concurrency: "unbounded"
        })
        const now = yield* Clock.currentTimeMillis
        const today = CivilDate.todayIn(now, history.timezone)
        // Today is a parameter: which spells are `now` and `recent` turns with the cell's date.
        return plan(
          "spells",
          cell,
          {
            params: { date: CivilDate.format(today) },
            label,
            timezone: history.timezone,
            recordEnd: CivilDate.format(history.end),
            forecastStamp: forecast.stamp
          },
          CivilDate.format(today),
          Effect.map(thresholdsFor(cell, history), (thresholds) =>
            Views.spells({
              cell: cellInfo(cell, label, history.timezone),
              history: history.series,
              forecast: forecast.series,
              today,
              ...(thresholds === undefined ? {} : { thresholds })
            })
          ),
          validity(now, history.timezone, history.checkedAt + HOUR_MS, forecast.checkedAt + HOUR_MS)
        )
      })

    const grade = (cell: Cell) => forecastPlan("grade", cell, Views.grade)
    const forecast = (cell: Cell) => forecastPlan("forecast", cell, Views.forecast)

    const bundle = (cell: Cell, options: { readonly prefetch: boolean }) =>
      options.prefetch
        ? Effect.map(prefetch(cell), Option.map((held) => bundlePlan(cell, true, { grade: null, forecast: null, ...held })))
        : // All at once: the history, forecast and label they share are each fetched once (CellData's flights).
          Effect.all(
            {
              grade: grade(cell),
              forecast: forecast(cell),
              calendar: calendar(cell, BUNDLE_CALENDAR),
              day: day(cell, Option.none())
            },
            { concurrency: "unbounded" }
          ).pipe(Effect.map((slices) => Option.some(bundlePlan(cell, false, slices))))

    return DataViews.of({ grade, heldGrade, forecast, calendar, day, trend, spells, prefetch, bundle })
  })

/** The views; needs the one `GradingCache` of the process (shared with the alert evaluator). */
export const layer = Layer.effect(DataViews, make)

