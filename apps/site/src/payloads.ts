/**
 * The payload shapes the site reads (docs/api.md), taken as types from the core's schemas so the
 * page and the API cannot drift apart. Type-only: nothing of the core reaches the bundle.
 */
import type {
  CalendarPayload as CalendarPayloadSchema,
  DayPayload as DayPayloadSchema,
  ForecastPayload as ForecastPayloadSchema,
  GradePayload as GradePayloadSchema,
  SpellsPayload as SpellsPayloadSchema,
  TrendPayload as TrendPayloadSchema
} from "@climate-grade/core/data/Payloads"

export type GradePayload = GradePayloadSchema
export type ForecastPayload = ForecastPayloadSchema
export type CalendarPayload = CalendarPayloadSchema
export type DayPayload = DayPayloadSchema
export type TrendPayload = TrendPayloadSchema
export type SpellsPayload = SpellsPayloadSchema
export type Spell = SpellsPayload["now"][number]
/** A forecast day's normal: each variable's 10th, 50th and 90th percentiles for the date. */
export type ForecastNormal = ForecastPayload["days"][number]["normal"]
export type TrendStanding = TrendPayload["periods"]["month"]["variables"]["tmax"]
export type Grade = GradePayload["variables"]["tmax"]
export type DayGrade = DayPayload["variables"]["tmax"]
export type GradeLabel = NonNullable<Grade["label"]>
export type Cell = GradePayload["cell"]
export type Variable = "tmax" | "tmin" | "precip"
export type Units = "metric" | "imperial"
