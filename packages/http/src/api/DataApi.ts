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

export class DataGroup extends HttpApiGroup.make("data")
  .add(
    HttpApiEndpoint.get("grade", "/grade")
      .setUrlParams(Schema.Struct(Where))
      .addSuccess(Payloads.GradePayload)
      .addSuccess(NotModified)
      .annotate(OpenApi.Description, "Today's values ranked against the cell's history, from the recent forecast.")
  )
  .add(
    HttpApiEndpoint.get("forecast", "/forecast")
      .setUrlParams(Schema.Struct(Where))
      .addSuccess(Payloads.ForecastPayload)
      .addSuccess(NotModified)
      .annotate(OpenApi.Description, "Every day from today to the last forecast day, graded.")
  )
  .add(
    HttpApiEndpoint.get("calendar", "/calendar")
      .setUrlParams(
        Schema.Struct({
          ...Where,
          start: DataQuery.date("start", "YYYY-MM-DD; default: end − months + 1 day"),
          end: DataQuery.date("end", "YYYY-MM-DD; default: the record's last day"),
          months: DataQuery.wholeNumber("months", "whole months back from end when start is absent; default 12")
        })
      )
      .addSuccess(Payloads.CalendarPayload)
      .addSuccess(NotModified)
      .annotate(OpenApi.Description, "The record's own days graded, over at most 24 months.")
  )
  .add(
    HttpApiEndpoint.get("day", "/day")
      .setUrlParams(Schema.Struct({ ...Where, date: DataQuery.date("date", "YYYY-MM-DD from the record's first day to the last forecast day; default today") }))
      .addSuccess(Payloads.DayPayload)
      .addSuccess(NotModified)
      .annotate(OpenApi.Description, "One day's values, grades and climatology; climatology alone when there are no values.")
  )
  .add(
    HttpApiEndpoint.get("trend", "/trend")
      .setUrlParams(Schema.Struct(Where))
      .addSuccess(Payloads.TrendPayload)
      .addSuccess(NotModified)
      .annotate(
        OpenApi.Description,
        "Climate context from the history alone: every year's means and sums, the baseline, and how this month, season and year so far rank against the same span of every earlier year."
      )
  )
  .add(
    HttpApiEndpoint.get("spells", "/spells")
      .setUrlParams(Schema.Struct(Where))
      .addSuccess(Payloads.SpellsPayload)
      .addSuccess(NotModified)
      .annotate(
        OpenApi.Description,
        "Heat waves (Excess Heat Factor), cold spells, dry and wet spells over the record and the coming days, each ranked against every other of its kind here: those on or coming, each kind's top 10, the days per year and the last two years' spells."
      )
  )
  .add(
    HttpApiEndpoint.get("cell", "/cell")
      .setUrlParams(Schema.Struct({ ...Where, prefetch: DataQuery.prefetch }))
      .addSuccess(Payloads.BundlePayload)
      .addSuccess(HttpApiSchema.Empty(204).annotations({ description: "prefetch=1 for a cell with no history held" }))
      .addSuccess(NotModified)
      .annotate(OpenApi.Description, "All four views in one response, each slice with the ETag its own endpoint sends.")
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
