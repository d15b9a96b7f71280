import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Payloads } from "@climate-grade/core"
import * as Schema from "effect/Schema"
import * as DataQuery from "./DataQuery.js"
import {
  BadGatewaySchema,
  BadRequestSchema,
  DatabaseFaultSchema,
  GatewayTimeoutSchema,
  NotFoundSchema,
  ServiceUnavailableSchema,
  TooManyRequestsSchema
} from "./Errors.js"

/** A conditional GET whose If-None-Match matched the ETag. */
const NotModified = HttpApiSchema.Empty(304).annotations({
  description: "If-None-Match matched: no body; ETag, Cache-Control and Vary as on the 200"
})
// The query values' schemas (their refusals, in words, are DataQuery's).
const { Where } = DataQuery

/** A data view: a GET answering its payload, or 304 to a matching If-None-Match; its query is set after. */
const view = <const Name extends string, A, I>(name: Name, path: `/${string}`, payload: Schema.Schema<A, I>, description: string) =>
  HttpApiEndpoint.get(name, path).addSuccess(payload).addSuccess(NotModified).annotate(OpenApi.Description, description)

const place = Schema.Struct(Where)

export class DataGroup extends HttpApiGroup.make("data")
  .add(
    view("grade", "/grade", Payloads.GradePayload, "Today's values ranked against the cell's history, from the recent forecast.").setUrlParams(
      place
    )
  )
  .add(view("forecast", "/forecast", Payloads.ForecastPayload, "Every day from today to the last forecast day, graded.").setUrlParams(place))
  .add(
    view("calendar", "/calendar", Payloads.CalendarPayload, "The record's own days graded, over at most 24 months.").setUrlParams(
      Schema.Struct({
        ...Where,
        start: DataQuery.date("start", "YYYY-MM-DD; default: end − months + 1 day"),
        end: DataQuery.date("end", "YYYY-MM-DD; default: the record's last day"),
        months: DataQuery.wholeNumber("months", "whole months back from end when start is absent; default 12")
      })
    )
  )
  .add(
    view(
      "day",
      "/day",
      Payloads.DayPayload,
      "One day's values, grades and climatology; climatology alone when there are no values."
    ).setUrlParams(
      Schema.Struct({ ...Where, date: DataQuery.date("date", "YYYY-MM-DD from the record's first day to the last forecast day; default today") })
    )
  )
  .add(
    view(
      "trend",
      "/trend",
      Payloads.TrendPayload,
      "Climate context from the history alone: every year's means and sums, the baseline, and how this month, season and year so far rank against the same span of every earlier year."
    ).setUrlParams(place)
  )
  .add(
    view(
      "spells",
      "/spells",
      Payloads.SpellsPayload,
      "Heat waves (Excess Heat Factor), cold spells, dry and wet spells over the record and the coming days, each ranked against every other of its kind here: those on or coming, each kind's top 10, the days per year and the last two years' spells."
    ).setUrlParams(place)
  )
  .add(
    view("cell", "/cell", Payloads.BundlePayload, "All four views in one response, each slice with the ETag its own endpoint sends.")
      .setUrlParams(Schema.Struct({ ...Where, prefetch: DataQuery.prefetch }))
      .addSuccess(HttpApiSchema.Empty(204).annotations({ description: "prefetch=1 for a cell with no history held" }))
  )
  // A query value missing or malformed; a day outside the record and the forecast.
  .addError(BadRequestSchema)
  // A cell whose history holds no value at all.
  .addError(NotFoundSchema)
  // A client already loading COLD_CELLS_PER_CLIENT new cells, or past its pace of prefetch=1 misses (Retry-After).
  .addError(TooManyRequestsSchema)
  // The weather source rate-limited, the day's budget spent (both with Retry-After), or the database down.
  .addError(ServiceUnavailableSchema)
  // The database refused a statement (a damaged table): logged (AppMiddleware).
  .addError(DatabaseFaultSchema)
  // The weather source failed or answered something unreadable.
  .addError(BadGatewaySchema)
  // The weather source did not answer in time.
  .addError(GatewayTimeoutSchema) {}
