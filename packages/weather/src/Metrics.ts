import { UpstreamBudget } from "@climate-grade/core"
import * as Metric from "effect/Metric"

/** Open-Meteo cost units spent: max(1, variables / 10 × days / 14) per call. */
export const costUnits = Metric.counter("weather_cost_units", {
  description: "Open-Meteo cost units spent (max(1, variables/10 × days/14) per call)"
})

/** Calls made to each upstream, whatever their outcome. */
export const upstreamCalls = Metric.counter("weather_upstream_calls", { description: "Calls to the weather and geocoder upstreams" })

/** Cost units left of today's budget (`WEATHER_DAILY_UNITS`), set on each reservation. */
export const budgetUnitsLeft = UpstreamBudget.unitsLeft
